// Namespace lifecycle as the API server enforces it: the NamespaceLifecycle admission plugin
// (plugin/pkg/admission/namespace/lifecycle) refuses new objects in a namespace that does not
// exist or is terminating, and namespace deletion (the namespace controller) first marks the
// namespace Terminating; the namespace controller then deletes what is in it, then the namespace.
import { StoreError } from "../storage/store-errors.js";
import type { KubeObject, ObjectStore } from "../storage/object-store.js";
import { NAMESPACES, type Namespace } from "./namespaces.js";

/** admitToNamespace throws the API server's error when an object may not be created in `namespace`. */
export function admitToNamespace(store: ObjectStore, namespace: string): void {
  const found = store.get<Namespace>(NAMESPACES.name, undefined, namespace);
  if (found === undefined) throw new StoreError("NotFound", `namespaces "${namespace}" not found`, { kind: "namespaces", name: namespace });
  if (found.status?.phase === "Terminating") {
    throw new StoreError("Forbidden", `unable to create new content in namespace ${namespace} because it is being terminated`, { kind: "namespaces", name: namespace });
  }
}

/**
 * startNamespaceDeletion marks a namespace Terminating (deletionTimestamp set) and returns it;
 * the namespace controller (rest/namespace-controller.ts) then empties and removes it.
 */
export function startNamespaceDeletion(store: ObjectStore, name: string, now: string): KubeObject {
  return store.modify<Namespace>(NAMESPACES.name, undefined, name, (ns) => ({ ...ns, metadata: { ...ns.metadata, deletionTimestamp: ns.metadata.deletionTimestamp ?? now }, status: { phase: "Terminating" } }));
}
