// Hostile and malformed POST bodies against a real loopback status server backed by the fake
// agent: each is a quick 4xx Status, never a 5xx, and the pod already running is untouched.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { FakeAgentApi } from "../../../test/fakes/fake-agent-api.js";
import type { Pod } from "../../api/types.js";
import { MAX_BODY_BYTES } from "./request-body.js";
import { startStatusServer, type StatusServer } from "../../server/server.js";

let api: FakeAgentApi;
let server: StatusServer;
let running: Pod;
const RUNNING: Pod = { metadata: { name: "web", namespace: "default", uid: "uid-web" }, spec: { containers: [{ name: "app", image: "busybox" }] } };

before(async () => {
  api = new FakeAgentApi();
  server = await startStatusServer(api, { listen: "127.0.0.1:0" });
  running = api.addPod(RUNNING);
});
after(() => server.close());

interface Answer {
  code: number;
  json: { kind?: string; reason?: string; message?: string; metadata?: Record<string, unknown> };
}

/** post sends body with contentType; undefined sends no Content-Type header (bytes make fetch add none). */
async function post(body: string, contentType: string | undefined): Promise<Answer> {
  const init = contentType === undefined ? { body: Buffer.from(body) } : { body, headers: { "Content-Type": contentType } };
  const res = await fetch(`${server.url}/api/v1/namespaces/default/pods`, { method: "POST", ...init });
  return { code: res.status, json: (await res.json()) as Answer["json"] };
}

function assertBadRequest(answer: Answer, message: RegExp | string): void {
  assert.equal(answer.code, 400, JSON.stringify(answer.json));
  assert.equal(answer.json.kind, "Status");
  assert.equal(answer.json.reason, "BadRequest");
  if (typeof message === "string") assert.equal(answer.json.message, message);
  else assert.match(answer.json.message ?? "", message);
}

async function assertRunningPodUndisturbed(createCallsBefore: number): Promise<void> {
  assert.equal(api.calls.createPod.length, createCallsBefore, "no hostile body reached the agent");
  const res = await fetch(`${server.url}/api/v1/namespaces/default/pods/web`);
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), running);
}

test("bounded input: a 1 MiB malformed YAML body is a 400 naming the bound it broke, and the running pod is undisturbed", async () => {
  const calls = api.calls.createPod.length;
  const malformed = "\tkey: [1, 2\n".repeat(Math.floor((1024 * 1024) / 12));
  assertBadRequest(await post(malformed, "application/yaml"), /^invalid YAML: body:\d+: the YAML stream has more than 100000 tokens; split it or send JSON$/);
  const oneBadLine = `metadata:\n  name: x\n  labels: {a: ${"b".repeat(1024 * 1024 - 100)}\n`;
  assertBadRequest(await post(oneBadLine, "application/yaml"), /^invalid YAML: body:\d+:\d+: /);
  await assertRunningPodUndisturbed(calls);
});

test("bounded input: 10,000-deep JSON and YAML bodies are a 400 'exceeded max depth of 100'", async () => {
  const calls = api.calls.createPod.length;
  const deepJson = `{"metadata":${'{"a":'.repeat(10_000)}1${"}".repeat(10_001)}`;
  assertBadRequest(await post(deepJson, "application/json"), "invalid JSON: body:1:508: exceeded max depth of 100");
  const deepFlow = `metadata: ${"[".repeat(10_000)}${"]".repeat(10_000)}\n`;
  assertBadRequest(await post(deepFlow, "application/yaml"), "invalid YAML: body:1: exceeded max depth of 100");
  const deepBlockSequences = `${"- ".repeat(10_000)}x\n`;
  assertBadRequest(await post(deepBlockSequences, "application/yaml"), "invalid YAML: body:1: exceeded max depth of 100");
  // Indented block maps cannot reach 10,000 levels under the 1 MiB YAML limit; 1,400 levels fit.
  const deepBlockMaps = Array.from({ length: 1_400 }, (_, i) => `${" ".repeat(i)}k:`).join("\n");
  assertBadRequest(await post(deepBlockMaps, "application/yaml"), "invalid YAML: body:101: exceeded max depth of 100");
  await assertRunningPodUndisturbed(calls);
});

test("bounded input: a 4 MiB body is a 413 with the API server's 3 MiB limit", async () => {
  const calls = api.calls.createPod.length;
  assert.equal(MAX_BODY_BYTES, 3 * 1024 * 1024);
  const big = JSON.stringify({ metadata: { name: "big", annotations: { a: "x".repeat(4 * 1024 * 1024) } } });
  const answer = await post(big, "application/json");
  assert.equal(answer.code, 413);
  assert.equal(answer.json.reason, "RequestEntityTooLarge");
  assert.equal(answer.json.message, "Request entity too large: limit is 3145728");
  await assertRunningPodUndisturbed(calls);
});

