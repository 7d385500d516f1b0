// The agent's "api" pod source, as the kubelet's apiserver config source
// (pkg/kubelet/config/apiserver.go): a watch on the store's pods bound to this node, fed into the
// agent's pod config (pod-config.ts) as the source `api`. Changes are
// handed on in order after the store's own notification has finished (a handler may write to the
// store, e.g. a status, and no other watcher may see that write before the change that caused it).
// Mirror pods are the agent's own reflection of manifest pods and are not a source of pods.
import { isMirrorPod } from "../api/mirror-pod.js";
import type { Pod } from "../api/types.js";
import type { ObjectStore, StoreEvent } from "../apiserver/storage/object-store.js";
import type { PodConfig } from "./pod-config.js";

/** API_SOURCE names the store's pods in the pod config (kubetypes.ApiserverSource). */
export const API_SOURCE = "api";

/**
 * watchApiPods starts the source: each pod the store adds or changes is put into the config, each
 * it removes taken out (the kubelet's source sends the whole set; one pod at a time gives the
 * config the same updates). Returns the function that stops it.
 */
export function watchApiPods(store: ObjectStore, nodeName: string, config: Pick<PodConfig, "put" | "remove">): () => void {
  const queue: StoreEvent<Pod>[] = [];
  let scheduled = false;
  let stopped = false;
  const drain = (): void => {
    scheduled = false;
    for (let event = queue.shift(); event !== undefined && !stopped; event = queue.shift()) {
      if (event.type === "DELETED") config.remove(API_SOURCE, event.object);
      else config.put(API_SOURCE, event.object);
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
