import assert from "node:assert/strict";
import { after, test } from "node:test";
import type { Pod } from "../api/types.js";
import { silentLogger } from "../util/logger.js";
import { FakeClock } from "../../test/fakes/fake-clock.js";
import { FakeApiServer, waitUntil } from "../../test/cluster/fake-apiserver.js";
import { RestClient } from "../client/rest-client.js";
import { ApiPodSource } from "./api-pod-source.js";
import type { PodUpdate } from "./pod-updates.js";

const servers: FakeApiServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

function pod(name: string, uid: string, rv: string): Pod {
  return { apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "default", uid, resourceVersion: rv }, spec: { nodeName: "node-1", containers: [{ name: "app", image: "busybox" }] } };
}

test("a watch answered 410 Gone relists, and pods missing from the new list are removed", async () => {
  let lists = 0;
  const server = await FakeApiServer.start((r) => {
    if (!r.path.includes("watch=true")) {
      lists++;
      const items = lists === 1 ? [pod("a", "uid-a", "10"), pod("b", "uid-b", "11")] : [pod("a", "uid-a", "10")];
      return { code: 200, body: { kind: "PodList", metadata: { resourceVersion: lists === 1 ? "11" : "40" }, items } };
    }
    if (lists === 1) return { stream: (res) => res.end(`${JSON.stringify({ type: "ERROR", object: { kind: "Status", code: 410, reason: "Expired", message: "too old resource version: 11 (30)" } })}\n`) };
    return { stream: () => undefined };
  });
  servers.push(server);
  const updates: PodUpdate[] = [];
  const clock = new FakeClock();
  const source = new ApiPodSource({ client: new RestClient({ credentials: server.credentials, clock }), nodeName: "node-1", clock, logger: silentLogger, listener: (u) => updates.push(u), random: () => 0 });
  const stop = new AbortController();
  const running = source.run(stop.signal);
  await server.waitForRequests(2, (r) => r.path.includes("watch=true"));
  stop.abort();
  server.close().catch(() => undefined);
  await running;
  servers.pop();
  assert.deepEqual(updates.map((u) => `${u.op} ${u.pods[0]?.metadata.name ?? ""}`), ["ADD a", "ADD b", "REMOVE b"]);
  const paths = server.requests.map((r) => r.path);
  assert.ok(paths.every((p) => p.includes("fieldSelector=spec.nodeName%3Dnode-1")), paths.join("\n"));
  assert.match(paths[1]!, /allowWatchBookmarks=true.*resourceVersion=11$/);
  assert.match(paths[3]!, /resourceVersion=40$/);
});

test("a pod the API server starts deleting is emitted as DELETE with its grace period; a status-only change as RECONCILE", async () => {
  const events: string[] = [];
  const base = pod("a", "uid-a", "5");
  const server = await FakeApiServer.start((r) => {
    if (!r.path.includes("watch=true")) return { code: 200, body: { kind: "PodList", metadata: { resourceVersion: "5" }, items: [base] } };
    return {
      stream: (res) => {
        res.write(`${JSON.stringify({ type: "MODIFIED", object: { ...base, metadata: { ...base.metadata, resourceVersion: "6" }, status: { phase: "Running" } } })}\n`);
        res.write(`${JSON.stringify({ type: "BOOKMARK", object: { kind: "Pod", metadata: { resourceVersion: "9" } } })}\n`);
        res.write(`${JSON.stringify({ type: "MODIFIED", object: { ...base, metadata: { ...base.metadata, resourceVersion: "10", deletionTimestamp: "2026-01-01T00:00:30Z", deletionGracePeriodSeconds: 30 } } })}\n`);
      },
    };
  });
  servers.push(server);
  const clock = new FakeClock();
  const source = new ApiPodSource({ client: new RestClient({ credentials: server.credentials, clock }), nodeName: "node-1", clock, logger: silentLogger, listener: (u) => events.push(`${u.op} ${u.pods[0]?.metadata.deletionGracePeriodSeconds ?? "-"}`) });
  const stop = new AbortController();
  const running = source.run(stop.signal);
  await waitUntil("three pod updates", () => events.length >= 3);
  stop.abort();
  server.close().catch(() => undefined);
  servers.pop();
  await running;
  assert.deepEqual(events, ["ADD -", "RECONCILE -", "DELETE 30"]);
});

