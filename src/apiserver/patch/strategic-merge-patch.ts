// Applying a strategic merge patch (`application/strategic-merge-patch+json`), following
// k8s.io/apimachinery/pkg/util/strategicpatch/patch.go (StrategicMergeMapPatch → mergeMap,
// mergeSlice, mergePatchIntoOriginal, normalizeElementOrder) with the API server's status codes
// (handlers/patch.go interpretStrategicMergePatchError).

import { goValue } from "./go-format.js";
import { checkDepth, PatchError } from "./patch-error.js";
import { fieldSchema, mergesList, type TypeSchema } from "./patch-schema.js";
import { canonicalJson, deepClone, deleteOwn, getOwn, hasOwn, isJsonObject, jsonTypeName, setOwn, type JsonObject, type JsonValue } from "./json-value.js";

/** DIRECTIVE_MARKER is the `$patch` key (replace, delete) of a map or list item. */
export const DIRECTIVE_MARKER = "$patch";
/** RETAIN_KEYS_DIRECTIVE lists the keys a map keeps. */
export const RETAIN_KEYS_DIRECTIVE = "$retainKeys";
/** DELETE_FROM_PRIMITIVE_LIST_PREFIX starts the key of the values to drop from a merged scalar list. */
export const DELETE_FROM_PRIMITIVE_LIST_PREFIX = "$deleteFromPrimitiveList";
/** SET_ELEMENT_ORDER_PREFIX starts the key of the order a merged list must end up in. */
export const SET_ELEMENT_ORDER_PREFIX = "$setElementOrder";

/** Messages of k8s.io/apimachinery/pkg/util/mergepatch/errors.go. */
export const SMP_ERRORS = {
  badPrimitiveList: "invalid patch format of primitive list",
  badRetainKeys: "invalid patch format of retainKeys",
  badSetElementOrder: "invalid patch format of setElementOrder list",
  noListOfLists: "lists of lists are not supported",
} as const;

function badRequest(message: string): PatchError {
  return new PatchError(400, message);
}

/** Errors strategicpatch returns as plain Go errors reach the client as 500s with their text. */
function internal(message: string): PatchError {
  return new PatchError(500, message);
}

function noMergeKey(item: JsonObject, mergeKey: string): PatchError {
  return internal(`map: ${goValue(item)} does not contain declared merge key: ${mergeKey}`);
}

function badPatchType(directive: JsonValue | undefined, patch: JsonObject): PatchError {
  return internal(`unknown patch type: ${goValue(directive)} in map: ${goValue(patch)}`);
}

/** splitDirectiveKey returns the list key named by `prefix/key`, or throws the prefix's 400. */
function directiveTarget(key: string, prefix: string, message: string): string {
  const slash = key.indexOf("/");
  if (slash < 0 || key.slice(0, slash) !== prefix) throw badRequest(message);
  return key.slice(slash + 1);
}

/** elementKind checks a list's elements are all one JSON kind and not lists; undefined when empty. */
function elementKind(...lists: JsonValue[][]): string | undefined {
  let kind: string | undefined;
  for (const list of lists) {
    for (const item of list) {
      const current = jsonTypeName(item);
      if (kind === undefined) {
        if (current === "slice") throw new PatchError(422, SMP_ERRORS.noListOfLists);
        kind = current;
      } else if (kind !== current) {
        throw internal(`list element types are not identical: ${goValue(lists)}`);
      }
    }
  }
  return kind;
}

/** itemKey identifies a list item: the text of its merge-key value, or of the value itself for scalars. */
function itemKey(item: JsonValue, mergeKey: string): string | undefined {
  if (mergeKey === "") return canonicalJson(item);
  if (!isJsonObject(item)) return undefined;
  const value = getOwn(item, mergeKey);
  return value === undefined ? undefined : canonicalJson(value);
}

/** positions maps each item key of an order list to its first index. */
function positions(order: JsonValue[], mergeKey: string): Map<string, number> {
  const result = new Map<string, number>();
  order.forEach((item, index) => {
    const key = itemKey(item, mergeKey);
    if (key !== undefined && !result.has(key)) result.set(key, index);
  });
  return result;
}

