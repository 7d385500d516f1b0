import assert from "node:assert/strict";
import { after, test } from "node:test";
import { silentLogger } from "../util/logger.js";
import { FakeClock } from "../../test/fakes/fake-clock.js";
import { FakeApiServer, statusBody } from "../../test/cluster/fake-apiserver.js";
import { RestClient } from "../client/rest-client.js";
import { LEASE_RENEW_INTERVAL_MS, NodeLease } from "./node-lease.js";

const LEASE_PATH = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-1";
const servers: FakeApiServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

test("a missing lease is created with a 40 s duration and an owner reference to the Node, then renewed by PUT every 10 s", async () => {
  let stored: unknown;
  const server = await FakeApiServer.start((r) => {
    if (r.method === "GET") return stored === undefined ? { code: 404, body: statusBody(404, "NotFound", 'leases.coordination.k8s.io "node-1" not found') } : { code: 200, body: stored };
    stored = r.body;
    return { code: r.method === "POST" ? 201 : 200, body: r.body };
  });
  servers.push(server);
  const clock = new FakeClock(Date.UTC(2026, 0, 1, 12, 0, 0));
  const lease = new NodeLease({ client: new RestClient({ credentials: server.credentials, clock }), nodeName: "node-1", clock, logger: silentLogger, nodeUid: () => "node-uid", random: () => 0 });
  const stop = new AbortController();
  const running = lease.run(stop.signal);
  const [created] = await server.waitForRequests(1, (r) => r.method === "POST");
  assert.deepEqual(created!.body, {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: { name: "node-1", namespace: "kube-node-lease", ownerReferences: [{ apiVersion: "v1", kind: "Node", name: "node-1", uid: "node-uid" }] },
    spec: { holderIdentity: "node-1", leaseDurationSeconds: 40, renewTime: "2026-01-01T12:00:00.000000Z" },
  });
  assert.equal(server.requests.filter((r) => r.method === "PUT").length, 0);
  await clock.advance(LEASE_RENEW_INTERVAL_MS - 1);
  assert.equal(server.requests.filter((r) => r.method === "PUT").length, 0);
  await clock.advance(1);
  const [put] = await server.waitForRequests(1, (r) => r.method === "PUT");
  assert.equal(put!.path, LEASE_PATH);
  assert.equal((put!.body as { spec: { renewTime: string } }).spec.renewTime, "2026-01-01T12:00:10.000000Z");
  stop.abort();
  await running;
});

test("a renewal that fails falls back to reading the lease and updates it again", async () => {
  let failPuts = 1;
  const existing = { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "node-1", namespace: "kube-node-lease", resourceVersion: "7" }, spec: { holderIdentity: "node-1" } };
  const server = await FakeApiServer.start((r) => {
    if (r.method === "GET") return { code: 200, body: existing };
    if (r.method === "PUT" && failPuts-- > 0) return { code: 500, body: statusBody(500, "InternalError", "etcd timeout") };
    return { code: 200, body: r.body };
  });
  servers.push(server);
  const clock = new FakeClock();
  const lease = new NodeLease({ client: new RestClient({ credentials: server.credentials, clock }), nodeName: "node-1", clock, logger: silentLogger, nodeUid: () => undefined });
  const signal = new AbortController().signal;
  await lease.sync(signal);
  assert.deepEqual(server.requests.map((r) => r.method), ["GET", "PUT", "PUT"]);
  await lease.sync(signal);
  assert.deepEqual(server.requests.map((r) => r.method), ["GET", "PUT", "PUT", "PUT"]);
});
