// Deep copies of JSON-shaped values (plain objects, arrays, strings, numbers, booleans, null), as
// the API's objects are, in one walk of plain JavaScript: several times cheaper than
// structuredClone on a large object (a ConfigMap of 60,000 keys: about 0.1 s instead of 0.3 s
// here), with the same result for such values. Anything else (a Date, a Map, a typed array, a
// class instance) is copied by structuredClone, so the result is always structuredClone's.

/**
 * plainCopy copies a value as structuredClone does; with `freeze`, every object and array of the
 * copy is frozen, and its empty plain objects are one shared frozen object.
 */
export function plainCopy<T>(value: T, freeze = false): T {
  return copyValue(value, freeze) as T;
}

const FROZEN_EMPTY: Readonly<Record<string, never>> = Object.freeze({});

function copyValue(value: unknown, freeze: boolean): unknown {
  if (value === null || typeof value !== "object") return typeof value === "function" ? cloned(value, freeze) : value;
  if (Array.isArray(value)) {
    const copy: unknown[] = [];
    for (const item of value) copy.push(copyValue(item, freeze));
    return freeze ? Object.freeze(copy) : copy;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return cloned(value, freeze);
  const source = value as Record<string, unknown>;
  const keys = Object.keys(source);
  // A frozen empty object cannot be told from another: every one of a frozen copy is the same
  // (a managedFields entry of 60,000 fields holds 60,000 of them).
  if (freeze && keys.length === 0) return FROZEN_EMPTY;
  const copy: Record<string, unknown> = {};
  for (const key of keys) {
    // defineProperty keeps a "__proto__" key as data instead of replacing the prototype.
    if (key === "__proto__") Object.defineProperty(copy, key, { value: copyValue(source[key], freeze), enumerable: true, writable: true, configurable: true });
    else copy[key] = copyValue(source[key], freeze);
  }
  return freeze ? Object.freeze(copy) : copy;
}

/** cloned is structuredClone's copy of a value that is not JSON-shaped (frozen through, when asked). */
function cloned(value: unknown, freeze: boolean): unknown {
  const copy: unknown = structuredClone(value);
  return freeze ? deepFreeze(copy) : copy;
}

function deepFreeze(value: unknown): unknown {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as Record<string, unknown>)) deepFreeze(child);
  }
  return value;
}
