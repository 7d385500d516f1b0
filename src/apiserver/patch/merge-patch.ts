// RFC 7386 JSON merge patch (`application/merge-patch+json`), as the API server applies it with
// evanphx/json-patch's MergePatch (vendor/gopkg.in/evanphx/json-patch.v4/merge.go): objects merge
// key by key, null removes a key, anything else (arrays included) replaces.

import { checkDepth, PatchError } from "./patch-error.js";
import { deepClone, deepEqual, deleteOwn, getOwn, hasOwn, isJsonObject, setOwn, type JsonObject, type JsonValue } from "./json-value.js";

/** pruneNulls copies a patch value for a key the document lacks: its null members mean nothing there. */
function pruneNulls(value: JsonValue, depth: number): JsonValue {
  checkDepth(depth);
  if (!isJsonObject(value)) return deepClone(value, depth);
  const result: JsonObject = {};
  for (const key of Object.keys(value)) {
    const member = value[key]!;
    if (member !== null) setOwn(result, key, pruneNulls(member, depth + 1));
  }
  return result;
}

function mergeInto(doc: JsonValue | undefined, patch: JsonValue, depth: number): JsonValue {
  checkDepth(depth);
  if (!isJsonObject(patch)) return deepClone(patch, depth);
  if (!isJsonObject(doc)) return pruneNulls(patch, depth);
  const result = deepClone(doc, depth) as JsonObject;
  for (const key of Object.keys(patch)) {
    const member = patch[key]!;
    if (member === null) deleteOwn(result, key);
    else setOwn(result, key, mergeInto(getOwn(result, key), member, depth + 1));
  }
  return result;
}

/**
 * applyMergePatch applies an RFC 7386 merge patch to `doc` and returns the result (the input is not
 * changed). A patch that is not an object replaces the whole document. Nesting beyond
 * MAX_PATCH_DEPTH is a 400 PatchError.
 */
export function applyMergePatch(doc: JsonValue, patch: JsonValue): JsonValue {
  if (patch === undefined) throw new PatchError(400, "Invalid JSON Patch");
  return mergeInto(doc, patch, 0);
}

function diff(original: JsonObject, modified: JsonObject, depth: number): JsonObject {
  checkDepth(depth);
  const patch: JsonObject = {};
  for (const key of Object.keys(original)) {
    if (!hasOwn(modified, key)) setOwn(patch, key, null);
  }
  for (const key of Object.keys(modified)) {
    const after = modified[key]!;
    const before = getOwn(original, key);
    if (before !== undefined && deepEqual(before, after, depth + 1)) continue;
    if (isJsonObject(before) && isJsonObject(after)) {
      setOwn(patch, key, diff(before, after, depth + 1));
    } else {
      setOwn(patch, key, deepClone(after, depth + 1));
    }
  }
  return patch;
}

/**
 * createMergePatch returns the RFC 7386 patch that turns `original` into `modified`: removed keys
 * as null, changed values (arrays whole), nested objects as nested patches. When either side is
 * not an object the patch is `modified` itself. A null inside `modified` cannot be expressed by a
 * merge patch (it means "remove"), so such a value is removed by the patch.
 */
export function createMergePatch(original: JsonValue, modified: JsonValue): JsonValue {
  if (!isJsonObject(original) || !isJsonObject(modified)) return deepClone(modified);
  return diff(original, modified, 0);
}
