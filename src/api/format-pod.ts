// How the kubelet names a pod in messages and errors (kubelet pkg/kubelet/util/format/pod.go).
import type { Pod } from "./types.js";

/** formatPod renders a pod as the kubelet's format.Pod: name_namespace(uid). */
export function formatPod(pod: Pod): string {
  return `${pod.metadata.name ?? ""}_${pod.metadata.namespace ?? ""}(${pod.metadata.uid ?? ""})`;
}
