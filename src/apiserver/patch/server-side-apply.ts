// Server-side apply (`application/apply-patch+yaml`) and the field ownership the API server keeps
// in `metadata.managedFields`, after k8s.io/apimachinery/pkg/util/managedfields (FieldManager,
// internal/structuredmerge.go, internal/conflict.go, internal/stripmeta.go,
// internal/managedfields.go sortEncodedManagedFields) and sigs.k8s.io/structured-merge-diff
// (merge/update.go Apply/Update, merge/conflict.go). Field walking is in field-walk.ts, the
// managedFields encoding in managed-fields.ts, the 409 in apply-conflict.ts.

import { PatchError } from "./patch-error.js";
import { schemaForObject, type TypeSchema } from "./patch-schema.js";
import { deepClone, getOwn, isJsonObject, type JsonObject, type JsonValue } from "./json-value.js";
import { FieldSet } from "./field-set.js";
import { changesOf, fieldsOf, forEachChangedLeaf, mergeApplied, removeAt, stripMeta, type ItemIndexes } from "./field-walk.js";
import { formatTime, readManagedFields, writeManagedFields, type OwnedFields } from "./managed-fields.js";
import { conflictError, type Conflict } from "./apply-conflict.js";

export { ApplyConflictError, type ConflictCause } from "./apply-conflict.js";
export type { ManagedFieldsEntry } from "./managed-fields.js";

/** ApplyOptions are the PATCH query parameters of an apply plus the clock and an optional schema. */
export interface ApplyOptions {
  /** fieldManager (required for apply). */
  manager: string;
  /** force=true takes ownership of conflicting fields instead of failing. */
  force?: boolean;
  /** The time recorded in the manager's entry. */
  now: Date;
  /** Patch metadata; defaults to the core/v1 schema of the object's kind. */
  schema?: TypeSchema;
}

/** ApplyResult is the applied object and whether the apply created it (201) or updated it (200). */
export interface ApplyResult {
  object: JsonObject;
  created: boolean;
}

/**
 * MAX_TRACKED_FIELDS bounds the field paths one write works through: the fields it sets and every
 * manager's recorded fields together. Each step of an apply is linear in them (about a
 * microsecond each), so the bound keeps any write well under a second and a few tens of MB; the
 * API server has none, but etcd's object size limit bounds it there. 250,000 is four times a
 * 1 MiB ConfigMap of 60,000 keys.
 */
export const MAX_TRACKED_FIELDS = 250_000;

/** checkFieldBudget refuses a write whose field sets together exceed MAX_TRACKED_FIELDS. */
function checkFieldBudget(sets: readonly FieldSet[]): void {
  let total = 0;
  for (const set of sets) total += set.size();
  if (total > MAX_TRACKED_FIELDS) {
    throw new PatchError(400, `the write would track ${total} field paths (its own and every manager's in metadata.managedFields), more than ${MAX_TRACKED_FIELDS}: split the object, or set fewer fields`);
  }
}

/** The manager that owns a pre-existing object's fields at its first apply (internal/skipnonapplied.go). */
export const BEFORE_FIRST_APPLY_MANAGER = "before-first-apply";

function schemaOf(object: JsonObject, override: TypeSchema | undefined): TypeSchema | undefined {
  return override ?? schemaForObject(object);
}

function validateApplied(applied: JsonValue): JsonObject {
  if (!isJsonObject(applied)) throw new PatchError(400, "error decoding YAML: the apply configuration must be an object");
  // The object's start, as the message quotes it; rendered only for the message.
  const json = (): string => JSON.stringify(applied).slice(0, 256);
  if (typeof getOwn(applied, "kind") !== "string" || getOwn(applied, "kind") === "") throw new PatchError(400, `Object 'Kind' is missing in '${json()}'`);
  if (typeof getOwn(applied, "apiVersion") !== "string" || getOwn(applied, "apiVersion") === "") {
    throw new PatchError(400, `Object 'apiVersion' is missing in '${json()}'`);
  }
  const metadata = getOwn(applied, "metadata");
  if (isJsonObject(metadata) && getOwn(metadata, "managedFields") !== undefined && getOwn(metadata, "managedFields") !== null) {
    throw new PatchError(400, "metadata.managedFields must be nil");
  }
  return applied;
}

/**
 * serverSideApply applies `applied` (the decoded apply-patch body) for `options.manager` onto the
 * live object (undefined when it does not exist yet) and returns the new object, with its
 * managedFields updated, and whether it was created. Fields other managers own with a different
 * value are conflicts: ApplyConflictError (409, with FieldManagerConflict causes) unless
 * `force` takes them over. Fields this manager applied before and no longer applies are removed
 * when no other manager owns them.
 */
