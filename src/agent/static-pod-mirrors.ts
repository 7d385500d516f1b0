// The mirror pods of the agent's static pods (its manifest pods) in its object store, kept as the
// kubelet keeps them in the API server (pkg/kubelet/pod/mirror_client.go CreateMirrorPod,
// DeleteMirrorPod; kubelet.go SyncPod → tryReconcileMirrorPods): a mirror is a copy of the static
// pod with a UID of its own, annotated with the static pod's UID. A client deleting a mirror
// (gracefully: it gets a deletionTimestamp; or at once) deletes the mirror only: the agent
// removes it (grace 0, under its UID) and makes it again at once with a new UID, while the static
// pod and its containers run on untouched. Only removing the pod from its manifest stops it.
import { ANNOTATION_CONFIG_MIRROR, ANNOTATION_CONFIG_SOURCE, ANNOTATION_MANIFEST, ANNOTATION_MANIFEST_WATCHED, isMirrorPod, staticPodUid } from "../api/mirror-pod.js";
import type { Pod } from "../api/types.js";
import { PODS } from "../apiserver/resources/pods.js";
import type { ObjectStore } from "../apiserver/storage/object-store.js";
import { StoreError } from "../apiserver/storage/store-errors.js";
import type { Logger } from "../util/logger.js";

/** StaticPodOrigin is where a static pod's manifest is: its file, and whether a watched directory holds it. */
export interface StaticPodOrigin {
  /** The manifest's absolute path, or "-" for standard input. */
  file: string;
  watched: boolean;
}

/** StaticPodLookup is what the mirrors need to know of the agent's static pods. */
export interface StaticPodLookup {
  /** The static pod of a UID while the agent runs it (not being deleted, agent not closing). */
  running(staticUid: string): Pod | undefined;
  /** A new mirror of a static pod was made: its status is to be written to it. */
  remade(staticUid: string): void;
}

/** StaticPodMirrors creates, tracks and remakes the store's mirror pods of one node. */
export class StaticPodMirrors {
  /** Static pod UID → the UID of its current mirror. */
  private readonly mirrors = new Map<string, string>();
  private readonly stopWatch: () => void;
  private readonly queue: Pod[] = [];
  private scheduled = false;

  constructor(
    private readonly store: ObjectStore,
    private readonly nodeName: string,
    private readonly lookup: StaticPodLookup,
    private readonly logger: Logger,
  ) {
    this.stopWatch = store.watch<Pod>(PODS.name, { filter: (p) => p.spec.nodeName === nodeName && isMirrorPod(p) }, (event) => {
      if (event.type === "ADDED" || (event.type === "MODIFIED" && event.object.metadata.deletionTimestamp === undefined)) return;
      // Handled after the store's notification, as a watcher of the API server would see it.
      this.queue.push(event.object);
      if (!this.scheduled) {
        this.scheduled = true;
        queueMicrotask(() => this.drain());
      }
    });
  }

  /** create makes the mirror of a static pod (the name must be free) and returns it. */
  create(pod: Pod, origin: StaticPodOrigin): Pod {
    const annotations: Record<string, string> = {
      ...pod.metadata.annotations,
      [ANNOTATION_CONFIG_MIRROR]: pod.metadata.uid ?? "",
      [ANNOTATION_CONFIG_SOURCE]: "file",
      [ANNOTATION_MANIFEST]: origin.file,
      ...(origin.watched ? { [ANNOTATION_MANIFEST_WATCHED]: "true" } : {}),
    };
    // The API server gives the mirror a UID and a creation time of its own (mirror_client.go posts the pod).
    const { uid: _uid, resourceVersion: _rv, creationTimestamp: _created, ...metadata } = pod.metadata as Pod["metadata"] & { resourceVersion?: string };
    const mirror = this.store.create<Pod>(PODS.name, { apiVersion: "v1", kind: "Pod", ...pod, metadata: { ...metadata, annotations }, spec: { ...pod.spec, nodeName: pod.spec.nodeName ?? this.nodeName } });
    this.mirrors.set(pod.metadata.uid ?? "", mirror.metadata.uid ?? "");
    return mirror;
  }

  /** mirrorUid is the UID of a static pod's current mirror. */
  mirrorUid(staticUid: string): string | undefined {
    return this.mirrors.get(staticUid);
  }

  /** forget drops a static pod that is gone (its mirror goes with it, by the agent's own delete). */
  forget(staticUid: string): void {
    this.mirrors.delete(staticUid);
  }

  /** close stops watching the mirrors. */
  close(): void {
    this.stopWatch();
  }

  private drain(): void {
    this.scheduled = false;
    for (let mirror = this.queue.shift(); mirror !== undefined; mirror = this.queue.shift()) this.reconcile(mirror);
  }

  /**
   * reconcile handles a mirror being deleted or gone: if it is still the current mirror of a
   * static pod the agent runs, it is removed (grace 0, under its UID) and made again
   * (kubelet tryReconcileMirrorPods: a mirror with a deletionTimestamp is deleted and recreated).
   */
  private reconcile(mirror: Pod): void {
    const staticUid = staticPodUid(mirror) ?? "";
    if (this.mirrors.get(staticUid) !== mirror.metadata.uid) return;
    const pod = this.lookup.running(staticUid);
    if (pod === undefined) return;
    const namespace = mirror.metadata.namespace ?? "default";
    const name = mirror.metadata.name ?? "";
    try {
      this.store.delete(PODS.name, namespace, name, { uid: mirror.metadata.uid ?? "" });
    } catch (err) {
      if (!(err instanceof StoreError)) throw err;
    }
    this.mirrors.delete(staticUid);
    if (this.store.get(PODS.name, namespace, name) !== undefined) {
      this.logger.warn("Cannot make the mirror pod again: another pod has its name", { pod: `${namespace}/${name}`, podUID: staticUid });
      return;
    }
    const annotations = mirror.metadata.annotations ?? {};
    const made = this.create(pod, { file: annotations[ANNOTATION_MANIFEST] ?? "", watched: annotations[ANNOTATION_MANIFEST_WATCHED] === "true" });
    this.logger.info("Deleted mirror pod made again for its static pod", { pod: `${namespace}/${name}`, podUID: staticUid, mirrorUID: made.metadata.uid });
    this.lookup.remade(staticUid);
  }
}
