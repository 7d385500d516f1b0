import { test } from "node:test";
import assert from "node:assert/strict";
import { applyJsonPatch, MAX_JSON_PATCH_COPY_BYTES, MAX_JSON_PATCH_OPERATIONS } from "./json-patch.js";
import { PatchError } from "./patch-error.js";
import type { JsonValue } from "./json-value.js";

function rejects(doc: JsonValue, ops: JsonValue, code: number, message: string): void {
  assert.throws(() => applyJsonPatch(doc, ops), (error: unknown) => {
    assert.ok(error instanceof PatchError);
    assert.equal(error.message, message);
    assert.equal(error.code, code);
    return true;
  });
}

const pod = { metadata: { name: "web", labels: { app: "a" } }, spec: { containers: [{ name: "c1" }, { name: "c2" }] } };

test("applyJsonPatch applies add, remove, replace, move, copy and test in order", () => {
  const result = applyJsonPatch(pod, [
    { op: "test", path: "/metadata/name", value: "web" },
    { op: "add", path: "/metadata/labels/tier", value: "front" },
    { op: "replace", path: "/metadata/labels/app", value: "b" },
    { op: "remove", path: "/spec/containers/0" },
    { op: "add", path: "/spec/containers/-", value: { name: "c3" } },
    { op: "copy", from: "/metadata/labels/app", path: "/metadata/labels/copy" },
    { op: "move", from: "/metadata/labels/tier", path: "/metadata/annotations" },
  ]);
  assert.deepEqual(result, {
    metadata: { name: "web", labels: { app: "b", copy: "b" }, annotations: "front" },
    spec: { containers: [{ name: "c2" }, { name: "c3" }] },
  });
  assert.equal(pod.metadata.labels.app, "a", "the input document is not changed");
});

test("applyJsonPatch decodes ~1 and ~0 in pointer tokens (RFC 6901)", () => {
  const result = applyJsonPatch({ metadata: { annotations: {} } }, [
    { op: "add", path: "/metadata/annotations/example.com~1a~0b", value: "v" },
  ]);
  assert.deepEqual(result, { metadata: { annotations: { "example.com/a~b": "v" } } });
});

test("applyJsonPatch inserts at an array index and accepts negative indices like the library", () => {
  assert.deepEqual(applyJsonPatch({ a: [1, 2] }, [{ op: "add", path: "/a/1", value: 9 }]), { a: [1, 9, 2] });
  assert.deepEqual(applyJsonPatch({ a: [1, 2] }, [{ op: "remove", path: "/a/-1" }]), { a: [1] });
});

test("applyJsonPatch answers 422 with evanphx/json-patch's messages when an operation does not apply", () => {
  rejects(pod, [{ op: "add", path: "/spec/x/y", value: 1 }], 422, 'add operation does not apply: doc is missing path: "/spec/x/y": missing value');
  rejects(pod, [{ op: "test", path: "/metadata/name", value: "other" }], 422, "testing value /metadata/name failed: test failed");
  rejects(pod, [{ op: "remove", path: "/metadata/nope" }], 422, "error in remove for path: '/metadata/nope': Unable to remove nonexistent key: nope: missing value");
  rejects(pod, [{ op: "replace", path: "/spec/containers/5", value: 1 }], 422, "replace operation does not apply: doc is missing key: /spec/containers/5: missing value");
  rejects(pod, [{ op: "add", path: "/spec/containers/7", value: 1 }], 422, "error in add for path: '/spec/containers/7': Unable to access invalid index: 7: invalid index referenced");
  rejects(pod, [{ op: "add", path: "/spec/containers/x", value: 1 }], 422,
    "error in add for path: '/spec/containers/x': value was not a proper array index: 'x': strconv.Atoi: parsing \"x\": invalid syntax");
  rejects(pod, [{ op: "move", from: "/nope/a", path: "/b" }], 422, "move operation does not apply: doc is missing from path: /nope/a: missing value");
  rejects(pod, [{ op: "copy", from: "/metadata/name", path: "/x/y" }], 422, "copy operation does not apply: doc is missing destination path: /x/y: missing value");
  rejects(pod, [{ op: "test", path: "/x/y", value: 1 }], 422, "test operation does not apply: is missing path: /x/y: missing value");
  rejects(pod, [{ op: "add", value: 1 }], 422, "add operation failed to decode path: missing value");
  rejects(pod, [{ op: "move", path: "/a" }], 422, "move operation failed to decode from: operation, missing from field: missing value");
  rejects(pod, [{ op: "frobnicate", path: "/a" }], 422, "Unexpected kind: frobnicate");
  rejects(pod, [{ path: "/a" }], 422, "Unexpected kind: unknown");
});

test("applyJsonPatch answers 400 when the body is not a list of operations", () => {
  rejects(pod, { op: "add" }, 400, "json: cannot unmarshal object into Go value of type jsonpatch.Patch");
  rejects(pod, [1], 400, "json: cannot unmarshal number into Go value of type jsonpatch.Operation");
});

test("applyJsonPatch answers 413 beyond the API server's maximum number of operations", () => {
  const ops = Array.from({ length: MAX_JSON_PATCH_OPERATIONS + 1 }, () => ({ op: "test", path: "/metadata/name", value: "web" }));
  rejects(pod, ops, 413, `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${MAX_JSON_PATCH_OPERATIONS + 1}`);
});

test("applyJsonPatch stores a __proto__ key as data without touching prototypes", () => {
  const result = applyJsonPatch({ a: {} }, [{ op: "add", path: "/a/__proto__", value: { polluted: true } }]) as { a: object };
  assert.equal(Object.getPrototypeOf(result.a), Object.prototype);
  assert.deepEqual(Object.getOwnPropertyDescriptor(result.a, "__proto__")?.value, { polluted: true });
  assert.equal(({} as Record<string, unknown>)["polluted"], undefined);
});

test("applyJsonPatch refuses values nested deeper than 100 levels with a 400", () => {
  let deep: JsonValue = 1;
  for (let level = 0; level < 150; level++) deep = { a: deep };
  rejects({}, [{ op: "add", path: "/x", value: deep }], 400, "the patch or object is nested deeper than 100 levels");
});

test("applyJsonPatch stops copy operations that grow the document beyond the API server's 3 MiB copy limit", () => {
  const ops: JsonValue[] = [];
  for (let round = 0; round < 30; round++) ops.push({ op: "copy", from: "/a", path: `/b${round}` }, { op: "copy", from: `/b${round}`, path: "/a/-" });
  assert.throws(() => applyJsonPatch({ a: ["x".repeat(1000)] }, ops), (error: unknown) => {
    assert.ok(error instanceof PatchError);
    assert.equal(error.code, 422);
    assert.match(error.message, new RegExp(`^Unable to complete the copy, the accumulated size increase of copy is \\d+, exceeding the limit ${MAX_JSON_PATCH_COPY_BYTES}$`));
    return true;
  });
});
