// The agent's healthz verdict (kubelet pkg/kubelet/kubelet.go syncLoop health check): unhealthy
// while stopping, when the loop has stalled (10 relist periods + 5 s), or when pod syncs have been
// skipped for 5 minutes because the runtime is down (max(2 × syncFrequency, 5 min)).
import { formatGoDuration } from "../probe/go-duration.js";
import { formatRuntimeErrors, SYNC_LOOP_HEALTH_THRESHOLD_MS } from "./runtime-state.js";

/** SyncLoopState is what the verdict reads. */
export interface SyncLoopState {
  stopping: boolean;
  now: number;
  /** When the loop last ran. */
  lastResync: number;
  periodMs: number;
  /** Since when syncs are skipped (runtime down), if they are. */
  runtimeDownSince: number | undefined;
  runtimeErrors: readonly string[];
}

/** syncLoopHealth is healthz's answer for a state. */
export function syncLoopHealth(state: SyncLoopState): { ok: boolean; message: string } {
  if (state.stopping) return { ok: false, message: "agent is shutting down" };
  const behind = state.now - state.lastResync;
  if (behind > state.periodMs * 10 + 5000) return { ok: false, message: `sync loop is stale: last resync ${behind} ms ago` };
  const skippedFor = state.runtimeDownSince === undefined ? 0 : state.now - state.runtimeDownSince;
  if (skippedFor >= SYNC_LOOP_HEALTH_THRESHOLD_MS) {
    return { ok: false, message: `pod synchronization skipped for ${formatGoDuration(skippedFor)}: ${formatRuntimeErrors(state.runtimeErrors)}` };
  }
  return { ok: true, message: "ok" };
}
