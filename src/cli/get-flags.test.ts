import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { captureContext, serveSelectingAgentApi } from "../../test/cli-harness.js";
import { FakeAgentApi } from "../../test/fakes/fake-agent-api.js";
import { FakeClock, FixedNowClock } from "../../test/fakes/fake-clock.js";
import type { Pod } from "../api/types.js";
import { UsageError } from "./args.js";
import { runGetCommand } from "./get-command.js";
import { TemplateError } from "./output-format.js";

const NOW = Date.parse("2026-01-01T00:05:00Z");
const capture = () => captureContext(new FakeClock(NOW));

function pod(name: string, labels?: Record<string, string>): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default", uid: `uid-${name}`, creationTimestamp: "2026-01-01T00:00:00Z", ...(labels ? { labels } : {}) },
    spec: { containers: [{ name: "app", image: "busybox" }] },
    status: { phase: "Running", podIP: "10.0.0.7", containerStatuses: [{ name: "app", ready: true, restartCount: 0, state: { running: { startedAt: "2026-01-01T00:00:01Z" } } }] },
  };
}

async function setup(t: TestContext) {
  const api = new FakeAgentApi();
  api.addPod(pod("a1", { app: "a", tier: "fe" }));
  api.addPod(pod("a2", { app: "a" }));
  api.addPod(pod("b1", { app: "b" }));
  api.addPod(pod("plain"));
  // The server computes Table ages: it reads the same time as the CLI.
  const server = await serveSelectingAgentApi(t, api, new FixedNowClock(NOW));
  return { api, server };
}

async function get(url: string, ...args: string[]) {
  const c = capture();
  const code = await runGetCommand([...args, "--server", url], c.ctx);
  return { code, out: c.out(), err: c.err() };
}

test("get pods -l sends labelSelector and prints only the selected pods; --show-labels and --no-headers shape the table", async (t) => {
  const { server } = await setup(t);
  const selected = await get(server.url, "pods", "-l", "app=a", "--show-labels");
  assert.equal(selected.code, 0, selected.err);
  assert.equal(
    selected.out,
    "NAME   READY   STATUS    RESTARTS   AGE   LABELS\n" +
      "a1     1/1     Running   0          5m    app=a,tier=fe\n" +
      "a2     1/1     Running   0          5m    app=a\n",
  );
  assert.equal(server.requests.at(-1)?.query.get("labelSelector"), "app=a");
  const others = await get(server.url, "pods", "--selector", "app notin (a),app", "--no-headers", "--show-labels");
  assert.equal(others.out, "b1    1/1   Running   0     5m    app=b\n");
  const none = await get(server.url, "pods", "-l", "!app", "--show-labels");
  assert.match(none.out, /^plain .* <none>\n$/m);
});

test("get pods with a selector the server refuses prints kubectl's BadRequest and exits 1", async (t) => {
  const { server } = await setup(t);
  const bad = await get(server.url, "pods", "-l", "app=");
  assert.equal(bad.code, 0, "an empty value is valid");
  const refused = await get(server.url, "pods", "-l", "app in a");
  assert.equal(refused.code, 1);
  assert.match(refused.err, /^Error from server \(BadRequest\): unable to parse requirement: /);
  const field = await get(server.url, "pods", "--field-selector", "spec.bogus=x");
  assert.equal(field.code, 1);
  assert.match(field.err, /^Error from server \(BadRequest\): .*spec\.bogus/);
  await assert.rejects(runGetCommand(["pods", "a1", "-l", "app=a"], capture().ctx), new UsageError("name cannot be provided when a selector is specified"));
});

test("get events --field-selector involvedObject.name=web lists only that object's events", async (t) => {
  const { api, server } = await setup(t);
  for (const name of ["web", "db"]) {
    api.recordEvent({ involvedObject: { kind: "Pod", name, namespace: "default" }, reason: "Started", message: `started ${name}`, type: "Normal", count: 1, firstTimestamp: "2026-01-01T00:04:00Z", lastTimestamp: "2026-01-01T00:04:00Z", source: { component: "kubelet" }, reportingComponent: "kubelet" });
  }
  const got = await get(server.url, "events", "--field-selector", "involvedObject.name=web", "-o", "custom-columns=OBJECT:.involvedObject.name,MESSAGE:.message");
  assert.equal(got.out, "OBJECT   MESSAGE\nweb      started web\n");
  assert.equal(server.requests.at(-1)?.query.get("fieldSelector"), "involvedObject.name=web");
});

