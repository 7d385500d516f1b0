// Driving scripts/control-plane.sh from Node, for tests that need a control plane of their own
// (its own run directory, ports, certificates and processes) apart from the shared one.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { repoRoot } from "../cri/containerd-script.js";

/** ControlPlaneScriptResult is how one run of the script ended, with the variables it exported. */
export interface ControlPlaneScriptResult {
  /** The exit status (null when a signal or the timeout ended it). */
  status: number | null;
  /** `export NAME='value'` lines of stdout, by NAME. */
  exported: Record<string, string>;
  stderr: string;
}

/**
 * runControlPlaneScript runs `scripts/control-plane.sh COMMAND` with PROBELET_CP_DIR=runDir and
 * `env` added to this process's environment.
 */
export function runControlPlaneScript(
  command: "start" | "stop" | "status" | "env",
  runDir: string,
  env: Record<string, string> = {},
  timeoutMs = 120_000,
): ControlPlaneScriptResult {
  const run = spawnSync("bash", [join(repoRoot(), "scripts", "control-plane.sh"), command], {
    env: { ...process.env, ...env, PROBELET_CP_DIR: runDir },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: timeoutMs,
    maxBuffer: 1024 * 1024,
  });
  const exported: Record<string, string> = {};
  for (const m of (run.stdout ?? "").matchAll(/^export (\w+)='([^']*)'$/gm)) exported[m[1]!] = m[2]!;
  return { status: run.status, exported, stderr: run.stderr ?? "" };
}
