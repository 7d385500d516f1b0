// Mirror pods: the API server's read-only copies of the pods the node runs from its manifests
// (the store's mirror pods, static-pod-mirrors.ts), as the kubelet makes them for static pods
// (pkg/kubelet/pod/mirror_client.go CreateMirrorPod, DeleteMirrorPod; kubelet.go SyncPod →
// tryReconcileMirrorPods: a mirror pod whose config.mirror annotation does not match the static
// pod, or that is being deleted, is deleted and made again at once, and a missing one is made).
// The mirror carries the annotation kubernetes.io/config.mirror and an owner reference to the
// Node (what NodeRestriction lets a node create), and the static pod's status is written to it
// through the status manager (status_manager.go translates a static pod to its mirror pod's UID).
import { ANNOTATION_CONFIG_MIRROR, isMirrorPod, staticPodUid } from "../api/mirror-pod.js";
import type { Pod } from "../api/types.js";
import type { WatchEvent } from "../apiserver/endpoints/host-interface.js";
import type { Logger } from "../util/logger.js";
import { isStatus, type RestClient } from "../client/rest-client.js";
import type { PodStatusSink } from "../status/pod-status-sink.js";

/** MirrorPod is a Pod as POSTed for a static pod: owned by the Node. */
interface MirrorPod extends Pod {
  metadata: Pod["metadata"] & { ownerReferences: { apiVersion: string; kind: string; name: string; uid: string; controller: boolean }[] };
}

/** MirrorPodsOptions configure MirrorPods. */
export interface MirrorPodsOptions {
  client: RestClient;
  nodeName: string;
  /**
   * Resolves with the Node's UID once it is registered: NodeRestriction lets a node create only
   * mirror pods owned by its Node, so mirrors wait for it.
   */
  nodeUid: Promise<string>;
  sink: PodStatusSink;
  logger: Logger;
}

/** MirrorPods keeps one mirror pod per static pod and forwards the static pods' statuses to them. */
export class MirrorPods {
  /** Static pod UID → the mirror's UID once created (or a creation in progress). */
  private readonly mirrors = new Map<string, Promise<string | undefined>>();
  /** Static pod UID → the static pod as the store shows it last (its mirror in the store, with status). */
  private readonly statics = new Map<string, Pod>();
  private closed = false;

  constructor(private readonly options: MirrorPodsOptions) {}

  /** handle takes one event of a static pod from the agent (a change of its mirror in the agent's store). */
  handle(event: WatchEvent<Pod>): void {
    if (this.closed) return;
    const pod = event.object;
    const uid = staticPodUid(pod) ?? pod.metadata.uid ?? "";
    if (event.type === "DELETED") {
      this.statics.delete(uid);
      // Decided after the notification: a store mirror deleted through the agent's own API is made
      // again at once there (same static pod), and the API server's mirror then stays.
      queueMicrotask(() => {
        if (this.statics.has(uid) || this.closed) return;
        const mirror = this.mirrors.get(uid);
        this.mirrors.delete(uid);
        void mirror?.then((mirrorUid) => (mirrorUid === undefined || this.closed ? undefined : this.deleteMirror(pod, mirrorUid)));
      });
      return;
    }
    this.statics.set(uid, pod);
    this.sync(uid);
  }

  /** sync makes the mirror of a static pod if it has none, then writes the static pod's last status to it. */
  private sync(uid: string): void {
    const pod = this.statics.get(uid);
    if (pod === undefined || this.closed) return;
    let mirror = this.mirrors.get(uid);
    if (mirror === undefined) {
      mirror = this.ensure(pod).catch((err: unknown) => {
        this.options.logger.warn("Failed creating a mirror pod", { pod: `${pod.metadata.namespace ?? ""}/${pod.metadata.name ?? ""}`, err: err instanceof Error ? err.message : String(err) });
        this.mirrors.delete(uid);
        return undefined;
      });
      this.mirrors.set(uid, mirror);
    }
    void mirror.then((mirrorUid) => {
      const latest = this.statics.get(uid);
      if (mirrorUid !== undefined && !this.closed && latest?.status !== undefined) this.options.sink.statusChanged({ ...latest, metadata: { ...latest.metadata, uid: mirrorUid } });
    });
  }

