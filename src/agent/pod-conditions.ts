// Who owns which pod condition, and how the agent's status and the API's copy are merged, as the
// kubelet does it: the kubelet owns PodScheduled, Ready, Initialized, ContainersReady, the resize
// conditions, PodReadyToStartContainers and AllContainersRestarting (kubetypes.PodConditionByKubelet); every other
// condition (a readiness gate's, which a controller sets through pods/status) belongs to whoever
// wrote it into the API, and the kubelet keeps it (status_manager.go mergePodStatus; kubelet_pods.go
// generateAPIPodStatus copies it from the API's pod before it computes Ready).
import type { PodCondition, PodStatus } from "../api/types.js";
import { sameJson } from "../apiserver/resources/canonical-json.js";

const KUBELET_CONDITIONS: ReadonlySet<string> = new Set(["PodScheduled", "Ready", "Initialized", "ContainersReady", "PodResizeInProgress", "PodResizePending", "PodReadyToStartContainers", "AllContainersRestarting"]);

/** isKubeletCondition reports whether the kubelet owns a pod condition type. */
export function isKubeletCondition(type: string): boolean {
  return KUBELET_CONDITIONS.has(type);
}

function othersOf(status: PodStatus | undefined): PodCondition[] {
  return (status?.conditions ?? []).filter((c) => !isKubeletCondition(c.type));
}

/**
 * mergeApiConditions is the agent's status with the conditions it does not own taken from the
 * API's copy (its own are kept); undefined when that changes nothing.
 */
export function mergeApiConditions(own: PodStatus, api: PodStatus | undefined): PodStatus | undefined {
  const theirs = othersOf(api);
  if (sameJson(othersOf(own), theirs)) return undefined;
  return { ...own, conditions: [...(own.conditions ?? []).filter((c) => isKubeletCondition(c.type)), ...theirs] };
}
