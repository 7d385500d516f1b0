// Creating and updating one object of any resource as the API server's generic registry does
// (staging/src/k8s.io/apiserver/pkg/registry/rest/create.go BeforeCreate, update.go
// BeforeUpdate): the path's namespace and name win or must agree, server-set metadata is the
// server's, the strategy prepares and validates, NamespaceLifecycle admits, and dryRun=All
// stores nothing.
import type { RequestContext } from "../endpoints/request-context.js";
import { badRequestStatus, invalidStatus, StatusError } from "../endpoints/status-object.js";
import type { ObjectMeta } from "../../api/types.js";
import { admitToNamespace } from "../resources/namespace-lifecycle.js";
import type { ResourceDefinition } from "../resources/resource-definition.js";
import { rfc3339, type KubeObject } from "../storage/object-store.js";
import { alreadyExists } from "../storage/store-errors.js";

/** NAMESPACE_MISMATCH is the API server's text when a body's namespace differs from the URL's. */
export const NAMESPACE_MISMATCH = "the namespace of the provided object does not match the namespace sent on the request";

/** SERVER_SET_METADATA are the metadata fields only the server sets (the client's are dropped on create). */
const SERVER_SET_METADATA: ReadonlySet<string> = new Set(["uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "resourceVersion", "generation"]);

/** withoutServerSet is metadata without the server-set fields; `keep` names those to keep anyway. */
function withoutServerSet(metadata: ObjectMeta, keep: ReadonlySet<string> = new Set()): ObjectMeta {
  return Object.fromEntries(Object.entries(metadata).filter(([field]) => keep.has(field) || !SERVER_SET_METADATA.has(field))) as ObjectMeta;
}

/** WriteOptions are the query options of a write. */
export interface WriteOptions {
  dryRun: boolean;
}

/** writeOptionsOf reads dryRun (only "All" is a valid value, as in the API server). */
export function writeOptionsOf(query: URLSearchParams): WriteOptions {
  const values = query.getAll("dryRun");
  for (const value of values) {
    if (value !== "All") throw new StatusError(badRequestStatus(`Invalid dry run value: "${value}". Valid values: "All"`));
  }
  return { dryRun: values.length > 0 };
}

/** serverSetOf is the server-set fields of stored metadata that an update keeps (all but resourceVersion). */
function serverSetOf(metadata: ObjectMeta): ObjectMeta {
  return Object.fromEntries(Object.entries(metadata).filter(([field]) => field !== "resourceVersion" && SERVER_SET_METADATA.has(field))) as ObjectMeta;
}

/** scopeToPath fills or checks the object's namespace against the path's (a cluster-scoped object has none). */
function scopeToPath(resource: ResourceDefinition, object: KubeObject, namespace: string | undefined): KubeObject {
  const metadata: ObjectMeta = { ...object.metadata };
  if (resource.namespaced) {
    if (metadata.namespace !== undefined && metadata.namespace !== "" && metadata.namespace !== namespace) throw new StatusError(badRequestStatus(NAMESPACE_MISMATCH));
    if (namespace !== undefined) metadata.namespace = namespace;
  } else delete metadata.namespace;
  return { ...object, metadata };
}

/** createObject stores a new object (or, with dryRun, returns what would be stored). */
export function createObject(ctx: RequestContext, resource: ResourceDefinition, input: KubeObject, namespace: string | undefined, options: WriteOptions): KubeObject {
  const scoped = scopeToPath(resource, input, namespace);
  scoped.metadata = withoutServerSet(scoped.metadata);
  const name = scoped.metadata.name ?? "";
  ctx.subject.name = name;
  // NamespaceLifecycle is a mutating admission plugin: it runs before the strategy validates.
  if (resource.namespaced) admitToNamespace(ctx.api.store, scoped.metadata.namespace ?? "");
  const prepared = resource.strategy.prepareForCreate(scoped, { nodeName: ctx.api.nodeName });
  const { object, errors } = resource.strategy.validate(prepared);
  if (errors.length > 0) throw new StatusError(invalidStatus(resource.kind, name, errors));
  if (options.dryRun) {
    if (ctx.api.store.get(resource.name, object.metadata.namespace, name) !== undefined) throw alreadyExists(resource.name, name);
    return { ...object, metadata: { ...object.metadata, creationTimestamp: rfc3339(ctx.clock.now()) } };
  }
  return ctx.api.store.create(resource.name, object);
}

/** UpdateTarget says which part of the object an update writes. */
export type UpdateTarget = "main" | "status";

/**
 * updateObject replaces `current` with `input`: the path's name must be the body's, server-set
 * metadata stays, a resourceVersion in the body must be current (409 otherwise).
 */
export function updateObject(ctx: RequestContext, resource: ResourceDefinition, input: KubeObject, current: KubeObject, target: UpdateTarget, options: WriteOptions): KubeObject {
  const scoped = scopeToPath(resource, input, current.metadata.namespace);
  const name = current.metadata.name ?? "";
  const sentName = scoped.metadata.name ?? "";
  if (sentName !== "" && sentName !== name) throw new StatusError(badRequestStatus(`the name of the object (${sentName}) does not match the name on the URL (${name})`));
  // What only the server sets stays as stored; the body's resourceVersion is the update's precondition.
  const metadata: ObjectMeta = { ...withoutServerSet(scoped.metadata, new Set(["resourceVersion"])), ...serverSetOf(current.metadata), name };
  const next = { ...scoped, metadata };
  const prepared = target === "status" && resource.status !== undefined ? resource.status.prepareForUpdate(next, current) : resource.strategy.prepareForUpdate(next, current);
  const { object, errors } = resource.strategy.validate(prepared);
  if (target === "main") errors.push(...resource.strategy.validateUpdate(object, current));
  if (errors.length > 0) throw new StatusError(invalidStatus(resource.kind, name, errors));
  if (options.dryRun) return object;
  return ctx.api.store.update(resource.name, { ...object, metadata: { ...object.metadata, resourceVersion: input.metadata.resourceVersion ?? "" } });
}
