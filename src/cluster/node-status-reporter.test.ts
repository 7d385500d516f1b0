import assert from "node:assert/strict";
import { after, test } from "node:test";
import { silentLogger } from "../util/logger.js";
import { FakeClock } from "../../test/fakes/fake-clock.js";
import { FakeApiServer, statusBody, type RecordedRequest } from "../../test/cluster/fake-apiserver.js";
import { RestClient } from "../client/rest-client.js";
import type { NodeCondition, NodeIdentity, NodeObject, NodeStatus } from "./node-object.js";
import { NODE_STATUS_REPORT_PERIOD_MS, NODE_STATUS_UPDATE_PERIOD_MS, NodeStatusReporter, withDefaultLabels } from "./node-status-reporter.js";

const servers: FakeApiServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

const identity: NodeIdentity = { name: "node-1", internalIP: "192.0.2.7", hostname: "node-1", kubeletPort: 10250, containerRuntimeVersion: "process://probelet", kubeletVersion: "v0", stateDir: "/", taints: [{ key: "probelet.dev/runtime", value: "process", effect: "NoSchedule" }] };

/** apiServer keeps one Node: POST creates it (or 409), GET returns it, PATCH applies the status conditions and keeps the rest. */
async function apiServer(existing: boolean): Promise<FakeApiServer> {
  let node: NodeObject | undefined = existing ? { apiVersion: "v1", kind: "Node", metadata: { name: "node-1", uid: "old" }, spec: {}, status: { conditions: [{ type: "NetworkUnavailable", status: "False", reason: "RouteCreated", message: "", lastHeartbeatTime: "", lastTransitionTime: "" }] } as NodeStatus } : undefined;
  const server = await FakeApiServer.start((r: RecordedRequest) => {
    if (r.method === "POST") {
      if (node !== undefined) return { code: 409, body: statusBody(409, "AlreadyExists", 'nodes "node-1" already exists') };
      node = { ...(r.body as NodeObject), metadata: { ...(r.body as NodeObject).metadata, uid: "new" } };
      return { code: 201, body: node };
    }
    if (r.method === "GET") return { code: 200, body: node };
    if (r.method === "PATCH") {
      const patch = (r.body as { status: { conditions?: NodeCondition[] } }).status;
      const conditions = [...(node!.status?.conditions ?? [])];
      for (const c of patch.conditions ?? []) {
        const i = conditions.findIndex((k) => k.type === c.type);
        if (i >= 0) conditions[i] = { ...conditions[i]!, ...c };
        else conditions.push(c);
      }
      node = { ...node!, status: { ...node!.status!, ...(patch as object), conditions } };
      return { code: 200, body: node };
    }
    return { code: 500, body: statusBody(500, "InternalError", "unexpected") };
  });
  servers.push(server);
  return server;
}

test("registration POSTs the Node with its labels, taint, addresses, daemon port and the four conditions", async () => {
  const server = await apiServer(false);
  const clock = new FakeClock();
  const reporter = new NodeStatusReporter({ client: new RestClient({ credentials: server.credentials, clock }), identity, health: () => ({ runtimeErrors: [] }), clock, logger: silentLogger });
  const node = await reporter.register(new AbortController().signal);
  assert.equal(node?.metadata.uid, "new");
  const posted = server.requests[0]!.body as NodeObject;
  assert.equal(posted.metadata.labels?.["kubernetes.io/hostname"], "node-1");
  assert.ok(posted.metadata.labels?.["kubernetes.io/os"] !== undefined && posted.metadata.labels["kubernetes.io/arch"] !== undefined);
  assert.deepEqual(posted.spec.taints, identity.taints);
  assert.deepEqual(posted.status?.addresses, [{ type: "InternalIP", address: "192.0.2.7" }, { type: "Hostname", address: "node-1" }]);
  assert.deepEqual(posted.status?.daemonEndpoints, { kubeletEndpoint: { Port: 10250 } });
  assert.deepEqual(posted.status?.conditions.map((c) => `${c.type}=${c.status}/${c.reason}`), ["MemoryPressure=False/KubeletHasSufficientMemory", "DiskPressure=False/KubeletHasNoDiskPressure", "PIDPressure=False/KubeletHasSufficientPID", "Ready=True/KubeletReady"]);
  assert.equal(posted.status?.conditions[3]?.message, "kubelet is posting ready status");
});

test("an existing Node is read and its status patched, keeping the conditions others own", async () => {
  const server = await apiServer(true);
  const clock = new FakeClock();
  const reporter = new NodeStatusReporter({ client: new RestClient({ credentials: server.credentials, clock }), identity, health: () => ({ runtimeErrors: [] }), clock, logger: silentLogger });
  const node = await reporter.register(new AbortController().signal);
  assert.deepEqual(server.requests.map((r) => r.method), ["POST", "GET", "PATCH"]);
  assert.equal(server.requests[2]!.path, "/api/v1/nodes/node-1/status");
  assert.deepEqual(node?.status?.conditions.map((c) => c.type), ["NetworkUnavailable", "MemoryPressure", "DiskPressure", "PIDPressure", "Ready"]);
});

