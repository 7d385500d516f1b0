// The agent's side of cluster mode, on the agent's object store: the store is the node's copy of
// its pods, as the kubelet's pod manager is (pkg/kubelet/config: the apiserver source feeds one
// merged stream of whole pods). Pods the API server binds to the node are written into the store
// with their UID, a deletion the API server starts is written as the same deletion, a pod gone
// from the API server is removed; the agent runs them through its store pod source, the same
// admission and pod workers as its other sources. Back from the store come the mirror pods of its
// manifest pods (mirror-pods.ts) and its events; the statuses of the API server's pods go from
// the status manager to the API server's status sync directly (cluster-node.ts, not through here).
import { isPodPhaseTerminal } from "../api/pod-rules.js";
import type { Pod } from "../api/types.js";
import type { KubeEvent, WatchEvent } from "../apiserver/endpoints/host-interface.js";
import { ANNOTATION_CONFIG_SOURCE, isMirrorPod } from "../api/mirror-pod.js";
import { createApiPod } from "../agent/pod-admission.js";
import { admitOnNode } from "../agent/node-admit-handlers.js";
import { mergeApiConditions } from "../agent/pod-conditions.js";
import { sameJson } from "../apiserver/resources/canonical-json.js";
import { EVENTS } from "../apiserver/resources/events.js";
import { PODS } from "../apiserver/resources/pods.js";
import type { ObjectStore, StoreEvent } from "../apiserver/storage/object-store.js";
import { StoreError } from "../apiserver/storage/store-errors.js";
import type { EventRecorder } from "../prober/event-recorder.js";
import type { Logger } from "../util/logger.js";
import type { PodStatusSink } from "../status/pod-status-sink.js";
import type { PodUpdate } from "./pod-updates.js";

/** withMutableFields is `stored` with the images and activeDeadlineSeconds of `latest`. */
function withMutableFields(stored: Pod["spec"], latest: Pod["spec"]): Pod["spec"] {
  const images = (mine: Pod["spec"]["containers"] | undefined, theirs: Pod["spec"]["containers"] | undefined): Pod["spec"]["containers"] | undefined =>
    mine?.map((c) => {
      const image = theirs?.find((t) => t.name === c.name)?.image;
      return image !== undefined && image !== c.image ? { ...c, image } : c;
    });
  const spec: Pod["spec"] = { ...stored, containers: images(stored.containers, latest.containers) ?? [] };
  const init = images(stored.initContainers, latest.initContainers);
  if (init !== undefined) spec.initContainers = init;
  if (latest.activeDeadlineSeconds !== undefined) spec.activeDeadlineSeconds = latest.activeDeadlineSeconds;
  // Ephemeral containers are added through pods/ephemeralcontainers (ValidatePodEphemeralContainersUpdate: only added).
  if (latest.ephemeralContainers !== undefined && latest.ephemeralContainers.length > 0) spec.ephemeralContainers = latest.ephemeralContainers;
  return spec;
}

/**
 * API_SERVER_SOURCE is the config.source annotation of the pods this bridge writes into the store
 * (kubetypes.ApiserverSource, as the kubelet's config annotates every pod with its source): it
 * tells them from pods made through the agent's own API, also after an agent restart.
 */
export const API_SERVER_SOURCE = "api";

/** fromApiServer tells whether a pod of the agent came from the API server. */
export function fromApiServer(pod: Pod): boolean {
  return pod.metadata.annotations?.[ANNOTATION_CONFIG_SOURCE] === API_SERVER_SOURCE;
}

/** annotated is the API server's annotations with the source marker. */
function annotated(pod: Pod): Record<string, string> {
  return { ...pod.metadata.annotations, [ANNOTATION_CONFIG_SOURCE]: API_SERVER_SOURCE };
}

/** StoreBridgeOptions configure a StoreBridge. */
export interface StoreBridgeOptions {
  store: ObjectStore;
  nodeName: string;
  /** Where the status of a pod the node rejects goes (the status manager never sees it). */
  sink: PodStatusSink;
  /** Told about the store's mirror pods (the agent's manifest pods). */
  staticPods: (event: WatchEvent<Pod>) => void;
  /** Told when a mirror pod left the API server. */
  mirrorRemoved: (pod: Pod) => void;
  /** Told when the API server started deleting a mirror pod. */
  mirrorDeleting: (pod: Pod) => void;
  /** Told about every event the agent records. */
  events: (event: WatchEvent<KubeEvent>) => void;
  /** Records the agent's events (the rejection of a pod the node cannot take). */
  recorder: EventRecorder;
  logger: Logger;
}

/** StoreBridge connects the API server's pods and the agent's store. */
export class StoreBridge {
  private readonly stops: (() => void)[] = [];

  constructor(private readonly options: StoreBridgeOptions) {
    const { store, nodeName } = options;
    this.stops.push(
      store.watch<Pod>(PODS.name, { filter: (p) => p.spec.nodeName === nodeName }, (e) => this.onStorePod(e)),
      store.watch<KubeEvent>(EVENTS.name, {}, (e) => (e.type === "DELETED" ? undefined : options.events({ type: e.type, object: e.object }))),
    );
  }

  /** handle applies one PodUpdate of the API server source to the store. */
  handle(update: PodUpdate): void {
    for (const pod of update.pods) {
      try {
        if (update.op === "REMOVE") this.remove(pod);
        else if (update.op === "DELETE" && isMirrorPod(pod)) this.options.mirrorDeleting(pod);
        else this.put(pod);
      } catch (err) {
        if (!(err instanceof StoreError)) throw err;
        this.reject(pod, err.message, "UnexpectedAdmissionError");
      }
    }
  }

