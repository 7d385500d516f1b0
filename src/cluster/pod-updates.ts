// The interfaces between the cluster pieces and the agent, shaped as the kubelet's
// pkg/kubelet/config does it: every pod source emits PodUpdates of whole pods (kubetypes.PodUpdate
// with ADD, UPDATE, DELETE, REMOVE, RECONCILE), one consumer admits them. The statuses go the
// other way through src/status/pod-status-sink.ts.
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
