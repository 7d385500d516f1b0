// What kuberuntime asks of the node while it syncs a pod (kubelet pkg/kubelet/container
// helpers.go RuntimeHelper, implemented by the Kubelet): the container's run options (environment,
// volume mounts, the managed hosts file), the pod's host name, the PodReadyToStartContainers
// callback once the sandbox is up; and, where probelet's sync publishes a status between runtime
// steps (kubelet.go SyncPod stores one before kuberuntime starts anything, a sandbox creation and
// a RestartAllContainers reset store theirs), the pod's status as the runtime now shows it.
import type { Container, Pod, PodStatus } from "../api/types.js";
import type { KeyValue, Mount } from "../runtime/runtime.js";
import type { SandboxNotReadyMessage } from "../status/generate.js";
import type { ContainerInstances } from "./container-instance-groups.js";
import type { PodRecord } from "./pod-record.js";

/**
 * RunContainerOptions are a container's environment, its command and args with $(VAR) expanded
 * against that environment (kubecontainer.ExpandContainerCommandAndArgs) and its mounts (the
 * volume mounts and the managed /etc/hosts, kubelet_pods.go makeMounts).
 */
export interface RunContainerOptions {
  envs: KeyValue[];
  command: string[];
  args: string[];
  mounts: Mount[];
}

/** RuntimeHelper is the node's side of a pod's sync, as kuberuntime sees it. */
export interface RuntimeHelper {
  /**
   * generateRunContainerOptions makes what the container needs to be created (kubelet
   * GenerateRunContainerOptions), or says why it cannot be: the text becomes the container's
   * CreateContainerConfigError. Warnings about the environment are recorded as events there.
   */
  generateRunContainerOptions(record: PodRecord, spec: Container): Promise<RunContainerOptions | { error: string }>;
  /** podHostname is the sandbox's host name (kubelet GeneratePodHostNameAndDomain). */
  podHostname(pod: Pod): string;
  /** onPodSandboxReady turns PodReadyToStartContainers True in the stored status (kubelet OnPodSandboxReady, 1.37). */
  onPodSandboxReady(record: PodRecord): void;
  /** storedStatus is the pod's status as last stored (the status manager's copy). */
  storedStatus(uid: string): PodStatus | undefined;
  /** storeStatus generates the pod's status from the runtime's view and stores it (kubelet generateAPIPodStatus + SetPodStatus). */
  storeStatus(record: PodRecord, groups: Map<string, ContainerInstances>, sandboxNotReady?: SandboxNotReadyMessage): Promise<PodStatus>;
}
