// Creating a two-way strategic merge patch, as the kubelet's status manager does before
// `PATCH pods/<name>/status` (pkg/kubelet/status/status_manager.go syncPod → pkg/util/pod
// PatchPodStatus → strategicpatch.CreateTwoWayMergePatch with SetElementOrder): removed fields as
// null, merge lists as per-key changes plus `$patch: delete` items and `$setElementOrder/<list>`,
// merged scalar lists as additions plus `$deleteFromPrimitiveList/<list>`, everything else whole.
// Patch lists carry changed and added items in the modified order, then deletions in the original
// order, as in upstream's patch_test.go ("merge lists of maps", "delete all maps from merging list").

import { goValue } from "./go-format.js";
import { checkDepth, PatchError } from "./patch-error.js";
import { fieldSchema, mergesList, type TypeSchema } from "./patch-schema.js";
import { canonicalJson, deepClone, deepEqual, getOwn, hasOwn, isJsonObject, jsonTypeName, setOwn, type JsonObject, type JsonValue } from "./json-value.js";
import { DELETE_FROM_PRIMITIVE_LIST_PREFIX, DIRECTIVE_MARKER, SET_ELEMENT_ORDER_PREFIX, SMP_ERRORS } from "./strategic-merge-patch.js";

function keyValue(item: JsonValue, mergeKey: string): JsonValue {
  if (!isJsonObject(item)) throw new PatchError(500, `expected a map[string]interface {}, but received a ${jsonTypeName(item)}`);
  const value = getOwn(item, mergeKey);
  if (value === undefined) throw new PatchError(500, `map: ${goValue(item)} does not contain declared merge key: ${mergeKey}`);
  return value;
}

interface ListDiff {
  patchList: JsonValue[];
  deleteList: JsonValue[];
  order: JsonValue[];
}

/** sameOrder tells whether the items both lists hold appear in the same relative order. */
function sameOrder(originalKeys: string[], modifiedKeys: string[]): boolean {
  const inModified = new Set(modifiedKeys);
  const inOriginal = new Set(originalKeys);
  const common = originalKeys.filter((key) => inModified.has(key));
  const commonModified = modifiedKeys.filter((key) => inOriginal.has(key));
  return common.length === commonModified.length && common.every((key, index) => commonModified[index] === key);
}

function diffListsOfMaps(original: JsonValue[], modified: JsonValue[], schema: TypeSchema | undefined, depth: number): ListDiff {
  const mergeKey = schema?.patchMergeKey ?? "";
  if (mergeKey === "") throw new PatchError(500, "cannot merge lists without merge key for type map");
  const originalValues = original.map((item) => keyValue(item, mergeKey));
  const modifiedValues = modified.map((item) => keyValue(item, mergeKey));
  const originalKeys = originalValues.map((value) => canonicalJson(value));
  const modifiedKeys = modifiedValues.map((value) => canonicalJson(value));
  const originalIndex = new Map<string, number>();
  originalKeys.forEach((key, index) => {
    if (!originalIndex.has(key)) originalIndex.set(key, index);
  });
  const modifiedSet = new Set(modifiedKeys);
  const patchList: JsonValue[] = [];
  modified.forEach((item, index) => {
    const at = originalIndex.get(modifiedKeys[index]!);
    if (at === undefined) {
      patchList.push(deepClone(item));
      return;
    }
    const change = diffMaps(original[at] as JsonObject, item as JsonObject, schema?.items, depth + 1);
    if (Object.keys(change).length > 0) {
      const withKey: JsonObject = {};
      setOwn(withKey, mergeKey, deepClone(modifiedValues[index]!));
      for (const key of Object.keys(change)) setOwn(withKey, key, change[key]!);
      patchList.push(withKey);
    }
  });
  originalKeys.forEach((key, index) => {
    if (modifiedSet.has(key)) return;
    const deletion: JsonObject = {};
    setOwn(deletion, DIRECTIVE_MARKER, "delete");
    setOwn(deletion, mergeKey, deepClone(originalValues[index]!));
    patchList.push(deletion);
  });
  const order = patchList.length > 0 || !sameOrder(originalKeys, modifiedKeys)
    ? modifiedValues.map((value) => {
      const entry: JsonObject = {};
      setOwn(entry, mergeKey, deepClone(value));
      return entry;
    })
    : [];
  return { patchList, deleteList: [], order };
}

