// Plain JSON values and the few operations every patch type needs, written so that a key named
// `__proto__` (or `constructor`) is ordinary data: reads check own properties and writes define them.

import { checkDepth } from "./patch-error.js";

/** JsonValue is any value JSON.parse can return. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;

/** JsonObject is a JSON object. */
export interface JsonObject {
  [key: string]: JsonValue;
}

/** isJsonObject tells a JSON object from an array, null or a scalar. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** getOwn reads an own property only, so `__proto__` never reaches Object.prototype. */
export function getOwn(object: JsonObject, key: string): JsonValue | undefined {
  return Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
}

/** hasOwn tells whether an object holds a key of its own. */
export function hasOwn(object: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

/**
 * setOwn stores a key as a data property, so `__proto__` is stored rather than changing the
 * prototype. Every other key of Object.prototype is a plain data property, which an assignment
 * shadows with an own one, so only `__proto__` needs defineProperty (which costs several times an
 * assignment on an object of many keys).
 */
export function setOwn(object: JsonObject, key: string, value: JsonValue): void {
  if (key === "__proto__") Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  else object[key] = value;
}

/** deepClone copies a JSON value, refusing nesting deeper than MAX_PATCH_DEPTH. */
export function deepClone(value: JsonValue, depth = 0): JsonValue {
  checkDepth(depth);
  if (Array.isArray(value)) return value.map((item) => deepClone(item, depth + 1));
  if (isJsonObject(value)) {
    const copy: JsonObject = {};
    for (const key of Object.keys(value)) setOwn(copy, key, deepClone(value[key]!, depth + 1));
    return copy;
  }
  return value;
}

/** deepEqual compares two JSON values structurally (object key order does not matter). */
export function deepEqual(left: JsonValue | undefined, right: JsonValue | undefined, depth = 0): boolean {
  checkDepth(depth);
  if (left === right) return true;
  if (Array.isArray(left)) {
    if (!Array.isArray(right) || left.length !== right.length) return false;
    return left.every((item, index) => deepEqual(item, right[index], depth + 1));
  }
  if (isJsonObject(left)) {
    if (!isJsonObject(right)) return false;
    const leftKeys = Object.keys(left);
    if (leftKeys.length !== Object.keys(right).length) return false;
    return leftKeys.every((key) => hasOwn(right, key) && deepEqual(left[key], right[key], depth + 1));
  }
  return false;
}

/** jsonTypeName names a value's JSON kind as Go's encoding/json would decode it ("map", "slice", …). */
export function jsonTypeName(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return "nil";
  if (Array.isArray(value)) return "slice";
  if (isJsonObject(value)) return "map";
  return typeof value === "number" ? "float64" : typeof value === "boolean" ? "bool" : "string";
}

/** deleteOwn removes a key from an object (an absent key is fine). */
export function deleteOwn(object: JsonObject, key: string): void {
  Reflect.deleteProperty(object, key);
}

/** canonicalJson renders a value as JSON with object keys sorted, so equal values give equal text. */
export function canonicalJson(value: JsonValue, depth = 0): string {
  checkDepth(depth);
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item, depth + 1)).join(",")}]`;
  if (isJsonObject(value)) {
    return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key]!, depth + 1)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
