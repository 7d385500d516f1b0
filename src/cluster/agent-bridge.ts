// The agent's side of cluster mode: PodUpdates from the API server source are admitted into the
// agent's pod workers (kubelet syncLoopIteration → HandlePodAdditions, HandlePodUpdates,
// HandlePodRemoves; a pod the node cannot run is rejected with a Failed status, kubelet
// rejectPod), and the statuses the agent publishes for those pods go to the status sink.
import type { Pod } from "../api/types.js";
import type { WatchEvent } from "../agent/agent-api.js";
import type { AdmitResult } from "../agent/agent.js";
import type { Logger } from "../util/logger.js";
import { isMirrorPod } from "./mirror-pods.js";
import type { PodStatusSink, PodUpdate } from "./pod-updates.js";

/** BridgedAgent is what the bridge needs of the agent. */
export interface BridgedAgent {
  admit(pod: Pod, source: string, uid?: string): AdmitResult;
  deletePod(namespace: string, name: string, gracePeriodSeconds?: number): unknown;
  watchPods(listener: (event: WatchEvent<Pod>) => void): () => void;
}

/** AgentBridgeOptions configure an AgentBridge. */
export interface AgentBridgeOptions {
  agent: BridgedAgent;
  sink: PodStatusSink;
  /** Told about every other pod of the agent (its static pods: manifests and its own API). */
  staticPods?: (event: WatchEvent<Pod>) => void;
  /** Told when a mirror pod left the API server. */
  mirrorRemoved?: (pod: Pod) => void;
  /** Told when the API server started deleting a mirror pod. */
  mirrorDeleting?: (pod: Pod) => void;
  logger: Logger;
}

/** AgentBridge feeds one source's pods to the agent and the agent's statuses of them to the sink. */
export class AgentBridge {
  /** UIDs of the pods this bridge admitted. */
  private readonly admitted = new Set<string>();
  private readonly unwatch: () => void;

  constructor(private readonly options: AgentBridgeOptions) {
    this.unwatch = options.agent.watchPods((event) => this.onAgentPod(event));
  }

  /** handle applies one PodUpdate. */
  handle(update: PodUpdate): void {
    for (const pod of update.pods) {
      switch (update.op) {
        case "ADD":
        case "UPDATE":
        case "RECONCILE":
          this.add(pod, update.source);
          break;
        case "DELETE":
          if (isMirrorPod(pod)) {
            this.options.mirrorDeleting?.(pod);
            break;
          }
          this.add(pod, update.source);
          this.remove(pod, pod.metadata.deletionGracePeriodSeconds ?? undefined);
          break;
        case "REMOVE":
          if (isMirrorPod(pod)) this.options.mirrorRemoved?.(pod);
          else this.remove(pod, undefined);
          break;
      }
    }
  }

  /** close stops forwarding statuses. */
  close(): void {
    this.unwatch();
  }

  private add(pod: Pod, source: string): void {
    const uid = pod.metadata.uid ?? "";
    if (this.admitted.has(uid)) return;
    // A mirror pod is the API server's copy of one of our static pods, not a pod to run.
    if (isMirrorPod(pod)) return;
    // A pod the API server already shows finished is not started again (kubelet
    // filterOutInactivePods: Succeeded and Failed pods hold no resources and run nothing).
    if (pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed") return;
    const result = this.options.agent.admit(structuredClone(pod), source, uid);
    if (result.ok) {
      this.admitted.add(uid);
      return;
    }
    // kubelet rejectPod: the pod fails at once with the reason in its status.
    const message = `Pod was rejected: ${result.errors.join("; ")}`;
    this.options.logger.warn("Pod admission failed", { pod: `${pod.metadata.namespace ?? ""}/${pod.metadata.name ?? ""}`, err: message });
    this.options.sink.statusChanged({ ...pod, status: { ...pod.status, phase: "Failed", reason: "UnexpectedAdmissionError", message } });
  }

  private remove(pod: Pod, gracePeriodSeconds: number | undefined): void {
    if (!this.admitted.has(pod.metadata.uid ?? "")) return;
    try {
      this.options.agent.deletePod(pod.metadata.namespace ?? "default", pod.metadata.name ?? "", gracePeriodSeconds);
    } catch {
      // Already gone from the agent.
    }
  }

  private onAgentPod(event: WatchEvent<Pod>): void {
    const uid = event.object.metadata.uid ?? "";
    if (!this.admitted.has(uid)) {
      this.options.staticPods?.(event);
      return;
    }
    if (event.type === "DELETED") {
      this.admitted.delete(uid);
      this.options.sink.podTerminated(event.object);
      return;
    }
    this.options.sink.statusChanged(event.object);
  }
}
