// The interfaces between the cluster pieces and the agent, shaped as the kubelet's
// pkg/kubelet/config does it: every pod source emits PodUpdates of whole pods (kubetypes.PodUpdate
// with ADD, UPDATE, DELETE, REMOVE, RECONCILE), one consumer admits them; the status manager
// writes every status it stores to a sink (the API server in cluster mode).
import type { Pod } from "../api/types.js";

/** PodOperation is kubetypes.PodOperation. */
export type PodOperation = "ADD" | "UPDATE" | "DELETE" | "REMOVE" | "RECONCILE";

/** PodUpdate carries whole pods of one source (kubetypes.PodUpdate). */
export interface PodUpdate {
  op: PodOperation;
  /** The source's name (kubelet: "file", "http", "api"); ours: "apiserver", "file:<path>", … */
  source: string;
  pods: Pod[];
}

/** PodUpdateListener consumes a source's updates. */
export type PodUpdateListener = (update: PodUpdate) => void;

/**
 * PodStatusSink receives the statuses the status manager stores (kubelet status_manager.go
 * SetPodStatus → syncPod) and the pods whose termination finished (TerminatePod, then
 * canBeDeleted).
 */
export interface PodStatusSink {
  /** statusChanged is called with the pod and its current status every time that status changes. */
  statusChanged(pod: Pod): void;
  /** podTerminated is called once the agent has stopped every container of a pod and forgotten it. */
  podTerminated(pod: Pod): void;
}
