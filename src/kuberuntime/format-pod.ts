// The kubelet's way of naming a pod in its messages (pkg/kubelet/util/format/pod.go Pod).
import type { Pod } from "../api/types.js";

/** formatPod renders a pod as the kubelet's format.Pod: name_namespace(uid). */
export function formatPod(pod: Pod): string {
  return `${pod.metadata.name ?? ""}_${pod.metadata.namespace ?? ""}(${pod.metadata.uid ?? ""})`;
}