test("get -o jsonpath prints kubectl's template output for a list and for one object", async (t) => {
  const { server } = await setup(t);
  const names = await get(server.url, "pods", "-o", "jsonpath={.items[*].metadata.name}");
  assert.equal(names.out, "a1 a2 b1 plain");
  const ranged = await get(server.url, "pods", "-l", "app", "-o", 'jsonpath={range .items[*]}{.metadata.name}{"\\t"}{.metadata.labels.app}{"\\n"}{end}');
  assert.equal(ranged.out, "a1\ta\na2\ta\nb1\tb\n");
  const filtered = await get(server.url, "pods", "-o", 'jsonpath={.items[?(@.metadata.labels.app=="b")].metadata.name}');
  assert.equal(filtered.out, "b1");
  const one = await get(server.url, "pods", "a1", "-o", "jsonpath={.status.podIP}");
  assert.equal(one.out, "10.0.0.7");
  await assert.rejects(runGetCommand(["pods", "-o", "jsonpath={.items[", "--server", server.url], capture().ctx), new TemplateError("error parsing jsonpath {.items[, unterminated array"));
  await assert.rejects(runGetCommand(["pods", "-o", "jsonpath=", "--server", server.url], capture().ctx), new TemplateError("template format specified but no template given"));
  await assert.rejects(runGetCommand(["pods", "a1", "-o", "jsonpath={.spec.containers[3]}", "--server", server.url], capture().ctx), /^TemplateError: error executing jsonpath "\{\.spec\.containers\[3\]\}": Error executing template: array index out of bounds: index 3, length 1/);
});

