// The labels and annotations the agent puts on sandboxes and containers to find them again and
// to know what they ran (kubelet pkg/kubelet/kuberuntime/labels.go, pkg/kubelet/types/labels.go).

/** LABEL_POD_UID names a sandbox's or container's pod UID (types.KubernetesPodUIDLabel). */
export const LABEL_POD_UID = "io.kubernetes.pod.uid";
/** LABEL_POD_NAME names the pod (types.KubernetesPodNameLabel). */
export const LABEL_POD_NAME = "io.kubernetes.pod.name";
/** LABEL_POD_NAMESPACE names the pod's namespace (types.KubernetesPodNamespaceLabel). */
export const LABEL_POD_NAMESPACE = "io.kubernetes.pod.namespace";
/** LABEL_CONTAINER_NAME names the container (types.KubernetesContainerNameLabel). */
export const LABEL_CONTAINER_NAME = "io.kubernetes.container.name";
/** ANNOTATION_CONTAINER_HASH is the hash of the container's spec the instance ran (containerHashLabel). */
export const ANNOTATION_CONTAINER_HASH = "io.kubernetes.container.hash";
/** ANNOTATION_RESTART_COUNT is the instance's restart count (containerRestartCountLabel). */
export const ANNOTATION_RESTART_COUNT = "io.kubernetes.container.restartCount";
