import assert from "node:assert/strict";
import { connect } from "node:net";
import { after, before, test } from "node:test";
import { FAKE_TIME, FakeAgentApi } from "../../test/fakes/fake-agent-api.js";
import type { Pod } from "../api/types.js";
import { MAX_BODY_BYTES } from "./request-body.js";
import { startStatusServer, type StatusServer } from "./server.js";

let api: FakeAgentApi;
let server: StatusServer;

before(async () => {
  api = new FakeAgentApi();
  server = await startStatusServer(api, { listen: "127.0.0.1:0" });
  api.addPod(pod("web", "default"));
  api.addPod(pod("db", "prod"));
  api.addPod(pod("cache", "default"));
});
after(() => server.close());

function pod(name: string, namespace: string): Pod {
  return { metadata: { name, namespace, uid: `uid-${name}` }, spec: { containers: [{ name: "app", image: "busybox" }] } };
}

function status(code: number, reason: string, message: string, details?: Record<string, unknown>): Record<string, unknown> {
  const head = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason };
  return details === undefined ? { ...head, code } : { ...head, details, code };
}

async function call(method: string, path: string, body?: string, contentType?: string): Promise<{ code: number; type: string | null; json: unknown }> {
  const init: RequestInit = { method };
  if (body !== undefined) init.body = body;
  if (contentType !== undefined) init.headers = { "Content-Type": contentType };
  const res = await fetch(`${server.url}${path}`, init);
  return { code: res.status, type: res.headers.get("content-type"), json: await res.json() };
}

const names = (list: unknown): string[] => (list as { items: Pod[] }).items.map((p) => `${p.metadata.namespace}/${p.metadata.name}`);

test("GET /pods, /api/v1/pods and /api/v1/namespaces/{ns}/pods return a PodList", async () => {
  const cases: { path: string; expected: string[] }[] = [
    { path: "/pods", expected: ["default/cache", "default/web", "prod/db"] },
    { path: "/api/v1/pods", expected: ["default/cache", "default/web", "prod/db"] },
    { path: "/api/v1/namespaces/default/pods", expected: ["default/cache", "default/web"] },
    { path: "/api/v1/namespaces/prod/pods", expected: ["prod/db"] },
    { path: "/api/v1/namespaces/empty/pods", expected: [] },
  ];
  for (const c of cases) {
    const { code, type, json } = await call("GET", c.path);
    assert.equal(code, 200, c.path);
    assert.equal(type, "application/json");
    const list = json as Record<string, unknown>;
    assert.deepEqual([list["kind"], list["apiVersion"], list["metadata"]], ["PodList", "v1", {}], c.path);
    assert.deepEqual(names(list), c.expected, c.path);
  }
});

test("GET /api/v1/namespaces/{ns}/pods/{name} returns the Pod or a 404 Status", async () => {
  const found = await call("GET", "/api/v1/namespaces/default/pods/web");
  assert.equal(found.code, 200);
  assert.deepEqual(found.json, { kind: "Pod", apiVersion: "v1", ...pod("web", "default") });
  const missing = await call("GET", "/api/v1/namespaces/prod/pods/web");
  assert.equal(missing.code, 404);
  assert.deepEqual(missing.json, status(404, "NotFound", 'pods "web" not found', { name: "web", kind: "pods" }));
});

test("POST creates a pod from JSON or YAML and answers 201 with it", async () => {
  const json = JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name: "from-json" }, spec: { containers: [{ name: "c" }] } });
  const yaml = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: from-yaml\n  namespace: team\nspec:\n  containers:\n    - name: c\n      image: nginx\n";
  const cases: { body: string; type: string; ns: string; name: string }[] = [
    { body: json, type: "application/json", ns: "team", name: "from-json" },
    { body: yaml, type: "application/yaml", ns: "team", name: "from-yaml" },
    { body: json.replace("from-json", "with-charset"), type: "application/json; charset=utf-8", ns: "team", name: "with-charset" },
  ];
  for (const c of cases) {
    const before = api.calls.createPod.length;
    const res = await call("POST", `/api/v1/namespaces/${c.ns}/pods`, c.body, c.type);
    assert.equal(res.code, 201, c.name);
    const created = res.json as Pod;
    assert.equal(created.kind, "Pod");
    assert.equal(created.metadata.name, c.name);
    assert.equal(created.metadata.namespace, c.ns);
    assert.equal(created.metadata.creationTimestamp, FAKE_TIME);
    assert.equal(api.calls.createPod.length, before + 1);
    assert.equal(api.calls.createPod.at(-1)?.namespace, c.ns);
  }
  const fromYaml = api.calls.createPod[1]?.input as Pod;
  assert.deepEqual(fromYaml.spec.containers, [{ name: "c", image: "nginx" }]);
  assert.deepEqual(names(await call("GET", "/api/v1/namespaces/team/pods").then((r) => r.json)), ["team/from-json", "team/from-yaml", "team/with-charset"]);
});

