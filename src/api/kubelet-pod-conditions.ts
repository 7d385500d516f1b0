// The pod conditions the kubelet owns (kubelet pkg/kubelet/types/pod_status.go, 1.37 with its
// default gates): PodConditionsByKubelet, plus PodReadyToStartContainers
// (PodReadyToStartContainersCondition, GA) and AllContainersRestarting
// (RestartAllContainersOnContainerExits, beta and on). Every other condition (a readiness gate's,
// DisruptionTarget) belongs to whoever wrote it into the API, and the kubelet's status merge keeps it.

/** KUBELET_POD_CONDITIONS are the condition types the kubelet owns (kubetypes.PodConditionByKubelet with 1.37's default gates). */
export const KUBELET_POD_CONDITIONS: ReadonlySet<string> = new Set([
  "PodScheduled",
  "Ready",
  "Initialized",
  "ContainersReady",
  "PodResizeInProgress",
  "PodResizePending",
  "PodReadyToStartContainers",
  "AllContainersRestarting",
]);

/** isKubeletCondition reports whether the kubelet owns a pod condition type (kubetypes.PodConditionByKubelet). */
export function isKubeletCondition(type: string): boolean {
  return KUBELET_POD_CONDITIONS.has(type);
}
