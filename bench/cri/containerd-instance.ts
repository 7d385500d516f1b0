// The containerd the CRI benchmarks run against. If PROBELET_CRI_SOCKET is set, that instance
// is used as it is and left running. Otherwise the bench starts its own with
// scripts/containerd.sh in PROBELET_CRI_DIR (default /tmp/probelet-cri-bench, apart from the
// tests' /tmp/probelet-cri) and stops it again (`scripts/containerd.sh stop`), on failure too;
// a containerd that was already running in that directory is used but not stopped.
import { execFileSync } from "node:child_process";
import { dirname } from "node:path";
import { repoRoot, runContainerdScript } from "../../test/cri/containerd-script.js";
import { findContainerdPid } from "./proc-cpu.js";

export { repoRoot };

/** DEFAULT_BENCH_CRI_DIR is the run directory of the bench's own containerd. */
export const DEFAULT_BENCH_CRI_DIR = "/tmp/probelet-cri-bench";

/** CriInstance is a reachable containerd. */
export interface CriInstance {
  socket: string;
  runDir: string;
  /** Parent of the pod cgroups, which `scripts/containerd.sh stop` cleans. */
  cgroupPrefix: string;
  containerdPid: number | undefined;
  /** Whether this bench started it (and so must stop it). */
  owned: boolean;
  /** How long `scripts/containerd.sh start` took (ms), when owned. */
  startMs: number;
}

/** whyNotRunnable explains why containerd cannot be started here, or returns undefined. */
export function whyNotRunnable(): string | undefined {
  if (process.platform !== "linux") return "the CRI benchmarks need Linux";
  if (process.env["PROBELET_CRI_SOCKET"]) return undefined;
  if (process.getuid?.() !== 0) return "starting containerd needs root (or set PROBELET_CRI_SOCKET to a running one)";
  try {
    execFileSync("sh", ["-c", "command -v containerd && command -v runc"], { stdio: "ignore" });
  } catch {
    return "containerd or runc is not installed (scripts/containerd.sh install)";
  }
  return undefined;
}

/** ensureContainerd returns the configured instance, or starts the bench's own. */
export function ensureContainerd(log: (line: string) => void): CriInstance {
  const given = process.env["PROBELET_CRI_SOCKET"];
  if (given) {
    const runDir = process.env["PROBELET_CRI_DIR"] ?? dirname(given);
    return {
      socket: given,
      runDir,
      cgroupPrefix: process.env["PROBELET_CRI_CGROUP_PARENT"] || "/probelet",
      containerdPid: findContainerdPid(runDir),
      owned: false,
      startMs: 0,
    };
  }
  const runDir = process.env["PROBELET_CRI_DIR"] ?? DEFAULT_BENCH_CRI_DIR;
  // Someone else's instance in that directory is used but never stopped by us.
  const running = findContainerdPid(runDir) !== undefined;
  log(`starting containerd in ${runDir} (scripts/containerd.sh start)`);
  const t0 = performance.now();
  const env = runContainerdScript("start", runDir);
  const startMs = performance.now() - t0;
  const socket = env["PROBELET_CRI_SOCKET"];
  if (!socket) throw new Error("scripts/containerd.sh start printed no PROBELET_CRI_SOCKET");
  return { socket, runDir, cgroupPrefix: env["PROBELET_CRI_CGROUP_PARENT"] ?? "/probelet", containerdPid: findContainerdPid(runDir), owned: !running, startMs };
}

/**
 * stopContainerd stops an instance this bench started (`scripts/containerd.sh stop`: removes
 * every container and sandbox, stops containerd, kills leftover shims, rmdirs the pod cgroups).
 * Synchronous, so exit and signal handlers can call it. A no-op for instances it did not start.
 */
export function stopContainerd(instance: CriInstance, log: (line: string) => void): void {
  if (!instance.owned) return;
  log(`stopping containerd in ${instance.runDir} (scripts/containerd.sh stop)`);
  runContainerdScript("stop", instance.runDir);
  instance.owned = false;
}
