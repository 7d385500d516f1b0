// The agent's "api" pod source, as the kubelet's apiserver config source
// (pkg/kubelet/config/apiserver.go): a watch on the store's pods bound to this node. Changes are
// handed on in order after the store's own notification has finished (a handler may write to the
// store, e.g. a status, and no other watcher may see that write before the change that caused it).
// Mirror pods are the agent's own reflection of manifest pods and are not a source of pods.
import { isMirrorPod } from "../api/mirror-pod.js";
import type { Pod } from "../api/types.js";
import type { ObjectStore, StoreEvent } from "../apiserver/storage/object-store.js";

/** ApiPodHandlers are what the agent does with the source's changes. */
export interface ApiPodHandlers {
  /** A new pod to run. */
  add(pod: Pod): void;
  /** A pod's spec or metadata changed (e.g. a container image), or its deletion started. */
  update(pod: Pod): void;
  /** The pod left the store (deleted with grace 0, or after the agent finished it). */
  remove(pod: Pod): void;
}

/** watchApiPods starts the source; returns the function that stops it. */
export function watchApiPods(store: ObjectStore, nodeName: string, handlers: ApiPodHandlers): () => void {
  const queue: StoreEvent<Pod>[] = [];
  let scheduled = false;
  let stopped = false;
  const drain = (): void => {
    scheduled = false;
    for (let event = queue.shift(); event !== undefined && !stopped; event = queue.shift()) {
      if (event.type === "ADDED") handlers.add(event.object);
      else if (event.type === "MODIFIED") handlers.update(event.object);
      else handlers.remove(event.object);
    }
  };
  const stop = store.watch<Pod>("pods", { filter: (pod) => pod.spec.nodeName === nodeName && !isMirrorPod(pod) }, (event) => {
    queue.push(event);
    if (!scheduled) {
      scheduled = true;
      queueMicrotask(drain);
    }
  });
  return () => {
    stopped = true;
    stop();
  };
}
