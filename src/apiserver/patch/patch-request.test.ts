import { test } from "node:test";
import assert from "node:assert/strict";
import { applyPatchRequest, decodePatchBody, MAX_PATCH_BODY_BYTES, patchContentType } from "./patch-request.js";
import { PatchError } from "./patch-error.js";
import type { JsonObject } from "./json-value.js";

const NOW = new Date("2026-11-25T12:00:00Z");

function failsWith(action: () => unknown, code: number, message: string | RegExp): void {
  assert.throws(action, (error: unknown) => {
    assert.ok(error instanceof PatchError);
    assert.equal(error.code, code);
    if (typeof message === "string") assert.equal(error.message, message);
    else assert.match(error.message, message);
    return true;
  });
}

const live: JsonObject = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web", labels: { app: "a" } },
  spec: { containers: [{ name: "app", image: "nginx:1" }] },
};

test("patchContentType accepts the four patch types, ignoring parameters, and answers 415 otherwise", () => {
  assert.equal(patchContentType("application/strategic-merge-patch+json; charset=utf-8"), "application/strategic-merge-patch+json");
  assert.equal(patchContentType("application/apply-patch+yaml"), "application/apply-patch+yaml");
  failsWith(() => patchContentType("application/json"), 415,
    "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml");
});

test("decodePatchBody reads JSON, reads YAML for apply, refuses aliases and bodies over 3 MiB", () => {
  assert.deepEqual(decodePatchBody("application/merge-patch+json", '{"a":1}'), { a: 1 });
  assert.deepEqual(decodePatchBody("application/apply-patch+yaml", "apiVersion: v1\nkind: Pod\n"), { apiVersion: "v1", kind: "Pod" });
  assert.deepEqual(decodePatchBody("application/apply-patch+yaml", '{"kind":"Pod"}'), { kind: "Pod" });
  failsWith(() => decodePatchBody("application/merge-patch+json", "{nope"), 400, /^error decoding patch: /);
  failsWith(() => decodePatchBody("application/apply-patch+yaml", "a: &x [1]\nb: *x\n"), 400, /^error decoding YAML: /);
  failsWith(() => decodePatchBody("application/json-patch+json", "x".repeat(MAX_PATCH_BODY_BYTES + 1)), 413, `Request entity too large: limit is ${MAX_PATCH_BODY_BYTES}`);
});

test("applyPatchRequest applies each non-apply type and records the fieldManager's Update entry", () => {
  const bodies: [Parameters<typeof applyPatchRequest>[0]["contentType"], unknown][] = [
    ["application/json-patch+json", [{ op: "replace", path: "/metadata/labels/app", value: "b" }]],
    ["application/merge-patch+json", { metadata: { labels: { app: "b" } } }],
    ["application/strategic-merge-patch+json", { metadata: { labels: { app: "b" } } }],
  ];
  for (const [contentType, patch] of bodies) {
    const { object, created } = applyPatchRequest({ contentType, live, patch: patch as JsonObject, manager: "kubectl-patch", now: NOW });
    assert.equal(created, false);
    const metadata = object["metadata"] as JsonObject;
    assert.deepEqual(metadata["labels"], { app: "b" }, contentType);
    assert.deepEqual(metadata["managedFields"], [{
      manager: "kubectl-patch", operation: "Update", apiVersion: "v1", time: "2026-11-25T12:00:00Z", fieldsType: "FieldsV1",
      fieldsV1: { "f:metadata": { "f:labels": { "f:app": {} } } },
    }], contentType);
  }
});

test("applyPatchRequest creates with an apply patch (201) and validates PatchOptions like the API server", () => {
  const { created } = applyPatchRequest({ contentType: "application/apply-patch+yaml", live: undefined, patch: live, manager: "kubectl", now: NOW });
  assert.equal(created, true);
  failsWith(() => applyPatchRequest({ contentType: "application/apply-patch+yaml", live: undefined, patch: live, manager: "", now: NOW }), 422,
    'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
  failsWith(() => applyPatchRequest({ contentType: "application/merge-patch+json", live, patch: {}, manager: "m", force: false, now: NOW }), 422,
    'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
  failsWith(() => applyPatchRequest({ contentType: "application/merge-patch+json", live, patch: {}, manager: "m".repeat(129), now: NOW }), 422,
    'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes');
  failsWith(() => applyPatchRequest({ contentType: "application/merge-patch+json", live, patch: {}, manager: "bad\u0007", now: NOW }), 422,
    'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "bad\\a": must only contain printable characters');
});
