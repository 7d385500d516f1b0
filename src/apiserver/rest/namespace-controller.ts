// The namespace controller (pkg/controller/namespace): a namespace marked Terminating by its
// deletion has every namespaced object in it deleted (pods gracefully, as any deleted pod), and
// is removed once nothing is left in it. It runs after each store change, never inside one.
import type { Clock } from "../../util/clock.js";
import { NAMESPACES, type Namespace } from "../resources/namespaces.js";
import { RESOURCES } from "../resources/registry.js";
import type { KubeObject, ObjectStore } from "../storage/object-store.js";
import { StoreError } from "../storage/store-errors.js";
import { deleteObject } from "./object-deletes.js";

/** startNamespaceController watches the store; returns the function that stops it. */
export function startNamespaceController(store: ObjectStore, clock: Clock): () => void {
  let scheduled = false;
  const sweep = (): void => {
    scheduled = false;
    const terminating = store.list<Namespace>(NAMESPACES.name, { filter: (ns) => ns.status?.phase === "Terminating" }).items;
    for (const ns of terminating) finishNamespace(store, ns.metadata.name ?? "", clock.now());
  };
  const schedule = (): void => {
    if (scheduled) return;
    scheduled = true;
    queueMicrotask(sweep);
  };
  const stops = [
    store.watch<Namespace>(NAMESPACES.name, { filter: (ns) => ns.status?.phase === "Terminating" }, schedule),
    ...RESOURCES.filter((r) => r.namespaced).map((r) => store.watch<KubeObject>(r.name, { fromResourceVersion: Number(store.resourceVersion) }, (e) => {
      if (e.type === "DELETED") schedule();
    })),
  ];
  return () => {
    for (const stop of stops) stop();
  };
}

function finishNamespace(store: ObjectStore, name: string, now: number): void {
  let left = 0;
  for (const resource of RESOURCES.filter((r) => r.namespaced)) {
    for (const object of store.list(resource.name, { namespace: name }).items) {
      left++;
      if (object.metadata.deletionTimestamp !== undefined) continue;
      try {
        if (!deleteObject(store, resource, name, object.metadata.name ?? "", { preconditions: {}, dryRun: false }, now).gone) continue;
        left--;
      } catch (err) {
        if (!(err instanceof StoreError)) throw err;
      }
    }
  }
  if (left === 0 && store.get(NAMESPACES.name, undefined, name) !== undefined) store.delete(NAMESPACES.name, undefined, name);
}
