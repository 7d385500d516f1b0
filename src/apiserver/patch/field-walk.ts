// Walking objects by field path for server-side apply (after sigs.k8s.io/structured-merge-diff
// typed/tofieldset.go, merge and compare): the set of fields a value sets, the fields an update
// changes, reading and removing the value at a path, and merging an applied configuration.

import { checkDepth, PatchError } from "./patch-error.js";
import { fieldSchema, type TypeSchema } from "./patch-schema.js";
import { deepClone, deepEqual, deleteOwn, getOwn, hasOwn, isJsonObject, setOwn, type JsonObject, type JsonValue } from "./json-value.js";
import { compareElements, FieldSet, fieldElement, keyElement, pathString, valueElement } from "./field-set.js";

/** Metadata fields the field manager never tracks (internal/stripmeta.go). */
const STRIPPED_METADATA = ["name", "namespace", "creationTimestamp", "selfLink", "uid", "generation", "managedFields", "resourceVersion"];

/**
 * stripMeta is the object without apiVersion, kind and the system metadata fields, as the field
 * manager tracks it: a view for reading that shares everything else with the object (only the top
 * level and metadata are copied), so a large object is not copied whole for every walk.
 */
export function stripMeta(object: JsonObject): JsonObject {
  const stripped: JsonObject = {};
  for (const key of Object.keys(object)) if (key !== "apiVersion" && key !== "kind") setOwn(stripped, key, object[key]!);
  const metadata = getOwn(stripped, "metadata");
  if (isJsonObject(metadata)) {
    const kept: JsonObject = {};
    for (const key of Object.keys(metadata)) if (!STRIPPED_METADATA.includes(key)) setOwn(kept, key, metadata[key]!);
    if (Object.keys(kept).length === 0) deleteOwn(stripped, "metadata");
    else setOwn(stripped, "metadata", kept);
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

/**
 * within runs `step` with `element` pushed on the path: walks share one path array (read at once
 * by the messages and set.insert) instead of copying it for every field.
 */
function within<T>(path: string[], element: string, step: () => T): T {
  path.push(element);
  try {
    return step();
  } finally {
    path.pop();
  }
}

/** addFields inserts every field a value sets, as structured-merge-diff's ToFieldSet does. */
function addFields(value: JsonValue, schema: TypeSchema | undefined, path: string[], set: FieldSet, depth: number): void {
  checkDepth(depth);
  if (Array.isArray(value) && isGranularList(schema)) {
    value.forEach((item, index) => {
      within(path, itemElement(item, schema, path, index), () => {
        set.insert(path);
        if (schema.listType === "map" && isJsonObject(item)) {
          for (const key of Object.keys(item)) within(path, fieldElement(key), () => addFields(item[key]!, fieldSchema(schema.items, key), path, set, depth + 1));
        }
      });
    });
    return;
  }
  if (isJsonObject(value) && schema?.atomic !== true && Object.keys(value).length > 0) {
    for (const key of Object.keys(value)) within(path, fieldElement(key), () => addFields(value[key]!, fieldSchema(schema, key), path, set, depth + 1));
    return;
  }
  if (path.length > 0) set.insert(path);
}

/** fieldsOf is the set of fields an object sets (system metadata excluded). */
export function fieldsOf(object: JsonObject, schema: TypeSchema | undefined): FieldSet {
  const set = new FieldSet();
  addFields(stripMeta(object), schema, [], set, 0);
  return set;
}

/** ItemIndexes caches, per list, the position of each item's path element (one cache per call; dropped on edits). */
export type ItemIndexes = WeakMap<JsonValue[], Map<string, number>>;

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
    current = stepInto(current, element, currentSchema, path.slice(0, index), indexes);
    currentSchema = schemaOf(currentSchema, element);
  }
  return current;
}

/** stepInto reads the member of a value that one path element names (path: the value's own path), or undefined. */
function stepInto(value: JsonValue | undefined, element: string, schema: TypeSchema | undefined, path: readonly string[], indexes: ItemIndexes): JsonValue | undefined {
  if (element.startsWith("f:")) return isJsonObject(value) ? getOwn(value, element.slice(2)) : undefined;
  return Array.isArray(value) ? value[findItem(value, element, schema, path, indexes)] : undefined;
}

/** schemaOf is the schema of the member one path element names. */
function schemaOf(schema: TypeSchema | undefined, element: string): TypeSchema | undefined {
  return element.startsWith("f:") ? fieldSchema(schema, element.slice(2)) : schema?.items;
}