test("get -o custom-columns and the -file forms read kubectl's column specs", async (t) => {
  const { server } = await setup(t);
  const dir = await mkdtemp(join(tmpdir(), "probelet-get-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const columns = await get(server.url, "pods", "-l", "app=a", "-o", "custom-columns=NAME:.metadata.name,APP:metadata.labels.app,TIER:{.metadata.labels.tier},IMAGES:.spec.containers[*].image");
  assert.equal(columns.out, "NAME   APP   TIER     IMAGES\na1     a     fe       busybox\na2     a     <none>   busybox\n");
  await writeFile(join(dir, "cols"), "NAME   PHASE\n.metadata.name   .status.phase\n");
  const fromFile = await get(server.url, "pods", "-l", "app=b", "-o", `custom-columns-file=${join(dir, "cols")}`, "--no-headers");
  assert.equal(fromFile.out, "b1    Running\n");
  await writeFile(join(dir, "tmpl"), "{.metadata.name}");
  assert.equal((await get(server.url, "pods", "b1", "-o", `jsonpath-file=${join(dir, "tmpl")}`)).out, "b1");
  await assert.rejects(runGetCommand(["pods", "-o", "custom-columns=NAME", "--server", server.url], capture().ctx), new TemplateError("unexpected custom-columns spec: NAME, expected <header>:<json-path-expr>"));
  await assert.rejects(runGetCommand(["pods", "-o", "custom-columns=", "--server", server.url], capture().ctx), new TemplateError("custom-columns format specified but no custom columns given"));
  await assert.rejects(runGetCommand(["pods", "-o", `jsonpath-file=${join(dir, "missing")}`, "--server", server.url], capture().ctx), /^TemplateError: error reading template .*missing/);
});

/** serveTables answers GETs with a fixed body, recording each request's path and Accept header. */
async function serveTables(t: TestContext, body: (path: string) => unknown) {
  const seen: { path: string; accept: string }[] = [];
  const server = createServer((req, res) => {
    seen.push({ path: req.url ?? "", accept: req.headers.accept ?? "" });
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify(body(req.url ?? "")));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const NODE_TABLE = {
  kind: "Table",
  apiVersion: "meta.k8s.io/v1",
  metadata: {},
  columnDefinitions: [
    { name: "Name", type: "string", format: "name", description: "", priority: 0 },
    { name: "Status", type: "string", format: "", description: "", priority: 0 },
    { name: "Age", type: "string", format: "", description: "", priority: 0 },
    { name: "Internal-IP", type: "string", format: "", description: "", priority: 1 },
  ],
  rows: [{ cells: ["host1", "Ready", "3d", "10.0.0.1"], object: { metadata: { name: "host1", labels: { "kubernetes.io/os": "linux" } } } }],
};

test("get nodes, configmaps and namespaces print the server's Table; -o wide adds priority-1 columns; -A adds NAMESPACE", async (t) => {
  const cmTable = {
    ...NODE_TABLE,
    columnDefinitions: [{ name: "Name", priority: 0 }, { name: "Data", priority: 0 }, { name: "Age", priority: 0 }],
    rows: [{ cells: ["settings", 2, "1m"], object: { metadata: { name: "settings", namespace: "prod" } } }],
  };
  const { url, seen } = await serveTables(t, (path) => (path.includes("configmaps") ? cmTable : NODE_TABLE));
  assert.equal((await get(url, "nodes")).out, "NAME    STATUS   AGE\nhost1   Ready    3d\n");
  assert.equal(seen.at(-1)?.path, "/api/v1/nodes");
  assert.equal(seen.at(-1)?.accept, "application/json;as=Table;v=v1;g=meta.k8s.io,application/json");
  assert.equal((await get(url, "no", "-o", "wide", "--show-labels")).out, "NAME    STATUS   AGE   INTERNAL-IP   LABELS\nhost1   Ready    3d    10.0.0.1      kubernetes.io/os=linux\n");
  assert.equal((await get(url, "cm", "-A")).out, "NAMESPACE   NAME       DATA   AGE\nprod        settings   2      1m\n");
  assert.equal(seen.at(-1)?.path, "/api/v1/configmaps");
  await get(url, "configmaps", "-n", "prod", "-l", "app=x");
  assert.equal(seen.at(-1)?.path, "/api/v1/namespaces/prod/configmaps?labelSelector=app%3Dx");
  await get(url, "ns", "-n", "prod");
  assert.equal(seen.at(-1)?.path, "/api/v1/namespaces", "namespaces are cluster-scoped");
});

test("get of a type the server answers as a plain list prints NAME and AGE; -o name uses the lower-case kind", async (t) => {
  const list = { kind: "SecretList", apiVersion: "v1", metadata: {}, items: [{ metadata: { name: "token", namespace: "default", creationTimestamp: "2026-01-01T00:00:00Z" } }] };
  const { url, seen } = await serveTables(t, () => list);
  assert.equal((await get(url, "secrets")).out, "NAME    AGE\ntoken   5m\n");
  assert.equal((await get(url, "secret", "-o", "name")).out, "secret/token\n");
  assert.equal(seen.at(-1)?.accept, "application/json", "only tables ask for a Table");
});

test("get pods -w -l sends the selector on the watch too and prints only selected changes", async (t) => {
  const { api, server } = await setup(t);
  const { ctx, out, abort } = capture();
  const running = runGetCommand(["pods", "-w", "-l", "app=a", "--no-headers", "-o", "name", "--server", server.url], ctx);
  t.after(abort);
  // The agent has subscribed the watch: changes from now on reach it.
  for (let i = 0; i < 250 && api.watcherCount().pods === 0; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(server.requests.find((r) => r.query.get("watch") === "true")?.query.get("labelSelector"), "app=a");
  api.addPod(pod("b2", { app: "b" }));
  api.addPod(pod("a9", { app: "a" }));
  for (let i = 0; i < 250 && !out().includes("pod/a9"); i++) await new Promise((r) => setTimeout(r, 20));
  abort();
  assert.equal(await running, 0);
  assert.equal(out(), "pod/a1\npod/a2\npod/a9\n");
});