function positionIn(order: Map<string, number>, item: JsonValue, mergeKey: string): number {
  const key = itemKey(item, mergeKey);
  return key === undefined ? -1 : order.get(key) ?? -1;
}

/** sortByOrder orders items by their position in `order` (stable; unknown items last). */
function sortByOrder(items: JsonValue[], order: Map<string, number>, mergeKey: string): JsonValue[] {
  return items.map((item, index) => {
    const position = positionIn(order, item, mergeKey);
    return { item, index, rank: position < 0 ? Number.MAX_SAFE_INTEGER : position };
  }).sort((a, b) => a.rank - b.rank || a.index - b.index).map(({ item }) => item);
}

/**
 * normalizeElementOrder orders a merged list: items named by the patch (or $setElementOrder) in that
 * order, server-only items in their live order, interleaved where both are found in the live list
 * (strategicpatch normalizeElementOrder + mergeSortedSlice).
 */
function normalizeElementOrder(merged: JsonValue[], patchOrder: JsonValue[], serverOrder: JsonValue[], mergeKey: string): JsonValue[] {
  const patchPositions = positions(patchOrder, mergeKey);
  const serverPositions = positions(serverOrder, mergeKey);
  const inPatch: JsonValue[] = [];
  const serverOnly: JsonValue[] = [];
  for (const item of merged) (positionIn(patchPositions, item, mergeKey) >= 0 ? inPatch : serverOnly).push(item);
  const right = sortByOrder(inPatch, patchPositions, mergeKey);
  const left = sortByOrder(serverOnly, serverPositions, mergeKey);
  const result: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) result.push(right[j++]!);
    else if (j >= right.length) result.push(left[i++]!);
    else {
      const leftIndex = positionIn(serverPositions, left[i]!, mergeKey);
      const rightIndex = positionIn(serverPositions, right[j]!, mergeKey);
      if (leftIndex >= 0 && rightIndex >= 0 && leftIndex < rightIndex) result.push(left[i++]!);
      else result.push(right[j++]!);
    }
  }
  return result;
}

function mergeKeyOf(item: JsonValue, mergeKey: string): JsonValue {
  if (!isJsonObject(item)) throw internal(`expected a map[string]interface {}, but received a ${jsonTypeName(item)}`);
  const value = getOwn(item, mergeKey);
  if (value === undefined) throw noMergeKey(item, mergeKey);
  return value;
}

/** mergeSlice merges a patch list into a live list with patchStrategy merge (strategicpatch mergeSlice). */
function mergeSlice(original: JsonValue[], patch: JsonValue[], schema: TypeSchema | undefined, isDeleteList: boolean, depth: number): JsonValue[] {
  checkDepth(depth);
  if (original.length === 0 && patch.length === 0) return original;
  const kind = elementKind(original, patch);
  const mergeKey = schema?.patchMergeKey ?? "";
  let merged: JsonValue[];
  let live = original;
  let patchItems = patch;
  if (kind !== "map") {
    if (isDeleteList) {
      const deleted = new Set(patch.map((item) => canonicalJson(item)));
      return original.filter((item) => !deleted.has(canonicalJson(item)));
    }
    const seen = new Set<string>();
    merged = [];
    for (const item of [...original, ...patch]) {
      const key = canonicalJson(item);
      if (!seen.has(key)) {
        seen.add(key);
        merged.push(deepClone(item));
      }
    }
  } else {
    if (mergeKey === "") throw internal("cannot merge lists without merge key for type map");
    const plain: JsonValue[] = [];
    const deleted = new Set<string>();
    let replace = false;
    for (const item of patch) {
      const element = item as JsonObject;
      const directive = getOwn(element, DIRECTIVE_MARKER);
      if (directive === undefined) {
        plain.push(element);
      } else if (directive === "delete") {
        const value = getOwn(element, mergeKey);
        if (value === undefined) throw noMergeKey(element, mergeKey);
        deleted.add(canonicalJson(value));
      } else if (directive === "replace") {
        replace = true;
      } else if (directive === "merge") {
        throw internal("merging lists cannot yet be specified in the patch");
      } else {
        throw badPatchType(directive, element);
      }
    }
    if (replace) return plain.map((item) => mergeMap({}, item as JsonObject, schema?.items, depth + 1));
    if (deleted.size > 0) live = live.filter((candidate) => !deleted.has(itemKey(candidate, mergeKey) ?? ""));
    patchItems = plain;
    merged = live.slice();
    const index = positions(merged, mergeKey);
    for (const item of plain) {
      const key = canonicalJson(mergeKeyOf(item, mergeKey));
      const at = index.get(key);
      if (at !== undefined) {
        merged[at] = mergeMap(merged[at] as JsonObject, item as JsonObject, schema?.items, depth + 1);
      } else {
        index.set(key, merged.length);
        merged.push(mergeMap({}, item as JsonObject, schema?.items, depth + 1));
      }
    }
  }
  return normalizeElementOrder(merged, patchItems, live, mergeKey);
}

