// Server-side apply (`application/apply-patch+yaml`) and the field ownership the API server keeps
// in `metadata.managedFields`, after k8s.io/apimachinery/pkg/util/managedfields (FieldManager,
// internal/structuredmerge.go, internal/conflict.go, internal/stripmeta.go,
// internal/managedfields.go sortEncodedManagedFields) and sigs.k8s.io/structured-merge-diff
// (merge/update.go Apply/Update, merge/conflict.go).

import { checkDepth, PatchError } from "./patch-error.js";
import { fieldSchema, schemaForObject, type TypeSchema } from "./patch-schema.js";
import { deepClone, deepEqual, deleteOwn, getOwn, isJsonObject, setOwn, type JsonObject, type JsonValue } from "./json-value.js";
import { FieldSet, fieldElement, keyElement, pathString, valueElement } from "./field-set.js";

/** ManagedFieldsEntry is one metav1.ManagedFieldsEntry. */
export interface ManagedFieldsEntry {
  manager: string;
  operation: "Apply" | "Update";
  apiVersion: string;
  time?: string;
  fieldsType: "FieldsV1";
  fieldsV1: JsonObject;
  subresource?: string;
}

/** ConflictCause is one metav1.StatusCause of an apply conflict. */
export interface ConflictCause {
  type: "FieldManagerConflict";
  message: string;
  field: string;
}

/** ApplyConflictError is the API server's 409 for an apply that would change fields other managers own. */
export class ApplyConflictError extends PatchError {
  /** The Status details' causes, one per conflicting field. */
  readonly causes: readonly ConflictCause[];

  constructor(message: string, causes: readonly ConflictCause[]) {
    super(409, message);
    this.name = "ApplyConflictError";
    this.causes = causes;
  }
}

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

/** The manager that owns a pre-existing object's fields at its first apply (internal/skipnonapplied.go). */
export const BEFORE_FIRST_APPLY_MANAGER = "before-first-apply";

/** Metadata fields the field manager never tracks (internal/stripmeta.go). */
const STRIPPED_METADATA = ["name", "namespace", "creationTimestamp", "selfLink", "uid", "generation", "managedFields", "resourceVersion"];

interface OwnedFields {
  entry: Omit<ManagedFieldsEntry, "fieldsV1">;
  set: FieldSet;
}

