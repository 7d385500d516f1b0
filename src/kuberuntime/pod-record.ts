// The node's state for one admitted pod: what the agent's pod worker hands each sync and what
// kuberuntime reads and updates while it reconciles the pod with the runtime (the kubelet keeps
// the same facts in several places: the pod worker's status, kubecontainer.PodStatus from the
// runtime, kuberuntime's reason cache).
import type { Pod } from "../api/types.js";
import type { ContainerInfo, PodSandboxConfig } from "../runtime/runtime.js";
import type { Waiting } from "./container-instance-groups.js";

/**
 * How soon a pod whose volumes, image or container config could not be made is synced again (the
 * kubelet's pod workers retry an errored sync after backOffPeriod, 10 s; a change of a referenced
 * ConfigMap or Secret syncs it at once).
 */
export const CONFIG_RETRY_MS = 10_000;

/** PodRecord is the agent's state for one pod. */
export interface PodRecord {
  /** The desired pod; deletionTimestamp is set once deletion has begun. */
  pod: Pod;
  /** Where the pod came from ("file:<path>", "dir:<path>", "api"). */
  source: string;
  sandboxId?: string;
  sandboxConfig?: PodSandboxConfig;
  podIP: string;
  /** When the agent first admitted the pod (ms). */
  startTime: number;
  /** Set once the process runtime's ImageIgnored event was recorded for the pod. */
  imageNoted?: boolean;
  /** Containers whose unbindable terminationMessagePath was already warned about. */
  messagePathWarned?: Set<string>;
  /** Waiting reasons decided by the last start attempt, by container name. */
  startErrors: Map<string, Waiting>;
  /**
   * CrashLoopBackOff reasons the last sync decided, by container name: they join startErrors
   * when the next sync begins. The kubelet's SyncPod stores the pod's status
   * (generateAPIPodStatus, from the reasonCache) before kuberuntime's SyncPod decides the
   * back-off and updates the reasonCache (kubelet.go SyncPod, kuberuntime_manager.go SyncPod), so
   * a container held back reads terminated until its pod is synced again.
   */
  backOffReasons?: Map<string, Waiting>;
  /** Host path of every volume of the pod, by volume name, once set up. */
  volumePaths?: Map<string, string>;
  /** Set by a sync that held a restart back: the shortest remaining back-off (ms). */
  backoffRemainingMs?: number | undefined;
  /** When a requeue for the back-off is scheduled (ms since epoch). */
  requeueAt?: number | undefined;
  /** Set once the sandbox of a pod in a terminal phase was stopped (kubelet SyncTerminatingPod). */
  sandboxStopped?: boolean;
  /**
   * Set once every container of the pod was stopped for good (SyncTerminatingPod done): until
   * then the pod could have running containers, and the store keeps its phase from turning
   * terminal (status_manager.go mergePodStatus, couldHaveRunningContainers).
   */
  containersStopped?: boolean;
  /** Exited instances' messages with their termination messages, by container ID (an exited instance never changes). */
  exitedInfos?: Map<string, ContainerInfo>;
}

/** retrySoon asks the pod worker to sync the pod again within CONFIG_RETRY_MS (an errored sync's retry). */
export function retrySoon(record: PodRecord): void {
  record.backoffRemainingMs = Math.min(record.backoffRemainingMs ?? CONFIG_RETRY_MS, CONFIG_RETRY_MS);
}
