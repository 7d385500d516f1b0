// activeDeadlineSeconds as the kubelet enforces it (pkg/kubelet/active_deadline.go:
// pastActiveDeadline, ShouldSync, ShouldEvict; generateAPIPodStatus applies the eviction): once
// the pod has run on the node for its deadline since its start time, its status is Failed with
// reason DeadlineExceeded, a Normal event says so, and the pod worker stops its containers. The
// deadline may be lowered or set on a running pod (ValidatePodUpdate), so it is read afresh.
import type { Pod, PodStatus } from "../api/types.js";

/** The kubelet's reason and message for a pod past its deadline. */
export const DEADLINE_EXCEEDED_REASON = "DeadlineExceeded";
export const DEADLINE_EXCEEDED_MESSAGE = "Pod was active on the node longer than the specified deadline";

/** activeDeadlineAt is when the pod's deadline passes (ms), or undefined without one. */
export function activeDeadlineAt(pod: Pod, startTime: number): number | undefined {
  const seconds = pod.spec.activeDeadlineSeconds;
  return typeof seconds === "number" && seconds >= 0 ? startTime + seconds * 1000 : undefined;
}

/** pastActiveDeadline says whether the pod has run for its deadline at `now`. */
export function pastActiveDeadline(pod: Pod, startTime: number, now: number): boolean {
  const at = activeDeadlineAt(pod, startTime);
  return at !== undefined && now >= at;
}

/** evictPastDeadline turns a status Failed/DeadlineExceeded when the pod is past its deadline; true when it did. */
export function evictPastDeadline(pod: Pod, status: PodStatus, startTime: number, now: number): boolean {
  if (!pastActiveDeadline(pod, startTime, now)) return false;
  // A pod that already Succeeded keeps its phase (the terminal phase never changes).
  if (status.phase === "Succeeded") return false;
  status.phase = "Failed";
  status.reason = DEADLINE_EXCEEDED_REASON;
  status.message = DEADLINE_EXCEEDED_MESSAGE;
  return true;
}