  /**
   * mirrorGone is told that a mirror pod left the API server (a user deleted it): it is made
   * again at once while its static pod runs (kubelet SyncPod → tryReconcileMirrorPods makes a
   * missing mirror pod).
   */
  mirrorGone(mirror: Pod): void {
    const hash = staticPodUid(mirror);
    if (hash === undefined) return;
    const entry = this.mirrors.get(hash);
    void entry?.then((uid) => {
      if (uid !== mirror.metadata.uid || this.mirrors.get(hash) !== entry) return;
      this.mirrors.delete(hash);
      this.sync(hash);
    });
  }

  /**
   * mirrorDeleting is told that the API server started deleting a mirror pod (a user, or its
   * namespace going away): the node removes it at once (kubelet tryReconcileMirrorPods deletes a
   * mirror pod that has a deletionTimestamp) and makes it again.
   */
  mirrorDeleting(mirror: Pod): void {
    if (this.closed) return;
    void this.deleteMirror(mirror, mirror.metadata.uid ?? "").then(() => this.mirrorGone(mirror));
  }

  /** close stops creating, updating and deleting mirror pods (they stay for the next agent, as the kubelet leaves them). */
  close(): void {
    this.closed = true;
  }

  private path(pod: Pod): string {
    return `/api/v1/namespaces/${encodeURIComponent(pod.metadata.namespace ?? "default")}/pods`;
  }

  /** ensure finds or makes the mirror of a static pod and returns its UID. */
  private async ensure(pod: Pod): Promise<string> {
    const { client } = this.options;
    const hash = staticPodUid(pod) ?? pod.metadata.uid ?? "";
    const name = `${this.path(pod)}/${encodeURIComponent(pod.metadata.name ?? "")}`;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const created = await client.request<Pod>("POST", this.path(pod), { body: this.mirrorOf(pod, await this.options.nodeUid) });
        return created.metadata.uid ?? "";
      } catch (err) {
        if (!isStatus(err, 409)) throw err;
      }
      const existing = await client.request<Pod>("GET", name);
      const deleting = existing.metadata.deletionTimestamp !== undefined && existing.metadata.deletionTimestamp !== null;
      if (staticPodUid(existing) === hash && !deleting) return existing.metadata.uid ?? "";
      if (!isMirrorPod(existing)) throw new Error(`pods "${pod.metadata.name ?? ""}" already exists in the API server and is not this node's mirror pod`);
      // kubelet syncPod: a mirror of another version of the static pod is deleted and made again.
      await this.deleteMirror(existing, existing.metadata.uid ?? "");
    }
    throw new Error(`pods "${pod.metadata.name ?? ""}": the outdated mirror pod is still being deleted`);
  }

  private mirrorOf(pod: Pod, nodeUid: string): MirrorPod {
    const { nodeName } = this.options;
    const spec = structuredClone(pod.spec);
    spec.nodeName = nodeName;
    return {
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: pod.metadata.name ?? "",
        namespace: pod.metadata.namespace ?? "default",
        ...(pod.metadata.labels !== undefined ? { labels: { ...pod.metadata.labels } } : {}),
        annotations: { ...pod.metadata.annotations, [ANNOTATION_CONFIG_MIRROR]: staticPodUid(pod) ?? pod.metadata.uid ?? "" },
        ownerReferences: [{ apiVersion: "v1", kind: "Node", name: nodeName, uid: nodeUid, controller: true }],
      },
      spec,
    };
  }

  private async deleteMirror(pod: Pod, mirrorUid: string): Promise<void> {
    const path = `${this.path(pod)}/${encodeURIComponent(pod.metadata.name ?? "")}`;
    await this.options.client.request("DELETE", path, { body: { kind: "DeleteOptions", apiVersion: "v1", gracePeriodSeconds: 0, preconditions: { uid: mirrorUid } } }).catch((err: unknown) => {
      if (!isStatus(err, 404) && !isStatus(err, 409)) this.options.logger.warn("Failed deleting a mirror pod", { pod: pod.metadata.name, err: err instanceof Error ? err.message : String(err) });
    });
  }
}
