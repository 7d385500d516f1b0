import assert from "node:assert/strict";
import { test } from "node:test";
import { plainCopy } from "./plain-copy.js";

test("plainCopy gives what structuredClone gives for JSON values, sharing nothing with the original", () => {
  const original = JSON.parse('{"a":[1,"two",null,true,{"b":{}}],"c":{"d":[[]]},"e":"","__proto__":{"polluted":1},"constructor":"data"}') as Record<string, unknown>;
  const copy = plainCopy(original);
  assert.deepEqual(copy, structuredClone(original));
  assert.equal(JSON.stringify(copy), JSON.stringify(original));
  assert.equal(Object.getPrototypeOf(copy), Object.prototype);
  assert.ok(Object.hasOwn(copy, "__proto__"), "a __proto__ key stays a data key");
  assert.equal(({} as Record<string, unknown>)["polluted"], undefined);
  (copy["c"] as { d: unknown[][] }).d[0]!.push(1);
  assert.deepEqual((original["c"] as { d: unknown[][] }).d, [[]]);
});

test("plainCopy with freeze freezes every object and array of the copy, and leaves the original alone", () => {
  const original = { a: [{ b: 1 }], c: { d: {} } };
  const copy = plainCopy(original, true);
  for (const value of [copy, copy.a, copy.a[0], copy.c, copy.c.d]) assert.ok(Object.isFrozen(value));
  assert.ok(!Object.isFrozen(original) && !Object.isFrozen(original.a[0]));
  assert.throws(() => (copy.a as unknown[]).push(2), TypeError);
  assert.deepEqual(copy, original);
  assert.equal(JSON.stringify(copy), JSON.stringify(original));
});

test("plainCopy hands values that are not JSON-shaped to structuredClone (a Date, a Map, a class instance)", () => {
  class Point {
    constructor(readonly x: number) {}
  }
  const original = { when: new Date(0), map: new Map([["k", { v: 1 }]]), point: new Point(3) };
  const copy = plainCopy(original);
  assert.deepEqual(copy, structuredClone(original));
  assert.ok(copy.when instanceof Date && copy.when !== original.when);
  assert.ok(copy.map instanceof Map && copy.map.get("k") !== original.map.get("k"));
  assert.equal(Object.getPrototypeOf(copy.point), Object.prototype, "as structuredClone, a class instance becomes a plain object");
  assert.throws(() => plainCopy({ f: () => 1 }), (err: unknown) => err instanceof Error && err.name === "DataCloneError");
  const frozen = plainCopy(original, true);
  assert.ok(Object.isFrozen(frozen.when) && Object.isFrozen(frozen.point));
});