  /**
   * forgetMissing removes the store's pods of the node that the API server no longer has (after
   * the source's first list: pods deleted while the agent was away; kubelet HandlePodCleanups).
   */
  forgetMissing(known: (uid: string) => boolean): void {
    const { store, nodeName } = this.options;
    for (const pod of store.list<Pod>(PODS.name, { filter: (p) => p.spec.nodeName === nodeName && fromApiServer(p) }).items) {
      if (!known(pod.metadata.uid ?? "")) this.remove(pod);
    }
  }

  /** close stops watching the store. */
  close(): void {
    for (const stop of this.stops) stop();
  }

  private put(pod: Pod): void {
    if (isMirrorPod(pod)) return;
    const { store } = this.options;
    const uid = pod.metadata.uid ?? "";
    const namespace = pod.metadata.namespace ?? "default";
    const name = pod.metadata.name ?? "";
    const stored = store.get<Pod>(PODS.name, namespace, name);
    if (stored === undefined) {
      // A pod the API server already shows finished is not started again (kubelet filterOutInactivePods).
      if (isPodPhaseTerminal(pod.status?.phase)) return;
      // The node's admit handlers (kubelet canAdmitPod): a pod it cannot run is rejected here.
      const refused = admitOnNode(pod);
      if (refused !== undefined) return this.reject(pod, refused.message, refused.reason);
      const { resourceVersion: _rv, managedFields: _mf, ...metadata } = pod.metadata as Pod["metadata"] & { resourceVersion?: string; managedFields?: unknown };
      // Admitted as the agent admits a pod it restores (defaulted and validated, UID kept), so the
      // containers' spec hashes are the same when a restarted agent restores it from its state;
      // a node of a cluster requests its pods' service-account tokens (token-projection.ts).
      const created = createApiPod(store, { apiVersion: "v1", kind: "Pod", metadata: { ...metadata, annotations: annotated(pod) }, spec: pod.spec }, this.options.nodeName, { restore: true, validation: { tokenRequests: true } });
      if (!created.ok) this.reject(pod, created.errors.join("; "), "UnexpectedAdmissionError");
      return;
    }
    if (stored.metadata.uid !== uid) throw new StoreError("AlreadyExists", `pods "${name}" already exists on the node with another UID`);
    const annotations = annotated(pod);
    const { deletionTimestamp, deletionGracePeriodSeconds, generation } = pod.metadata;
    store.modify<Pod>(PODS.name, namespace, name, (current) => {
      const deletionChanged = deletionTimestamp !== undefined && (current.metadata.deletionTimestamp !== deletionTimestamp || current.metadata.deletionGracePeriodSeconds !== deletionGracePeriodSeconds);
      // Of a bound pod's spec only the container images and activeDeadlineSeconds may change
      // (ValidatePodUpdate), and ephemeral containers be added; the rest of the stored spec stays
      // as the agent admitted it.
      const spec = withMutableFields(current.spec, pod.spec);
      // The conditions others own (a readiness gate's, set through pods/status) come from the
      // API server's copy; the agent's reconciler then recomputes Ready with them.
      const status = current.status === undefined ? undefined : mergeApiConditions(current.status, pod.status);
      // The API server's generation, bumped by spec changes the node's copy does not take (e.g.
      // tolerations) too, is the one the status's observedGeneration answers (PodObservedGenerationTracking).
      const generationChanged = generation !== undefined && generation !== current.metadata.generation;
      const changed = deletionChanged || generationChanged || status !== undefined || !sameJson(spec, current.spec) || !sameJson(current.metadata.labels, pod.metadata.labels) || !sameJson(current.metadata.annotations, annotations);
      if (!changed) return undefined;
      const metadata = { ...current.metadata, labels: pod.metadata.labels, annotations, ...(generation !== undefined ? { generation } : {}), ...(deletionTimestamp !== undefined ? { deletionTimestamp, deletionGracePeriodSeconds } : {}) };
      return { ...current, metadata, spec, ...(status !== undefined ? { status } : {}) } as Pod;
    }, { uid });
  }

  private remove(pod: Pod): void {
    if (isMirrorPod(pod)) {
      this.options.mirrorRemoved(pod);
      return;
    }
    try {
      this.options.store.delete(PODS.name, pod.metadata.namespace ?? "default", pod.metadata.name ?? "", { uid: pod.metadata.uid ?? "" });
    } catch (err) {
      if (!(err instanceof StoreError)) throw err;
    }
  }

  /**
   * reject fails a pod the node cannot take, as kubelet rejectPod does: a Warning event with the
   * reason and message, and the status phase Failed, that reason, message `Pod was rejected: …`
   * (an admit handler's reason, or UnexpectedAdmissionError when the pod cannot be stored).
   */
  private reject(pod: Pod, message: string, reason: string): void {
    this.options.logger.warn("Pod admission failed", { pod: `${pod.metadata.namespace ?? ""}/${pod.metadata.name ?? ""}`, err: message });
    this.options.recorder.event({ pod }, "Warning", reason, message);
    this.options.sink.statusChanged({ ...pod, status: { ...pod.status, phase: "Failed", reason, message: `Pod was rejected: ${message}` } });
  }

  /** onStorePod tells the mirror pods about the store's mirrors of the agent's manifest pods. */
  private onStorePod(event: StoreEvent<Pod>): void {
    if (isMirrorPod(event.object)) this.options.staticPods({ type: event.type, object: event.object });
  }
}