test("POST errors: 400 parse errors and namespace mismatch, 415, 409, 422 with causes", async () => {
  const path = "/api/v1/namespaces/default/pods";
  const invalid = JSON.stringify({ metadata: { name: "bad" }, spec: { containers: [{ name: "c", livenessProbe: { exec: { command: ["true"] }, successThreshold: 2 } }] } });
  const cases: { name: string; body: string; type: string; expected: Record<string, unknown> }[] = [
    {
      name: "bad JSON",
      body: '{"metadata": }',
      type: "application/json",
      expected: status(400, "BadRequest", "invalid JSON: body:1:14: invalid character '}' looking for beginning of value"),
    },
    {
      name: "bad YAML",
      body: "metadata:\n  name: [unclosed\n",
      type: "application/yaml",
      expected: status(400, "BadRequest", "invalid YAML: body:3:1: Flow sequence in block collection must be sufficiently indented and end with a ]"),
    },
    { name: "a list", body: "[1, 2]", type: "application/json", expected: status(400, "BadRequest", "the request body must be a single object, got a list") },
    { name: "empty YAML", body: "", type: "application/yaml", expected: status(400, "BadRequest", "the request body must be a single object, got null") },
    {
      name: "namespace mismatch",
      body: JSON.stringify({ metadata: { name: "x", namespace: "prod" }, spec: { containers: [] } }),
      type: "application/json",
      expected: status(400, "BadRequest", "the namespace of the provided object does not match the namespace sent on the request"),
    },
    {
      name: "unknown media type",
      body: "name=x",
      type: "application/x-www-form-urlencoded",
      expected: status(415, "UnsupportedMediaType", "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml"),
    },
    {
      name: "already exists",
      body: JSON.stringify({ metadata: { name: "web" }, spec: { containers: [{ name: "c" }] } }),
      type: "application/json",
      expected: status(409, "AlreadyExists", 'pods "web" already exists', { name: "web", kind: "pods" }),
    },
    {
      name: "invalid",
      body: invalid,
      type: "application/json",
      expected: status(422, "Invalid", 'Pod "bad" is invalid: spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1', {
        name: "bad",
        kind: "Pod",
        causes: [{ reason: "FieldValueInvalid", message: "Invalid value: 2: must be 1", field: "spec.containers[0].livenessProbe.successThreshold" }],
      }),
    },
  ];
  for (const c of cases) {
    const res = await call("POST", path, c.body, c.type);
    assert.equal(res.code, c.expected["code"], c.name);
    assert.equal(res.type, "application/json", c.name);
    assert.deepEqual(res.json, c.expected, c.name);
  }
});

test("POST with several field errors lists them all (422)", async () => {
  const body = "spec:\n  containers:\n    - name: c\n      startupProbe: {successThreshold: 3}\n";
  const res = await call("POST", "/api/v1/namespaces/default/pods", body, "application/yaml");
  assert.equal(res.code, 422);
  const s = res.json as { message: string; details: { causes: { field: string }[] } };
  assert.equal(
    s.message,
    'Pod "" is invalid: [metadata.name: Required value: name or generateName is required, spec.containers[0].startupProbe.successThreshold: Invalid value: 3: must be 1]',
  );
  assert.deepEqual(s.details.causes.map((c) => c.field), ["metadata.name", "spec.containers[0].startupProbe.successThreshold"]);
});

test("POST bodies over the API server's 3 MiB limit are refused with 413", async () => {
  const limit = MAX_BODY_BYTES;
  const big = JSON.stringify({ metadata: { name: "big", annotations: { a: "x".repeat(limit) } } });
  const before = api.calls.createPod.length;
  const res = await call("POST", "/api/v1/namespaces/default/pods", big, "application/json");
  assert.equal(res.code, 413);
  assert.deepEqual(res.json, status(413, "RequestEntityTooLarge", "Request entity too large: limit is 3145728"));
  assert.equal(api.calls.createPod.length, before, "the agent never saw the body");
  // A body of exactly the limit is still read (and here rejected by the parser, not the limit).
  const exact = await call("POST", "/api/v1/namespaces/default/pods", " ".repeat(limit - 2) + "[]", "application/json");
  assert.equal(exact.code, 400);
});