test("a failing list emits nothing (running pods stay) and is retried after the reflector's back-off", async () => {
  let fail = true;
  const server = await FakeApiServer.start((r) => {
    if (r.path.includes("watch=true")) return { stream: () => undefined };
    return fail ? { code: 503, body: { kind: "Status", code: 503, reason: "ServiceUnavailable", message: "etcd is away" } } : { code: 200, body: { kind: "PodList", metadata: { resourceVersion: "3" }, items: [pod("a", "uid-a", "3")] } };
  });
  servers.push(server);
  const updates: string[] = [];
  const clock = new FakeClock();
  const source = new ApiPodSource({ client: new RestClient({ credentials: server.credentials, clock }), nodeName: "node-1", clock, logger: silentLogger, listener: (u) => updates.push(`${u.op} ${u.pods[0]?.metadata.name ?? ""}`), random: () => 0 });
  const stop = new AbortController();
  const running = source.run(stop.signal);
  await server.waitForRequests(1);
  await waitUntil("the source to wait out its back-off", () => clock.pendingSleepers() > 0);
  assert.deepEqual(updates, []);
  fail = false;
  await clock.advance(799);
  assert.equal(server.requests.length, 1);
  await clock.advance(1);
  await server.waitForRequests(3);
  assert.deepEqual(updates, ["ADD a"]);
  stop.abort();
  server.close().catch(() => undefined);
  servers.pop();
  await running;
});

test("a watch cut in the middle of an event is opened again from the last resourceVersion seen, and an API server away meanwhile removes no pod", async () => {
  let watches = 0;
  const base = pod("a", "uid-a", "5");
  const server = await FakeApiServer.start((r) => {
    if (!r.path.includes("watch=true")) return { code: 200, body: { kind: "PodList", metadata: { resourceVersion: "5" }, items: [base] } };
    watches++;
    if (watches === 1) {
      return {
        stream: (res) => {
          res.write(`${JSON.stringify({ type: "BOOKMARK", object: { kind: "Pod", metadata: { resourceVersion: "8" } } })}\n`);
          res.write(`{"type":"MODIFIED","object":{"metadata":{"name":"a","resourceVer`);
          setImmediate(() => res.socket?.destroy());
        },
      };
    }
    if (watches === 2) return { code: 503, body: { kind: "Status", code: 503, reason: "ServiceUnavailable", message: "the server is shutting down" } };
    return { stream: () => undefined };
  });
  servers.push(server);
  const updates: string[] = [];
  const clock = new FakeClock();
  const source = new ApiPodSource({ client: new RestClient({ credentials: server.credentials, clock }), nodeName: "node-1", clock, logger: silentLogger, listener: (u) => updates.push(`${u.op} ${u.pods[0]?.metadata.name ?? ""}`), random: () => 0 });
  const stop = new AbortController();
  const running = source.run(stop.signal);
  // The cut and the refusal each back off (at most the reflector's 30 s) before the next watch.
  const watchCount = (): number => server.requests.filter((r) => r.path.includes("watch=true")).length;
  for (let i = 0; i < 10 && watchCount() < 3; i++) {
    await waitUntil("a back-off or the third watch", () => clock.pendingSleepers() > 0 || watchCount() >= 3);
    if (clock.pendingSleepers() > 0) await clock.advance(30_000);
  }
  await server.waitForRequests(3, (r) => r.path.includes("watch=true"));
  stop.abort();
  server.close().catch(() => undefined);
  servers.pop();
  await running;
  const paths = server.requests.map((r) => r.path);
  assert.equal(paths.filter((p) => !p.includes("watch=true")).length, 1, `no relist:\n${paths.join("\n")}`);
  assert.match(paths[2]!, /watch=true.*resourceVersion=8$/);
  assert.match(paths[3]!, /watch=true.*resourceVersion=8$/);
  assert.deepEqual(updates, ["ADD a"]);
});