test("bounded input: a YAML body over 1 MiB is a 413 with the YAML limit; JSON may have up to 3 MiB", async () => {
  const calls = api.calls.createPod.length;
  const yaml = `metadata:\n  name: big\n  annotations:\n    a: ${"x".repeat(2 * 1024 * 1024)}\n`;
  const answer = await post(yaml, "application/yaml");
  assert.equal(answer.code, 413);
  assert.equal(answer.json.message, "Request entity too large: limit is 1048576");
  await assertRunningPodUndisturbed(calls);
  const json = JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name: "big-json", annotations: { a: "x".repeat(2 * 1024 * 1024) } }, spec: { containers: [{ name: "app", image: "busybox" }] } });
  const big = await post(json, "application/json");
  assert.equal(big.code, 422, "the body is read; validation refuses the annotation size");
  assert.match(big.json.message ?? "", /metadata\.annotations: Too long/);
});

test("bounded input: a YAML alias bomb is a 400", async () => {
  const calls = api.calls.createPod.length;
  const lines = ["metadata:", "  annotations:", "    l0: &l0 [a, a, a, a, a, a, a, a, a]"];
  for (let i = 1; i <= 9; i++) lines.push(`    l${i}: &l${i} [${Array.from({ length: 9 }, () => `*l${i - 1}`).join(", ")}]`);
  assertBadRequest(await post(lines.join("\n"), "application/yaml"), "invalid YAML: body: document 1: Excessive alias count indicates a resource exhaustion attack");
  await assertRunningPodUndisturbed(calls);
});

test("validation: a multi-document YAML body is a 400", async () => {
  const calls = api.calls.createPod.length;
  const two = "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\n";
  assertBadRequest(await post(two, "application/yaml"), "the request body must be a single object, got 2 YAML documents");
  await assertRunningPodUndisturbed(calls);
});

test("validation: a body whose kind or apiVersion is not v1 Pod is a 400 as the API server answers", async () => {
  const calls = api.calls.createPod.length;
  const deployment = JSON.stringify({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "d" } });
  assertBadRequest(await post(deployment, "application/json"), "the API version in the data (apps/v1) does not match the expected API version (v1)");
  const service = JSON.stringify({ apiVersion: "v1", kind: "Service", metadata: { name: "s" } });
  assertBadRequest(await post(service, "application/json"), 'Service in version "v1" cannot be handled as a Pod: the kind in the data (Service) does not match the expected kind (Pod)');
  await assertRunningPodUndisturbed(calls);
});

test("validation: client-set uid, timestamps and resourceVersion are ignored on create", async () => {
  const body = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "stamped",
      uid: "client-uid",
      creationTimestamp: "2000-01-01T00:00:00Z",
      deletionTimestamp: "2000-01-01T00:00:00Z",
      deletionGracePeriodSeconds: 0,
      resourceVersion: "42",
      generation: 7,
      labels: { app: "stamped" },
    },
    spec: { containers: [{ name: "app", image: "busybox" }] },
  };
  const answer = await post(JSON.stringify(body), "application/json");
  assert.equal(answer.code, 201, JSON.stringify(answer.json));
  const metadata = answer.json.metadata ?? {};
  assert.deepEqual(metadata["labels"], { app: "stamped" });
  assert.notEqual(metadata["uid"], "client-uid");
  assert.notEqual(metadata["creationTimestamp"], "2000-01-01T00:00:00Z");
  assert.equal(metadata["deletionTimestamp"], undefined);
  assert.equal(metadata["deletionGracePeriodSeconds"], undefined);
  assert.equal(metadata["generation"], undefined);
  assert.notEqual(metadata["resourceVersion"], "42");
});

test("media type: a body without Content-Type is read as JSON (kubectl 1.20's create namespace sends none); protobuf is a 415", async () => {
  const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "untyped" }, spec: { containers: [{ name: "app", image: "busybox" }] } };
  const answer = await post(JSON.stringify(pod), undefined);
  assert.equal(answer.code, 201, JSON.stringify(answer.json));
  assert.equal(answer.json.metadata?.["name"], "untyped");
  const proto = await post("k8s\u0000", "application/vnd.kubernetes.protobuf");
  assert.equal(proto.code, 415);
  assert.equal(proto.json.message, "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml");
});