test("DELETE starts graceful deletion; grace comes from the query or a DeleteOptions body", async () => {
  const cases: { name: string; pod: string; query: string; body?: string; type?: string; grace: number | undefined }[] = [
    { name: "no grace", pod: "d1", query: "", grace: undefined },
    { name: "query", pod: "d2", query: "?gracePeriodSeconds=5", grace: 5 },
    { name: "body", pod: "d3", query: "", body: '{"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0}', type: "application/json", grace: 0 },
    { name: "query wins over body", pod: "d4", query: "?gracePeriodSeconds=7", body: '{"gracePeriodSeconds":1}', type: "application/json", grace: 7 },
    { name: "body sent as text/plain", pod: "d5", query: "", body: '{"gracePeriodSeconds":12}', grace: 12 },
    { name: "YAML body", pod: "d6", query: "", body: "gracePeriodSeconds: 3\n", type: "application/yaml", grace: 3 },
  ];
  for (const c of cases) {
    api.addPod(pod(c.pod, "default"));
    const res = await call("DELETE", `/api/v1/namespaces/default/pods/${c.pod}${c.query}`, c.body, c.type);
    assert.equal(res.code, 200, c.name);
    const deleted = res.json as Pod;
    assert.equal(deleted.kind, "Pod");
    assert.equal(deleted.metadata.deletionTimestamp, FAKE_TIME, c.name);
    assert.deepEqual(api.calls.deletePod.at(-1), { namespace: "default", name: c.pod, gracePeriodSeconds: c.grace }, c.name);
    assert.equal(deleted.metadata.deletionGracePeriodSeconds, c.grace ?? 30, c.name);
  }
});

test("DELETE errors: 404 for a missing pod, 400 for a bad grace period", async () => {
  const missing = await call("DELETE", "/api/v1/namespaces/default/pods/ghost");
  assert.deepEqual(missing.json, status(404, "NotFound", 'pods "ghost" not found', { name: "ghost", kind: "pods" }));
  const calls = api.calls.deletePod.length;
  const badQuery = await call("DELETE", "/api/v1/namespaces/default/pods/web?gracePeriodSeconds=soon");
  assert.deepEqual(badQuery.json, status(400, "BadRequest", 'invalid gracePeriodSeconds "soon": must be a non-negative integer'));
  const negative = await call("DELETE", "/api/v1/namespaces/default/pods/web", '{"gracePeriodSeconds":-1}', "application/json");
  assert.deepEqual(negative.json, status(400, "BadRequest", "invalid gracePeriodSeconds -1: must be a non-negative integer"));
  assert.equal(api.calls.deletePod.length, calls, "the agent was not asked");
});

test("a non-ApiError thrown by the agent is a 500 InternalError without a stack trace", async (t) => {
  const original = api.listPods.bind(api);
  api.listPods = () => {
    throw new TypeError("cannot read properties of undefined (reading 'uid')");
  };
  t.after(() => (api.listPods = original));
  const res = await call("GET", "/api/v1/pods");
  assert.equal(res.code, 500);
  assert.deepEqual(
    res.json,
    status(500, "InternalError", "Internal error occurred: cannot read properties of undefined (reading 'uid')", {
      causes: [{ message: "cannot read properties of undefined (reading 'uid')" }],
    }),
  );
});

test("a declared body far over the limit is answered 413 at once, without reading it", { timeout: 5000 }, async (t) => {
  const socket = connect(server.address.port, "127.0.0.1");
  t.after(() => socket.destroy());
  let received = "";
  socket.on("data", (d: Buffer) => (received += d.toString()));
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  socket.write("POST /api/v1/namespaces/default/pods HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\n\r\n{");
  await closed;
  assert.match(received, /^HTTP\/1\.1 413 Payload Too Large\r\n/);
  assert.match(received, /\r\nConnection: close\r\n/i);
  assert.match(received, /"message":"Request entity too large: limit is 3145728"/);
});

test("GET /api/v1/namespaces/{ns}/pods/{name}/probes returns the pod's probe history, or a 404 Status", async () => {
  const entry = { time: "2026-01-01T00:00:01.000Z", container: "app", probeType: "liveness" as const, containerID: "process://1", result: "Success" as const, output: "", latencyMs: 1.5, run: 1, threshold: 1 };
  api.recordProbe("default", "web", entry);
  const ok = await call("GET", "/api/v1/namespaces/default/pods/web/probes");
  assert.equal(ok.code, 200);
  assert.deepEqual(ok.json, { kind: "ProbeHistoryList", apiVersion: "probelet/v1alpha1", metadata: { namespace: "default", name: "web" }, items: [entry] });
  const empty = await call("GET", "/api/v1/namespaces/default/pods/cache/probes");
  assert.deepEqual((empty.json as { items: unknown[] }).items, []);
  const missing = await call("GET", "/api/v1/namespaces/default/pods/nope/probes");
  assert.equal(missing.code, 404);
  assert.deepEqual(missing.json, status(404, "NotFound", 'pods "nope" not found', { name: "nope", kind: "pods" }));
});