function diffListsOfScalars(original: JsonValue[], modified: JsonValue[]): ListDiff {
  const originalKeys = original.map((item) => canonicalJson(item));
  const modifiedKeys = modified.map((item) => canonicalJson(item));
  const inOriginal = new Set(originalKeys);
  const inModified = new Set(modifiedKeys);
  const patchList = modified.filter((_, index) => !inOriginal.has(modifiedKeys[index]!)).map((item) => deepClone(item));
  const deleteList = original.filter((_, index) => !inModified.has(originalKeys[index]!)).map((item) => deepClone(item));
  const changed = patchList.length > 0 || deleteList.length > 0 || !sameOrder(originalKeys, modifiedKeys);
  return { patchList, deleteList, order: changed ? modified.map((item) => deepClone(item)) : [] };
}

/** diffList writes one merge list's changes into `patch` under the key and its directive keys. */
function diffList(patch: JsonObject, key: string, original: JsonValue[], modified: JsonValue[], schema: TypeSchema | undefined, depth: number): void {
  checkDepth(depth);
  const kinds = new Set([...original, ...modified].map(jsonTypeName));
  if (kinds.has("slice")) throw new PatchError(422, SMP_ERRORS.noListOfLists);
  if (kinds.size > 1) throw new PatchError(500, `list element types are not identical: ${goValue([original, modified])}`);
  const change = kinds.has("map") ? diffListsOfMaps(original, modified, schema, depth) : diffListsOfScalars(original, modified);
  if (change.patchList.length > 0) setOwn(patch, key, change.patchList);
  if (change.deleteList.length > 0) setOwn(patch, `${DELETE_FROM_PRIMITIVE_LIST_PREFIX}/${key}`, change.deleteList);
  if (change.order.length > 0) {
    setOwn(patch, `${SET_ELEMENT_ORDER_PREFIX}/${key}`, change.order);
  }
}

/** diffMaps is strategicpatch diffMaps with SetElementOrder, over JSON values. */
function diffMaps(original: JsonObject, modified: JsonObject, schema: TypeSchema | undefined, depth: number): JsonObject {
  checkDepth(depth);
  const patch: JsonObject = {};
  for (const key of Object.keys(modified)) {
    const after = modified[key]!;
    const before = getOwn(original, key);
    const child = fieldSchema(schema, key);
    if (before === undefined || jsonTypeName(before) !== jsonTypeName(after)) {
      setOwn(patch, key, deepClone(after, depth + 1));
    } else if (isJsonObject(before)) {
      const change = diffMaps(before, after as JsonObject, child, depth + 1);
      if (Object.keys(change).length > 0) setOwn(patch, key, change);
    } else if (Array.isArray(before)) {
      if (mergesList(child)) diffList(patch, key, before, after as JsonValue[], child, depth + 1);
      else if (!deepEqual(before, after, depth + 1)) setOwn(patch, key, deepClone(after, depth + 1));
    } else if (before !== after) {
      setOwn(patch, key, after);
    }
  }
  for (const key of Object.keys(original)) if (!hasOwn(modified, key)) setOwn(patch, key, null);
  return patch;
}

/**
 * createTwoWayMergePatch returns the strategic merge patch that turns `original` (the API server's
 * copy) into `modified` under `schema`, so that applyStrategicMergePatch(original, patch, schema)
 * deep-equals `modified`. Lists of lists are refused with 422 (as strategicpatch does); nesting
 * beyond MAX_PATCH_DEPTH with 400.
 */
export function createTwoWayMergePatch(original: JsonValue, modified: JsonValue, schema: TypeSchema | undefined): JsonObject {
  if (!isJsonObject(original) || !isJsonObject(modified)) throw new PatchError(400, "invalid JSON document");
  return diffMaps(original, modified, schema, 0);
}