/**
 * forEachChangedLeaf walks an applied field set alongside the live object and the applied
 * configuration, in structured-merge-diff's order, and calls visit with the path of each leaf
 * (a member with nothing below it) whose live value exists and differs from the applied one:
 * the candidates for apply conflicts. One walk, no path per leaf: the path array is shared, so
 * visit copies it to keep it.
 */
export function forEachChangedLeaf(set: FieldSet, live: JsonValue, applied: JsonValue, schema: TypeSchema | undefined, indexes: ItemIndexes, visit: (path: readonly string[]) => void): void {
  walkChangedLeaves(set, live, applied, schema, [], indexes, visit);
}

function walkChangedLeaves(node: FieldSet, live: JsonValue | undefined, applied: JsonValue | undefined, schema: TypeSchema | undefined, path: string[], indexes: ItemIndexes, visit: (path: readonly string[]) => void): void {
  checkDepth(path.length);
  const elements = [...node.children.keys()];
  if (elements.length > 1) elements.sort(compareElements);
  for (const element of elements) {
    const child = node.children.get(element)!;
    const liveChild = stepInto(live, element, schema, path, indexes);
    // Nothing live below: nothing to conflict with.
    if (liveChild === undefined) continue;
    const appliedChild = stepInto(applied, element, schema, path, indexes);
    within(path, element, () => {
      if (child.children.size > 0) walkChangedLeaves(child, liveChild, appliedChild, schemaOf(schema, element), path, indexes, visit);
      else if (child.member && !deepEqual(liveChild, appliedChild)) visit(path);
    });
  }
}

/** removeAt deletes the value at a field path, if present. */
export function removeAt(object: JsonObject, path: readonly string[], schema: TypeSchema | undefined, indexes: ItemIndexes): void {
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

/** mergeApplied merges an applied configuration into the live object (structured-merge-diff merge); the result shares nothing with either. */
export function mergeApplied(live: JsonValue | undefined, applied: JsonValue, schema: TypeSchema | undefined, path: string[], depth: number): JsonValue {
  checkDepth(depth);
  if (isJsonObject(live) && isJsonObject(applied) && schema?.atomic !== true) {
    // Each value is copied once: the live object's keys in their order (merged where applied),
    // then the applied keys the live object lacks.
    const result: JsonObject = {};
    const merge = (key: string): JsonValue => within(path, fieldElement(key), () => mergeApplied(getOwn(live, key), applied[key]!, fieldSchema(schema, key), path, depth + 1));
    for (const key of Object.keys(live)) setOwn(result, key, hasOwn(applied, key) ? merge(key) : deepClone(live[key]!, depth + 1));
    for (const key of Object.keys(applied)) if (!hasOwn(live, key)) setOwn(result, key, merge(key));
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
        result[at] = within(path, element, () => mergeApplied(result[at], item, schema.items, path, depth + 1));
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
      for (const key of Object.keys(updated)) within(path, fieldElement(key), () => addChanges(undefined, updated[key]!, fieldSchema(schema, key), path, set, depth + 1));
    } else {
      addFields(updated, schema, path, set, depth + 1);
    }
    return;
  }
  if (isJsonObject(live) && isJsonObject(updated) && schema?.atomic !== true && Object.keys(updated).length > 0) {
    for (const key of Object.keys(updated)) {
      within(path, fieldElement(key), () => addChanges(getOwn(live, key), updated[key]!, fieldSchema(schema, key), path, set, depth + 1));
    }
    return;
  }
  if (Array.isArray(live) && Array.isArray(updated) && isGranularList(schema)) {
    const liveElements = elementIndex(live, schema, path);
    updated.forEach((item, index) => {
      const element = itemElement(item, schema, path, index);
      const at = liveElements.get(element);
      within(path, element, () => {
        if (at === undefined) {
          set.insert(path);
          if (schema.listType === "map" && isJsonObject(item)) addFields(item, schema.items, path, set, depth + 1);
        } else if (schema.listType === "map") {
          addChanges(live[at], item, schema.items, path, set, depth + 1);
        }
      });
    });
    return;
  }
  if (!deepEqual(live, updated)) addFields(updated, schema, path, set, depth + 1);
}

/** changesOf is the set an Update records: what `updated` adds or changes relative to `live` (undefined: everything). */
export function changesOf(live: JsonObject | undefined, updated: JsonObject, schema: TypeSchema | undefined): FieldSet {
  const changed = new FieldSet();
  addChanges(live === undefined ? {} : stripMeta(live), stripMeta(updated), schema, [], changed, 0);
  return changed;
}