function formatTime(now: Date): string {
  return now.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** stripMeta removes apiVersion, kind and the system metadata fields before fields are tracked. */
function stripMeta(object: JsonObject): JsonObject {
  const stripped = deepClone(object) as JsonObject;
  deleteOwn(stripped, "apiVersion");
  deleteOwn(stripped, "kind");
  const metadata = getOwn(stripped, "metadata");
  if (isJsonObject(metadata)) {
    for (const field of STRIPPED_METADATA) deleteOwn(metadata, field);
    if (Object.keys(metadata).length === 0) deleteOwn(stripped, "metadata");
  }
  return stripped;
}

/** itemElement names a list item: by its key fields (associative list) or its value (set). */
function itemElement(item: JsonValue, schema: TypeSchema, path: readonly string[], index: number): string {
  if (schema.listType === "set") return valueElement(item);
  const keys: [string, JsonValue][] = [];
  for (const name of schema.listMapKeys ?? []) {
    const value = isJsonObject(item) ? getOwn(item, name) : undefined;
    const fallback = schema.listMapKeyDefaults?.[name];
    if (value !== undefined) keys.push([name, value]);
    else if (fallback !== undefined) keys.push([name, fallback]);
    else {
      throw new PatchError(500, `${pathString(path)}: element ${index}: associative list with keys has an element that omits key field ${JSON.stringify(name)} (and doesn't have default value)`);
    }
  }
  return keyElement(keys);
}

function isGranularList(schema: TypeSchema | undefined): schema is TypeSchema {
  return schema?.listType === "map" || schema?.listType === "set";
}

/** addFields inserts every field a value sets, as structured-merge-diff's ToFieldSet does. */
function addFields(value: JsonValue, schema: TypeSchema | undefined, path: string[], set: FieldSet, depth: number): void {
  checkDepth(depth);
  if (Array.isArray(value) && isGranularList(schema)) {
    value.forEach((item, index) => {
      const itemPath = [...path, itemElement(item, schema, path, index)];
      set.insert(itemPath);
      if (schema.listType === "map" && isJsonObject(item)) {
        for (const key of Object.keys(item)) addFields(item[key]!, fieldSchema(schema.items, key), [...itemPath, fieldElement(key)], set, depth + 1);
      }
    });
    return;
  }
  if (isJsonObject(value) && schema?.atomic !== true && Object.keys(value).length > 0) {
    for (const key of Object.keys(value)) addFields(value[key]!, fieldSchema(schema, key), [...path, fieldElement(key)], set, depth + 1);
    return;
  }
  if (path.length > 0) set.insert(path);
}

/** fieldsOf is the set of fields an object sets (system metadata excluded). */
function fieldsOf(object: JsonObject, schema: TypeSchema | undefined): FieldSet {
  const set = new FieldSet();
  addFields(stripMeta(object), schema, [], set, 0);
  return set;
}

/** ItemIndexes caches, per list, the position of each item's path element (one cache per call; dropped on edits). */
type ItemIndexes = WeakMap<JsonValue[], Map<string, number>>;

/** elementIndex maps each item's path element to its first position. */
function elementIndex(list: JsonValue[], schema: TypeSchema, path: readonly string[]): Map<string, number> {
  const index = new Map<string, number>();
  list.forEach((item, position) => {
    const element = itemElement(item, schema, path, position);
    if (!index.has(element)) index.set(element, position);
  });
  return index;
}

/** findItem locates a list item by its path element. */
function findItem(list: JsonValue[], element: string, schema: TypeSchema | undefined, path: readonly string[], indexes: ItemIndexes): number {
  if (element.startsWith("i:")) return Number(element.slice(2));
  if (!isGranularList(schema)) return -1;
  let index = indexes.get(list);
  if (index === undefined) {
    index = elementIndex(list, schema, path);
    indexes.set(list, index);
  }
  return index.get(element) ?? -1;
}

/** valueAt reads the value at a field path, or undefined. */
function valueAt(object: JsonValue, path: readonly string[], schema: TypeSchema | undefined, indexes: ItemIndexes): JsonValue | undefined {
  let current: JsonValue | undefined = object;
  let currentSchema = schema;
  for (let index = 0; index < path.length; index++) {
    const element = path[index]!;
    if (element.startsWith("f:")) {
      if (!isJsonObject(current)) return undefined;
      current = getOwn(current, element.slice(2));
      currentSchema = fieldSchema(currentSchema, element.slice(2));
    } else {
      if (!Array.isArray(current)) return undefined;
      current = current[findItem(current, element, currentSchema, path.slice(0, index), indexes)];
      currentSchema = currentSchema?.items;
    }
  }
  return current;
}

/** removeAt deletes the value at a field path, if present. */
function removeAt(object: JsonObject, path: readonly string[], schema: TypeSchema | undefined, indexes: ItemIndexes): void {
  const parentPath = path.slice(0, -1);
  let parentSchema = schema;
  for (const element of parentPath) parentSchema = element.startsWith("f:") ? fieldSchema(parentSchema, element.slice(2)) : parentSchema?.items;
  const parent = valueAt(object, parentPath, schema, indexes);
  const last = path[path.length - 1]!;
  if (last.startsWith("f:") && isJsonObject(parent)) deleteOwn(parent, last.slice(2));
  else if (Array.isArray(parent)) {
    const index = findItem(parent, last, parentSchema, parentPath, indexes);
    if (index >= 0) {
      parent.splice(index, 1);
      indexes.delete(parent);
    }
  }
}

/** mergeApplied merges an applied configuration into the live object (structured-merge-diff merge). */
function mergeApplied(live: JsonValue | undefined, applied: JsonValue, schema: TypeSchema | undefined, path: string[], depth: number): JsonValue {
  checkDepth(depth);
  if (isJsonObject(live) && isJsonObject(applied) && schema?.atomic !== true) {
    const result = deepClone(live, depth) as JsonObject;
    for (const key of Object.keys(applied)) {
      setOwn(result, key, mergeApplied(getOwn(live, key), applied[key]!, fieldSchema(schema, key), [...path, fieldElement(key)], depth + 1));
    }
    return result;
  }
  if (Array.isArray(live) && Array.isArray(applied) && isGranularList(schema)) {
    const result = live.map((item) => deepClone(item, depth));
    const liveElements = elementIndex(live, schema, path);
    applied.forEach((item, index) => {
      const element = itemElement(item, schema, path, index);
      const at = liveElements.get(element);
      if (at === undefined) {
        liveElements.set(element, result.length);
        result.push(deepClone(item, depth));
      } else if (schema.listType === "map") {
        result[at] = mergeApplied(result[at], item, schema.items, [...path, element], depth + 1);
      }
    });
    return result;
  }
  return deepClone(applied, depth);
}

/** addChanges inserts the fields an update adds or changes (with newly added lists and maps as members). */
function addChanges(live: JsonValue | undefined, updated: JsonValue, schema: TypeSchema | undefined, path: string[], set: FieldSet, depth: number): void {
  checkDepth(depth);
  if (live === undefined) {
    if (path.length > 0 && (Array.isArray(updated) || (isJsonObject(updated) && schema?.mapValues !== undefined))) set.insert(path);
    if (isJsonObject(updated) && schema?.atomic !== true && Object.keys(updated).length > 0) {
      for (const key of Object.keys(updated)) addChanges(undefined, updated[key]!, fieldSchema(schema, key), [...path, fieldElement(key)], set, depth + 1);
    } else {
      addFields(updated, schema, path, set, depth + 1);
    }
    return;
  }
  if (isJsonObject(live) && isJsonObject(updated) && schema?.atomic !== true && Object.keys(updated).length > 0) {
    for (const key of Object.keys(updated)) {
      addChanges(getOwn(live, key), updated[key]!, fieldSchema(schema, key), [...path, fieldElement(key)], set, depth + 1);
    }
    return;
  }
  if (Array.isArray(live) && Array.isArray(updated) && isGranularList(schema)) {
    const liveElements = elementIndex(live, schema, path);
    updated.forEach((item, index) => {
      const element = itemElement(item, schema, path, index);
      const at = liveElements.get(element);
      const itemPath = [...path, element];
      if (at === undefined) {
        set.insert(itemPath);
        if (schema.listType === "map" && isJsonObject(item)) addFields(item, schema.items, itemPath, set, depth + 1);
      } else if (schema.listType === "map") {
        addChanges(live[at], item, schema.items, itemPath, set, depth + 1);
      }
    });
    return;
  }
  if (!deepEqual(live, updated)) addFields(updated, schema, path, set, depth + 1);
}

/** changesOf is the set an Update records: what `updated` adds or changes relative to `live` (undefined: everything). */
function changesOf(live: JsonObject | undefined, updated: JsonObject, schema: TypeSchema | undefined): FieldSet {
  const changed = new FieldSet();
  addChanges(live === undefined ? {} : stripMeta(live), stripMeta(updated), schema, [], changed, 0);
  return changed;
}

/** readManagedFields decodes an object's managedFields; malformed entries are a 400. */
function readManagedFields(object: JsonObject | undefined): OwnedFields[] {
  const metadata = object === undefined ? undefined : getOwn(object, "metadata");
  const entries = isJsonObject(metadata) ? getOwn(metadata, "managedFields") : undefined;
  if (entries === undefined || entries === null) return [];
  if (!Array.isArray(entries)) throw new PatchError(400, "metadata.managedFields: must be a list");
  return entries.map((raw, index) => {
    const manager = isJsonObject(raw) ? getOwn(raw, "manager") : undefined;
    const operation = isJsonObject(raw) ? getOwn(raw, "operation") : undefined;
    if (!isJsonObject(raw) || typeof manager !== "string" || (operation !== "Apply" && operation !== "Update")) {
      throw new PatchError(400, `metadata.managedFields[${index}]: must have a manager and an operation of Apply or Update`);
    }
    const apiVersion = getOwn(raw, "apiVersion");
    const time = getOwn(raw, "time");
    const subresource = getOwn(raw, "subresource");
    const entry: Omit<ManagedFieldsEntry, "fieldsV1"> = { manager, operation, apiVersion: typeof apiVersion === "string" ? apiVersion : "", fieldsType: "FieldsV1" };
    if (typeof time === "string") entry.time = time;
    if (typeof subresource === "string" && subresource !== "") entry.subresource = subresource;
    return { entry, set: FieldSet.fromFieldsV1(getOwn(raw, "fieldsV1")) };
  });
}

/** compareEntries is sortEncodedManagedFields: operation, time, manager, apiVersion, subresource. */
function compareEntries(left: OwnedFields, right: OwnedFields): number {
  const a = left.entry;
  const b = right.entry;
  const order: [string, string][] = [
    [a.operation, b.operation],
    [a.time ?? "", b.time ?? ""],
    [a.manager, b.manager],
    [a.apiVersion, b.apiVersion],
    [a.subresource ?? "", b.subresource ?? ""],
  ];
  for (const [x, y] of order) if (x !== y) return x < y ? -1 : 1;
  return 0;
}

/** writeManagedFields stores the non-empty entries, sorted, into the object's metadata. */
function writeManagedFields(object: JsonObject, owned: OwnedFields[]): void {
  let metadata = getOwn(object, "metadata");
  if (!isJsonObject(metadata)) {
    metadata = {};
    setOwn(object, "metadata", metadata);
  }
  const entries = owned.filter(({ set }) => !set.isEmpty()).sort(compareEntries)
    .map(({ entry, set }): JsonValue => ({ ...entry, fieldsV1: set.toFieldsV1() } as unknown as JsonObject));
  if (entries.length === 0) deleteOwn(metadata, "managedFields");
  else setOwn(metadata, "managedFields", entries);
}

/** printManager renders a manager as conflict messages do (Apply: the name; Update: name using apiVersion). */
function printManager(entry: Omit<ManagedFieldsEntry, "fieldsV1">): string {
  let text = JSON.stringify(entry.manager);
  if (entry.subresource !== undefined) text += ` with subresource ${JSON.stringify(entry.subresource)}`;
  return entry.operation === "Update" ? `${text} using ${entry.apiVersion}` : text;
}

interface Conflict {
  owner: OwnedFields;
  path: string[];
}

/** conflictError builds the 409 with internal/conflict.go's message and causes. */
function conflictError(conflicts: Conflict[]): ApplyConflictError {
  const causes = conflicts.map(({ owner, path }): ConflictCause => ({
    type: "FieldManagerConflict",
    message: `conflict with ${printManager(owner.entry)}`,
    field: pathString(path),
  }));
  if (conflicts.length === 1) {
    const [only] = conflicts;
    return new ApplyConflictError(`Apply failed with 1 conflict: conflict with ${printManager(only!.owner.entry)}: ${pathString(only!.path)}`, causes);
  }
  const byManager = new Map<string, Conflict[]>();
  for (const conflict of conflicts) {
    const id = JSON.stringify([conflict.owner.entry.manager, conflict.owner.entry.operation, conflict.owner.entry.apiVersion]);
    byManager.set(id, [...(byManager.get(id) ?? []), conflict]);
  }
  const lines: string[] = [];
  for (const id of [...byManager.keys()].sort()) {
    const group = byManager.get(id)!;
    lines.push(`conflicts with ${printManager(group[0]!.owner.entry)}:`);
    for (const { path } of group) lines.push(`- ${pathString(path)}`);
  }
  return new ApplyConflictError(`Apply failed with ${conflicts.length} conflicts: ${lines.join("\n")}`, causes);
}

function schemaOf(object: JsonObject, override: TypeSchema | undefined): TypeSchema | undefined {
  return override ?? schemaForObject(object);
}

function validateApplied(applied: JsonValue): JsonObject {
  if (!isJsonObject(applied)) throw new PatchError(400, "error decoding YAML: the apply configuration must be an object");
  const json = JSON.stringify(applied).slice(0, 256);
  if (typeof getOwn(applied, "kind") !== "string" || getOwn(applied, "kind") === "") throw new PatchError(400, `Object 'Kind' is missing in '${json}'`);
  if (typeof getOwn(applied, "apiVersion") !== "string" || getOwn(applied, "apiVersion") === "") {
    throw new PatchError(400, `Object 'apiVersion' is missing in '${json}'`);
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
  const isMine = (owner: OwnedFields): boolean => owner.entry.manager === options.manager && owner.entry.operation === "Apply";
  const previous = owners.find(isMine);
  const liveStripped = live === undefined ? {} : stripMeta(live);
  const appliedStripped = stripMeta(applied);
  const indexes: ItemIndexes = new WeakMap();
  const conflicts: Conflict[] = [];
  for (const path of appliedSet.leaves()) {
    const liveValue = valueAt(liveStripped, path, schema, indexes);
    if (liveValue === undefined || deepEqual(liveValue, valueAt(appliedStripped, path, schema, indexes))) continue;
    for (const owner of owners) if (!isMine(owner) && owner.set.has(path)) conflicts.push({ owner, path });
  }
  if (conflicts.length > 0 && options.force !== true) throw conflictError(conflicts);
  for (const owner of new Set(conflicts.map((conflict) => conflict.owner))) {
    owner.set = owner.set.difference(FieldSet.fromPaths(conflicts.filter((conflict) => conflict.owner === owner).map(({ path }) => path)));
  }

  const object = mergeApplied(live === undefined ? {} : deepClone(live), applied, schema, [], 0) as JsonObject;
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