export function serverSideApply(live: JsonObject | undefined, appliedInput: JsonValue, options: ApplyOptions): ApplyResult {
  const applied = validateApplied(appliedInput);
  if (options.manager === "") {
    throw new PatchError(422, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
  }
  const schema = schemaOf(applied, options.schema);
  const apiVersion = getOwn(applied, "apiVersion") as string;
  const time = formatTime(options.now);
  const owners = readManagedFields(live);
  if (live !== undefined && owners.length === 0) {
    // skipNonAppliedManager: an object nobody manages yet is first recorded as an Update from an empty object.
    const liveVersion = getOwn(live, "apiVersion");
    owners.push({
      entry: { manager: BEFORE_FIRST_APPLY_MANAGER, operation: "Update", apiVersion: typeof liveVersion === "string" ? liveVersion : apiVersion, time, fieldsType: "FieldsV1" },
      set: changesOf(undefined, live, schema),
    });
  }
  const appliedSet = fieldsOf(applied, schema);
  checkFieldBudget([appliedSet, ...owners.map((owner) => owner.set)]);
  const isMine = (owner: OwnedFields): boolean => owner.entry.manager === options.manager && owner.entry.operation === "Apply";
  const previous = owners.find(isMine);
  const liveStripped = live === undefined ? {} : stripMeta(live);
  const appliedStripped = stripMeta(applied);
  const indexes: ItemIndexes = new WeakMap();
  const conflicts: Conflict[] = [];
  forEachChangedLeaf(appliedSet, liveStripped, appliedStripped, schema, indexes, (path) => {
    for (const owner of owners) if (!isMine(owner) && owner.set.has(path)) conflicts.push({ owner, path: [...path] });
  });
  if (conflicts.length > 0 && options.force !== true) throw conflictError(conflicts);
  for (const owner of new Set(conflicts.map((conflict) => conflict.owner))) {
    owner.set = owner.set.difference(FieldSet.fromPaths(conflicts.filter((conflict) => conflict.owner === owner).map(({ path }) => path)));
  }

  const object = mergeApplied(live ?? {}, applied, schema, [], 0) as JsonObject;
  const others = owners.filter((owner) => !isMine(owner));
  if (previous !== undefined) {
    const dropped = previous.set.difference(appliedSet).paths().sort((a, b) => b.length - a.length);
    for (const path of dropped) {
      if (!others.some((owner) => owner.set.hasAtOrBelow(path))) removeAt(object, path, schema, indexes);
    }
  }
  const mine: OwnedFields = { entry: { manager: options.manager, operation: "Apply", apiVersion, time, fieldsType: "FieldsV1" }, set: appliedSet };
  writeManagedFields(object, [...others, mine]);
  return { object, created: live === undefined };
}

/**
 * recordUpdate keeps the Update entry the API server writes for a non-apply write (create, update,
 * or a JSON/merge/strategic patch with `fieldManager`): `manager` gains the fields the write added
 * or changed (a write that changed nothing leaves its entry and time alone), every other manager
 * loses them, and fields the write removed leave every entry.
 * `updated`'s own managedFields are ignored; the live object's are carried forward. Returns a copy
 * of `updated` with metadata.managedFields set.
 */
export function recordUpdate(live: JsonObject | undefined, updated: JsonObject, manager: string, now: Date, schemaOverride?: TypeSchema): JsonObject {
  const schema = schemaOf(updated, schemaOverride);
  const apiVersionValue = getOwn(updated, "apiVersion");
  const apiVersion = typeof apiVersionValue === "string" ? apiVersionValue : "";
  const owners = readManagedFields(live);
  const changed = changesOf(live, updated, schema);
  checkFieldBudget([changed, ...owners.map((owner) => owner.set)]);
  const removed = live === undefined ? new FieldSet() : fieldsOf(live, schema).difference(fieldsOf(updated, schema));
  for (const owner of owners) owner.set = owner.set.difference(changed).difference(removed);
  const existing = owners.find(({ entry }) => entry.manager === manager && entry.operation === "Update" && entry.apiVersion === apiVersion && entry.subresource === undefined);
  if (changed.isEmpty()) {
    // A write that changed nothing leaves the manager's entry (and its time) as it was (managedfieldsupdater.go).
  } else if (existing) {
    existing.set = existing.set.union(changed);
    existing.entry.time = formatTime(now);
  } else {
    owners.push({ entry: { manager, operation: "Update", apiVersion, time: formatTime(now), fieldsType: "FieldsV1" }, set: changed });
  }
  const result = deepClone(updated) as JsonObject;
  writeManagedFields(result, owners);
  return result;
}
