// The grace period a container gets when the kubelet kills it (kubelet
// pkg/kubelet/kuberuntime/kuberuntime_container.go setTerminationGracePeriod and killContainer).
import { probeOf } from "../api/pod-rules.js";
import type { Container, Pod } from "../api/types.js";
import type { ProbeKillReason } from "./container-actions.js";

/**
 * MINIMUM_GRACE_PERIOD_SECONDS is the shortest stop window a container is ever given, so a
 * preStop hook that used up the grace period does not turn into an immediate SIGKILL
 * (kubelet minimumGracePeriodInSeconds). It is also the value when the pod sets none.
 */
export const MINIMUM_GRACE_PERIOD_SECONDS = 2;

/**
 * killGracePeriodSeconds picks the grace period for a kill: the pod's
 * deletionGracePeriodSeconds when deletion has started (probe values ignored); otherwise,
 * with a pod-level terminationGracePeriodSeconds, the terminationGracePeriodSeconds of the
 * probe that caused the kill when set (liveness or startup; readiness never kills), else the
 * pod value; else 2. A probe value may exceed the pod value; the kubelet only logs that.
 */
export function killGracePeriodSeconds(pod: Pod, container: Container, reason?: ProbeKillReason): number {
  const deletionGrace = pod.metadata.deletionGracePeriodSeconds;
  if (deletionGrace !== undefined) return deletionGrace;
  const podGrace = pod.spec.terminationGracePeriodSeconds;
  if (podGrace === undefined) return MINIMUM_GRACE_PERIOD_SECONDS;
  const probe = reason === undefined ? undefined : probeOf(container, reason);
  return probe?.terminationGracePeriodSeconds ?? podGrace;
}

/**
 * remainingGraceAfterPreStop is what is left for the stop signal after a preStop hook ran for
 * `preStopElapsedSeconds`: the kubelet subtracts the whole seconds the hook took (it only
 * runs hooks when grace > 0) and never goes below MINIMUM_GRACE_PERIOD_SECONDS.
 */
export function remainingGraceAfterPreStop(grace: number, preStopElapsedSeconds: number): number {
  const consumed = grace > 0 ? Math.trunc(Math.max(0, preStopElapsedSeconds)) : 0;
  return Math.max(MINIMUM_GRACE_PERIOD_SECONDS, grace - consumed);
}
