// Driving scripts/containerd.sh from Node, for tests and benchmarks that need a containerd of
// their own (its own run directory, socket, cgroup parent and shims) apart from the shared one.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** repoRoot is the package root: the directory with package.json and scripts/containerd.sh above this file. */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth++) {
    if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "scripts", "containerd.sh"))) return dir;
    dir = dirname(dir);
  }
  throw new Error("cannot find the repository root (scripts/containerd.sh)");
}

/** ScriptEnv is what `scripts/containerd.sh start` or `env` prints, by variable name. */
export type ScriptEnv = Record<string, string>;

/**
 * runContainerdScript runs `scripts/containerd.sh COMMAND` on `runDir`, by default without the
 * node image (which only the gRPC cases use) and without a pod network (`options` may set
 * PROBELET_CRI_* otherwise), and returns the variables it exported. Its log goes to stderr.
 */
export function runContainerdScript(command: "start" | "stop" | "clean" | "env", runDir: string, timeoutMs = 120_000, options: Readonly<Record<string, string>> = {}): ScriptEnv {
  const out = execFileSync("bash", [join(repoRoot(), "scripts", "containerd.sh"), command], {
    env: { ...process.env, PROBELET_CRI_DIR: runDir, PROBELET_CRI_NODE_IMAGE: "0", PROBELET_CRI_CNI: "0", ...options },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    timeout: timeoutMs,
  });
  const env: ScriptEnv = {};
  for (const m of out.matchAll(/^export (\w+)='([^']*)'$/gm)) env[m[1]!] = m[2]!;
  return env;
}