test("an existing Node made by someone else with a status but no conditions (kubectl create) is read and patched, not a registration failure", { timeout: 10_000 }, async () => {
  let patched: NodeObject | undefined;
  const server = await FakeApiServer.start((r) => {
    if (r.method === "POST") return { code: 409, body: statusBody(409, "AlreadyExists", 'nodes "node-1" already exists') };
    if (r.method === "GET") return { code: 200, body: { apiVersion: "v1", kind: "Node", metadata: { name: "node-1", uid: "admin-made" }, spec: { unschedulable: true }, status: { daemonEndpoints: { kubeletEndpoint: { Port: 0 } }, nodeInfo: {} } } };
    patched = { apiVersion: "v1", kind: "Node", metadata: { name: "node-1", uid: "admin-made" }, spec: {}, status: (r.body as NodeObject).status! };
    return { code: 200, body: patched };
  });
  servers.push(server);
  const clock = new FakeClock();
  const reporter = new NodeStatusReporter({ client: new RestClient({ credentials: server.credentials, clock }), identity, health: () => ({ runtimeErrors: [] }), clock, logger: silentLogger });
  const node = await reporter.register(new AbortController().signal);
  assert.equal(node?.metadata.uid, "admin-made");
  assert.equal(patched?.status?.conditions.find((c) => c.type === "Ready")?.status, "True");
});

test("an existing Node without the default labels gets hostname, os and arch in its status patch (updateDefaultLabels); its other labels stay", { timeout: 10_000 }, async () => {
  let patch: { metadata?: { labels?: Record<string, string | null> } } | undefined;
  const server = await FakeApiServer.start((r) => {
    if (r.method === "POST") return { code: 409, body: statusBody(409, "AlreadyExists", 'nodes "node-1" already exists') };
    const node = { apiVersion: "v1", kind: "Node", metadata: { name: "node-1", uid: "admin-made", labels: { team: "a", "kubernetes.io/hostname": "stale" } }, spec: {}, status: { conditions: [] } };
    if (r.method === "GET") return { code: 200, body: node };
    patch = r.body as typeof patch;
    return { code: 200, body: { ...node, status: (r.body as NodeObject).status } };
  });
  servers.push(server);
  const clock = new FakeClock();
  const reporter = new NodeStatusReporter({ client: new RestClient({ credentials: server.credentials, clock }), identity, health: () => ({ runtimeErrors: [] }), clock, logger: silentLogger });
  await reporter.register(new AbortController().signal);
  const labels = patch?.metadata?.labels ?? {};
  assert.equal(labels["kubernetes.io/hostname"], "node-1");
  assert.ok(labels["kubernetes.io/os"] && labels["kubernetes.io/arch"]);
  assert.equal("team" in labels, false, "a label the patch does not change is not in it");
});

test("withDefaultLabels changes nothing when the Node already has the default labels", () => {
  const defaults = { "kubernetes.io/hostname": "n", "kubernetes.io/os": "linux" };
  assert.equal(withDefaultLabels({ ...defaults, team: "a" }, defaults), undefined);
  assert.deepEqual(withDefaultLabels({ team: "a" }, defaults), { team: "a", ...defaults });
});

test("node status is PATCHed only when it changed or the 5-minute report period passed", async () => {
  const server = await apiServer(false);
  const clock = new FakeClock();
  let errors: string[] = [];
  const reporter = new NodeStatusReporter({ client: new RestClient({ credentials: server.credentials, clock }), identity, health: () => ({ runtimeErrors: errors }), clock, logger: silentLogger });
  await reporter.register(new AbortController().signal);
  const patches = (): number => server.requests.filter((r) => r.method === "PATCH").length;
  await clock.advance(NODE_STATUS_UPDATE_PERIOD_MS);
  await reporter.updateNodeStatus();
  assert.equal(patches(), 0, "an unchanged status is not sent");
  assert.match(server.requests.at(-1)!.path, /\?resourceVersion=0$/);
  errors = ["container runtime is down"];
  await reporter.updateNodeStatus();
  assert.equal(patches(), 1, "a changed status is sent");
  assert.equal(reporter.lastReported?.conditions.find((c) => c.type === "Ready")?.status, "False");
  await clock.advance(NODE_STATUS_REPORT_PERIOD_MS - 1);
  await reporter.updateNodeStatus();
  assert.equal(patches(), 1);
  await clock.advance(1);
  await reporter.updateNodeStatus();
  assert.equal(patches(), 2, "the report period sends an unchanged status");
});
