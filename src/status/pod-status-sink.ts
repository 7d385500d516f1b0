// Where the status manager's statuses go (kubelet status_manager.go: SetPodStatus bumps the pod's
// version and queues it on podStatusChannel; syncPod takes it to the API server; TerminatePod and
// canBeDeleted end it). Standalone, the agent's object store is the only copy; in cluster mode
// the API server's status sync is a sink too, fed straight from the status manager with its
// version, not through the local store.
import type { Pod } from "../api/types.js";

/** PodStatusSink receives the statuses the status manager stores and the pods whose termination finished. */
export interface PodStatusSink {
  /**
   * statusChanged is called with the pod (its status in pod.status) every time the status
   * manager stores a new status for it, with that status's version (kubelet versionedPodStatus),
   * and again when the pod's containers have all stopped (a terminal phase held back until then
   * may now be written). A status that no status manager versioned (a pod rejected before the
   * agent took it, a mirror's copy) comes without one and the sink counts it itself.
   */
  statusChanged(pod: Pod, version?: number): void;
  /** podTerminated is called once the agent has stopped every container of a pod and forgotten it. */
  podTerminated(pod: Pod): void;
}
