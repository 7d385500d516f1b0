import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeConfigMap, decodeSecret } from "./decode-config-objects.js";

test("decodeConfigMap keeps data and binaryData; decodeSecret keeps type, data and stringData", () => {
  const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "n" }, data: { a: "1" }, binaryData: { b: "AA==" }, immutable: true };
  assert.deepEqual(decodeConfigMap(cm), { ok: true, value: cm });
  const s = { apiVersion: "v1", kind: "Secret", metadata: { name: "s" }, type: "Opaque", data: { p: "cA==" }, stringData: { q: "x" } };
  assert.deepEqual(decodeSecret(s), { ok: true, value: s });
});

test("ConfigMap and Secret decoding is strict: kind, apiVersion, unknown fields and non-string values are errors with paths", () => {
  assert.deepEqual(decodeConfigMap({ apiVersion: "v1", kind: "Secret", metadata: { name: "c" } }), {
    ok: false,
    errors: ['kind: Unsupported value: "Secret": supported values: "ConfigMap"'],
  });
  assert.deepEqual(decodeSecret({ apiVersion: "v1", kind: "Secret", metadata: { name: "s" }, data: { p: 1 }, extra: true }, "items[2]"), {
    ok: false,
    errors: ["items[2].data[p]: Invalid value: 1: must be a string", 'strict decoding error: unknown field "items[2].extra"'],
  });
});