/** mergeList merges one list field: merge strategy per the schema, otherwise the patch replaces it. */
function mergeList(original: JsonValue[], patch: JsonValue[], schema: TypeSchema | undefined, isDeleteList: boolean, depth: number): JsonValue[] {
  if (mergesList(schema)) return mergeSlice(original, patch, schema, isDeleteList, depth);
  return cleanValue(patch, schema, depth) as JsonValue[];
}

/** cleanValue is a patch value for a key the original lacks: merged into nothing, so directives act and vanish. */
function cleanValue(value: JsonValue, schema: TypeSchema | undefined, depth: number): JsonValue {
  checkDepth(depth);
  if (isJsonObject(value)) return mergeMap({}, value, schema, depth + 1);
  if (Array.isArray(value)) {
    if (mergesList(schema)) return mergeSlice([], value, schema, false, depth + 1);
    return value.map((item) => cleanValue(item, schema?.items, depth + 1));
  }
  return value;
}

/** applyRetainKeys drops live keys a `$retainKeys` list does not name (strategicpatch applyRetainKeysDirective). */
function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  const retain = getOwn(patch, RETAIN_KEYS_DIRECTIVE);
  if (retain === undefined) return;
  if (!Array.isArray(retain)) throw badRequest(SMP_ERRORS.badRetainKeys);
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (key === RETAIN_KEYS_DIRECTIVE || value === null || key.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX) || key.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
    if (!retain.includes(key)) throw badRequest(SMP_ERRORS.badRetainKeys);
  }
  for (const key of Object.keys(original)) if (!retain.includes(key)) deleteOwn(original, key);
}

/** validateSetOrder checks the patch list is a subsequence of its $setElementOrder list (validatePatchWithSetOrderList). */
function validateSetOrder(patchList: JsonValue[], order: JsonValue[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const nonDelete = patchList.filter((item) => !(isJsonObject(item) && hasOwn(item, DIRECTIVE_MARKER)));
  let patchIndex = 0;
  let orderIndex = 0;
  while (patchIndex < nonDelete.length && orderIndex < order.length) {
    const item = nonDelete[patchIndex]!;
    const wanted = order[orderIndex]!;
    const equal = mergeKey === ""
      ? canonicalJson(item) === canonicalJson(wanted)
      : canonicalJson(mergeKeyOf(item, mergeKey)) === canonicalJson(mergeKeyOf(wanted, mergeKey));
    if (equal) patchIndex++;
    orderIndex++;
  }
  if (patchIndex < nonDelete.length) {
    throw internal(`The order in patch list:\n${goValue(patchList)}\n doesn't match ${SET_ELEMENT_ORDER_PREFIX} list:\n${goValue(order)}\n`);
  }
}

/** applySetElementOrder merges each list that has a $setElementOrder directive and orders it (mergePatchIntoOriginal). */
function applySetElementOrder(original: JsonObject, patch: JsonObject, schema: TypeSchema | undefined, depth: number): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
    const order = patch[key]!;
    deleteOwn(patch, key);
    if (!Array.isArray(order)) throw internal(`expected a []interface {}, but received a ${jsonTypeName(order)}`);
    const listKey = directiveTarget(key, SET_ELEMENT_ORDER_PREFIX, SMP_ERRORS.badSetElementOrder);
    const live = getOwn(original, listKey);
    const patchList = getOwn(patch, listKey);
    if (live !== undefined && !Array.isArray(live)) throw internal(`expected a []interface {}, but received a ${jsonTypeName(live)}`);
    if (patchList !== undefined && !Array.isArray(patchList)) throw internal(`expected a []interface {}, but received a ${jsonTypeName(patchList)}`);
    const listSchema = fieldSchema(schema, listKey);
    const mergeKey = listSchema?.patchMergeKey ?? "";
    validateSetOrder(patchList ?? [], order, mergeKey);
    if (live === undefined && patchList === undefined) continue;
    const merged = patchList === undefined ? live! : mergeList(live ?? [], patchList, listSchema, false, depth + 1);
    setOwn(original, listKey, normalizeElementOrder(merged, order, live ?? [], mergeKey));
    deleteOwn(patch, listKey);
  }
}

