// RuntimeState: whether the container runtime answers, as the kubelet judges it (kubelet
// runtime.go runtimeState.runtimeErrors and the PLEG's Healthy check). The agent's relist is
// its runtime check: every successful relist counts as a runtime sync and as PLEG activity.
import { formatGoDuration } from "../probe/go-duration.js";

/** RUNTIME_SYNC_THRESHOLD_MS: with no successful runtime call for this long, the runtime is down (kubelet maxWaitForContainerRuntime, 30 s). */
export const RUNTIME_SYNC_THRESHOLD_MS = 30_000;

/** PLEG_RELIST_THRESHOLD_MS: with no successful relist for this long, the PLEG is unhealthy (kubelet relistThreshold, 3 min). */
export const PLEG_RELIST_THRESHOLD_MS = 3 * 60_000;

/** SYNC_LOOP_HEALTH_THRESHOLD_MS: healthz fails once pod syncs were skipped this long (kubelet syncLoopHealthCheck: max(2 × 1 min, 5 min)). */
export const SYNC_LOOP_HEALTH_THRESHOLD_MS = 5 * 60_000;

/** RuntimeState remembers the last successful relist and the last error. */
export class RuntimeState {
  private lastSync = 0;
  private lastError = "";

  /** synced records a successful relist at `now` (ms). */
  synced(now: number): void {
    this.lastSync = now;
    this.lastError = "";
  }

  /** failed records why the latest relist failed; the state turns "down" only once the threshold passes. */
  failed(message: string): void {
    this.lastError = message;
  }

  /** lastErrorMessage is the latest relist error, "" once a relist succeeded again. */
  get lastErrorMessage(): string {
    return this.lastError;
  }

  /**
   * errors lists what keeps pod syncs from running, in the kubelet's words: never synced yet,
   * runtime down after 30 s without a successful call, PLEG unhealthy after 3 min. Empty when
   * the runtime is up.
   */
  errors(now: number): string[] {
    if (this.lastSync === 0) return ["container runtime status check may not have completed yet", "PLEG is not healthy: pleg has yet to be successful"];
    const since = now - this.lastSync;
    const errors: string[] = [];
    if (since >= RUNTIME_SYNC_THRESHOLD_MS) errors.push("container runtime is down");
    if (since > PLEG_RELIST_THRESHOLD_MS) {
      errors.push(`PLEG is not healthy: pleg was last seen active ${formatGoDuration(since)} ago; threshold is ${formatGoDuration(PLEG_RELIST_THRESHOLD_MS)}`);
    }
    return errors;
  }
}

/** formatRuntimeErrors joins errors as Go's utilerrors.NewAggregate prints them ("a" or "[a, b]"). */
export function formatRuntimeErrors(errors: readonly string[]): string {
  return errors.length === 1 ? errors[0]! : `[${errors.join(", ")}]`;
}
