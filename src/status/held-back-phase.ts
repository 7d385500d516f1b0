// The status manager's rule for a phase turning terminal (kubelet status_manager.go
// mergePodStatus): while containers of the pod could still run, the written status keeps the
// old phase, reason and message, so nothing above the node releases what the pod still holds.
import { isPodPhaseTerminal } from "../api/pod-rules.js";
import type { PodStatus } from "../api/types.js";

/**
 * withPhaseHeldBack is `next` as the status manager writes it over `old`: when `next` turns the
 * phase terminal while containers could still run, `old`'s phase, reason and message stay.
 */
export function withPhaseHeldBack(old: PodStatus | undefined, next: PodStatus, couldHaveRunningContainers: boolean): PodStatus {
  if (!couldHaveRunningContainers || !isPodPhaseTerminal(next.phase) || isPodPhaseTerminal(old?.phase)) return next;
  const { phase: _phase, reason: _reason, message: _message, ...rest } = next;
  return { ...rest, ...(old?.phase !== undefined ? { phase: old.phase } : {}), ...(old?.reason !== undefined ? { reason: old.reason } : {}), ...(old?.message !== undefined ? { message: old.message } : {}) };
}
