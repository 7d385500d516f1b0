// Deleting one object as the API server's generic registry does (apiserver
// pkg/registry/generic/registry/store.go Delete with rest.BeforeDelete): preconditions first;
// a resource with graceful deletion (pods) gets deletionTimestamp = now + grace and
// deletionGracePeriodSeconds, a shorter grace on a second delete replacing a longer one, and
// is removed at once with grace 0; a finalized resource (namespaces) is only marked
// Terminating; anything else is removed at once.
import type { ResourceDefinition } from "../resources/resource-definition.js";
import { startNamespaceDeletion } from "../resources/namespace-lifecycle.js";
import { rfc3339, type KubeObject, type ObjectStore, type Preconditions } from "../storage/object-store.js";

/** DeleteRequest is a parsed DeleteOptions. */
export interface DeleteRequest {
  gracePeriodSeconds?: number;
  preconditions: Preconditions;
  dryRun: boolean;
}

/** DeleteResult is the object as the delete left it, and whether it is gone from the store. */
export interface DeleteResult {
  object: KubeObject;
  gone: boolean;
}

/** deleteObject deletes (or starts deleting) one object; now is ms since the epoch. */
export function deleteObject(store: ObjectStore, resource: ResourceDefinition, namespace: string | undefined, name: string, request: DeleteRequest, now: number): DeleteResult {
  const current = store.mustGet(resource.name, namespace, name);
  if (request.dryRun) {
    store.modify(resource.name, namespace, name, () => undefined, request.preconditions);
    return { object: current, gone: false };
  }
  if (resource.finalizedOnDelete === true) {
    store.modify(resource.name, namespace, name, () => undefined, request.preconditions);
    return { object: startNamespaceDeletion(store, name, rfc3339(now)), gone: false };
  }
  const grace = resource.gracePeriodSeconds?.(current, request.gracePeriodSeconds) ?? 0;
  if (grace <= 0) return { object: store.delete(resource.name, namespace, name, request.preconditions), gone: true };
  const object = store.modify(resource.name, namespace, name, (obj) => {
    const pending = obj.metadata.deletionGracePeriodSeconds;
    if (obj.metadata.deletionTimestamp !== undefined && pending !== undefined && pending <= grace) return undefined;
    return { ...obj, metadata: { ...obj.metadata, deletionTimestamp: rfc3339(now + grace * 1000), deletionGracePeriodSeconds: grace } };
  }, request.preconditions);
  return { object, gone: false };
}
