// Small helpers for container processes that lead their own process group.
import { constants } from "node:os";

/**
 * signalGroup sends `signal` to every process of the group led by `pgid`. Returns false when
 * the group is already empty (ESRCH). Other errors (EPERM) are thrown.
 */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw err;
  }
}

/**
 * exitStatus is the exit code a runtime reports: the process's own code, or 128 + the signal
 * number for a process killed by a signal (containerd and the shell: SIGKILL → 137, SIGTERM → 143).
 */
export function exitStatus(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  return 128 + (signal ? (constants.signals[signal] ?? 0) : 0);
}

/** exitReason is containerd's reason for an exited container: "Completed" for 0, "Error" otherwise. */
export function exitReason(exitCode: number): "Completed" | "Error" {
  return exitCode === 0 ? "Completed" : "Error";
}
