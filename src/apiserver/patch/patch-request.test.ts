import { test } from "node:test";
import assert from "node:assert/strict";
import { MAX_YAML_INPUT_BYTES } from "../../api/bounded-parse.js";
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

test("decodePatchBody reads JSON, reads YAML for apply within the bounded parser's limits, refuses bodies over 3 MiB", () => {
  assert.deepEqual(decodePatchBody("application/merge-patch+json", '{"a":1}'), { a: 1 });
  assert.deepEqual(decodePatchBody("application/apply-patch+yaml", "apiVersion: v1\nkind: Pod\n"), { apiVersion: "v1", kind: "Pod" });
  assert.deepEqual(decodePatchBody("application/apply-patch+yaml", '{"kind":"Pod"}'), { kind: "Pod" });
  assert.deepEqual(decodePatchBody("application/apply-patch+yaml", "{kind: Pod, metadata: {name: web}}"), { kind: "Pod", metadata: { name: "web" } }, "YAML's flow style is not JSON");
  assert.deepEqual(decodePatchBody("application/apply-patch+yaml", "a: &x [1]\nb: *x\n"), { a: [1], b: [1] }, "aliases, as sigs.k8s.io/yaml reads them");
  failsWith(() => decodePatchBody("application/merge-patch+json", "{nope"), 400, /^error decoding patch: body:1:2: /);
  failsWith(() => decodePatchBody("application/apply-patch+yaml", "a: 1\na: 2\n"), 400, /^error decoding YAML: body:2:1: .*a/);
  failsWith(() => decodePatchBody("application/apply-patch+yaml", "a: 1\n---\nb: 2\n"), 400, "error decoding YAML: the body must be a single document, got 2");
  failsWith(() => decodePatchBody("application/json-patch+json", "x".repeat(MAX_PATCH_BODY_BYTES + 1)), 413, `Request entity too large: limit is ${MAX_PATCH_BODY_BYTES}`);
  failsWith(() => decodePatchBody("application/apply-patch+yaml", `a: "${"x".repeat(MAX_YAML_INPUT_BYTES)}"`), 413, `Request entity too large: limit is ${MAX_YAML_INPUT_BYTES}`);
  failsWith(() => decodePatchBody("application/merge-patch+json", `${"[".repeat(200)}${"]".repeat(200)}`), 400, /exceeded max depth of 100/);
});

test("a 3 MiB malformed apply body and a 60,000-key apply are decoded in bounded time (they took 19 s and 50 s with the unbounded parser)", () => {
  const malformed = "\tkey: [1, 2\n".repeat(Math.floor(MAX_PATCH_BODY_BYTES / 12));
  const started = process.cpuUsage();
  failsWith(() => decodePatchBody("application/apply-patch+yaml", malformed), 413, `Request entity too large: limit is ${MAX_YAML_INPUT_BYTES}`);
  failsWith(() => decodePatchBody("application/apply-patch+yaml", `{${malformed.slice(1)}`), 400, /^error decoding YAML: body:1:2: /);
  const malformedCpu = process.cpuUsage(started);
  assert.ok((malformedCpu.user + malformedCpu.system) / 1000 < 1000, `the malformed bodies took ${Math.round((malformedCpu.user + malformedCpu.system) / 1000)} ms of CPU`);
  const data: Record<string, string> = {};
  for (let i = 0; i < 60_000; i++) data[`key-${i}`] = `value-${i}`;
  const json = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "big" }, data });
  const cpuStarted = process.cpuUsage();
  assert.equal(Object.keys((decodePatchBody("application/apply-patch+yaml", json) as { data: object }).data).length, 60_000);
  const allYaml = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n${Object.keys(data).map((k) => `  ${k}: v\n`).join("")}`;
  failsWith(() => decodePatchBody("application/apply-patch+yaml", allYaml), 400, /the YAML stream has more than 100000 tokens; split it or send JSON/);
  // CPU time, which other work on the machine inflates less than wall time: well under a second;
  // the bound leaves room for a busy machine (the JSON body alone took 50 s through the unbounded
  // YAML parser).
  const cpu = process.cpuUsage(cpuStarted);
  assert.ok((cpu.user + cpu.system) / 1000 < 10_000, `the large bodies took ${Math.round((cpu.user + cpu.system) / 1000)} ms of CPU`);
  const duplicated = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n${Object.keys(data).slice(0, 10_000).map((k) => `  ${k}: v\n`).join("")}  key-1: again\n`;
  failsWith(() => decodePatchBody("application/apply-patch+yaml", duplicated), 400, /^error decoding YAML: body:10005:3: Map keys must be unique/);
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
