// In-process read access to the agent's object store, for callers in the same process (the
// run command's live view, tests): the stored pods and events as the API serves them, and
// watches of their later changes.
import type { Pod } from "../api/types.js";
import { PODS } from "../apiserver/resources/pods.js";
import type { ObjectStore } from "../apiserver/storage/object-store.js";
import { ApiError, type KubeEvent, type WatchEvent } from "../apiserver/endpoints/host-interface.js";

/** StoreView reads pods and events of an object store. */
export abstract class StoreView {
  /** The store read. */
  abstract readonly store: ObjectStore;

  /** listPods returns the stored pods with status, optionally of one namespace. */
  listPods(namespace?: string): Pod[] {
    return this.store.list<Pod>(PODS.name, namespace === undefined ? {} : { namespace }).items.map((p) => structuredClone(p));
  }

  /** getPod returns one stored pod with status or throws ApiError NotFound. */
  getPod(namespace: string, name: string): Pod {
    const pod = this.store.get<Pod>(PODS.name, namespace, name);
    if (pod === undefined) throw new ApiError("NotFound", `pods "${name}" not found`);
    return structuredClone(pod);
  }

  /** listEvents returns events sorted by lastTimestamp, optionally of one namespace and/or one involved object name. */
  listEvents(namespace?: string, involvedName?: string): KubeEvent[] {
    return this.store
      .list<KubeEvent>("events", namespace === undefined ? {} : { namespace })
      .items.filter((e) => involvedName === undefined || e.involvedObject.name === involvedName)
      .sort((a, b) => (a.lastTimestamp < b.lastTimestamp ? -1 : a.lastTimestamp > b.lastTimestamp ? 1 : 0));
  }

  /** watchPods calls back on every later change of a stored pod; returns an unsubscribe function. */
  watchPods(listener: (event: WatchEvent<Pod>) => void): () => void {
    return this.watchLater<Pod>(PODS.name, listener);
  }

  /** watchEvents calls back on every later new or updated event; returns an unsubscribe function. */
  watchEvents(listener: (event: WatchEvent<KubeEvent>) => void): () => void {
    return this.watchLater<KubeEvent>("events", listener);
  }

  private watchLater<T extends Pod | KubeEvent>(resource: string, listener: (event: WatchEvent<T>) => void): () => void {
    return this.store.watch<T>(resource, { fromResourceVersion: Number(this.store.resourceVersion) }, (e) => listener({ type: e.type, object: e.object }));
  }
}
