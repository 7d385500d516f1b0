import { test } from "node:test";
import assert from "node:assert/strict";
import { applyMergePatch, createMergePatch } from "./merge-patch.js";
import { PatchError } from "./patch-error.js";
import type { JsonValue } from "./json-value.js";

// RFC 7386 appendix A test cases.
const RFC_CASES: [JsonValue, JsonValue, JsonValue][] = [
  [{ a: "b" }, { a: "c" }, { a: "c" }],
  [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
  [{ a: "b" }, { a: null }, {}],
  [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
  [{ a: ["b"] }, { a: "c" }, { a: "c" }],
  [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
  [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
  [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
  [["a", "b"], ["c", "d"], ["c", "d"]],
  [{ a: "b" }, ["c"], ["c"]],
  [{ a: "foo" }, null, null],
  [{ a: "foo" }, "bar", "bar"],
  [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  [[1, 2], { a: "b", c: null }, { a: "b" }],
  [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
];

test("applyMergePatch passes the RFC 7386 appendix A cases", () => {
  for (const [doc, patch, expected] of RFC_CASES) {
    assert.deepEqual(applyMergePatch(doc, patch), expected, JSON.stringify({ doc, patch }));
  }
});

test("createMergePatch nulls removed keys, nests changed objects and replaces arrays whole", () => {
  const original = { metadata: { labels: { a: "1", b: "2" } }, spec: { list: [1, 2], keep: true } };
  const modified = { metadata: { labels: { a: "1", c: "3" } }, spec: { list: [2], keep: true } };
  const patch = createMergePatch(original, modified);
  assert.deepEqual(patch, { metadata: { labels: { b: null, c: "3" } }, spec: { list: [2] } });
  assert.deepEqual(applyMergePatch(original, patch), modified);
  assert.deepEqual(createMergePatch(original, original), {});
});

test("applyMergePatch keeps __proto__ as a data key", () => {
  const patch = JSON.parse('{"__proto__":{"polluted":true}}') as JsonValue;
  const result = applyMergePatch({}, patch) as object;
  assert.equal(Object.getPrototypeOf(result), Object.prototype);
  assert.equal(({} as Record<string, unknown>)["polluted"], undefined);
  assert.deepEqual(Object.keys(result), ["__proto__"]);
});

test("applyMergePatch refuses a patch nested deeper than 100 levels with a 400", () => {
  let deep: JsonValue = 1;
  for (let level = 0; level < 150; level++) deep = { a: deep };
  assert.throws(() => applyMergePatch({}, deep), (error: unknown) => error instanceof PatchError && error.code === 400);
});