/** mergeMap merges a patch object into a live object (strategicpatch mergeMap); `original` is owned. */
function mergeMap(original: JsonObject, patchInput: JsonObject, schema: TypeSchema | undefined, depth: number): JsonObject {
  checkDepth(depth);
  const directive = getOwn(patchInput, DIRECTIVE_MARKER);
  if (directive !== undefined) {
    if (directive === "replace") {
      const replaced = deepClone(patchInput, depth) as JsonObject;
      deleteOwn(replaced, DIRECTIVE_MARKER);
      return replaced;
    }
    if (directive === "delete") return {};
    throw badPatchType(directive, patchInput);
  }
  const patch: JsonObject = {};
  for (const key of Object.keys(patchInput)) setOwn(patch, key, patchInput[key]!);
  applyRetainKeys(original, patch);
  deleteOwn(patch, RETAIN_KEYS_DIRECTIVE);
  applySetElementOrder(original, patch, schema, depth);
  for (const rawKey of Object.keys(patch)) {
    const patchValue = patch[rawKey]!;
    let key = rawKey;
    let isDeleteList = false;
    if (rawKey.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX)) {
      key = directiveTarget(rawKey, DELETE_FROM_PRIMITIVE_LIST_PREFIX, SMP_ERRORS.badPrimitiveList);
      isDeleteList = true;
      if (!Array.isArray(patchValue)) throw badRequest(SMP_ERRORS.badPrimitiveList);
    }
    if (patchValue === null) {
      deleteOwn(original, key);
      continue;
    }
    const child = fieldSchema(schema, key);
    const live = getOwn(original, key);
    if (live === undefined) {
      if (!isDeleteList) setOwn(original, key, cleanValue(patchValue, child, depth + 1));
      continue;
    }
    if (jsonTypeName(live) !== jsonTypeName(patchValue)) {
      setOwn(original, key, cleanValue(patchValue, child, depth + 1));
    } else if (isJsonObject(live)) {
      setOwn(original, key, mergeMap(live, patchValue as JsonObject, child, depth + 1));
    } else if (Array.isArray(live)) {
      setOwn(original, key, mergeList(live, patchValue as JsonValue[], child, isDeleteList, depth + 1));
    } else {
      setOwn(original, key, patchValue);
    }
  }
  return original;
}

/**
 * applyStrategicMergePatch applies a strategic merge patch to `doc` using the patch metadata in
 * `schema` (e.g. POD_SCHEMA) and returns the result; the inputs are not changed. Supports merge
 * lists by key, `$patch: replace|delete`, `$retainKeys`, `$setElementOrder/<list>`,
 * `$deleteFromPrimitiveList/<list>` and null deleting a key. Errors carry the API server's status:
 * 400 for malformed directives, 422 for lists of lists, 500 where upstream returns a plain error.
 */
export function applyStrategicMergePatch(doc: JsonValue, patch: JsonValue, schema: TypeSchema | undefined): JsonObject {
  if (!isJsonObject(patch)) {
    throw badRequest(`json: cannot unmarshal ${patch === null ? "null" : Array.isArray(patch) ? "array" : typeof patch} into Go value of type map[string]interface {}`);
  }
  if (!isJsonObject(doc)) throw badRequest("invalid JSON document");
  return mergeMap(deepClone(doc) as JsonObject, patch, schema, 0);
}
