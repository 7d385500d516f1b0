import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { after, test } from "node:test";
import type { Pod } from "../api/types.js";
import { createLogger, silentLogger } from "../util/logger.js";
import type { ConfigObjectChange } from "../volumes/config-objects.js";
import { FakeClock } from "../../test/fakes/fake-clock.js";
import { FakeApiServer, statusBody, waitUntil, type FakeAnswer, type RecordedRequest } from "../../test/cluster/fake-apiserver.js";
import { RestClient } from "../client/rest-client.js";
import { ApiConfigObjects, SYNC_WAIT_MS } from "./api-config-objects.js";

const servers: FakeApiServer[] = [];
const stops: (() => Promise<void>)[] = [];
after(async () => {
  for (const stop of stops) await stop();
  for (const s of servers) await s.close();
});

function pod(uid: string, refs: { configMap?: string; secret?: string; volumeConfigMap?: string }): Pod {
  const env = [
    ...(refs.configMap ? [{ name: "A", valueFrom: { configMapKeyRef: { name: refs.configMap, key: "a" } } }] : []),
    ...(refs.secret ? [{ name: "P", valueFrom: { secretKeyRef: { name: refs.secret, key: "p" } } }] : []),
  ];
  const volumes = refs.volumeConfigMap ? [{ name: "v", configMap: { name: refs.volumeConfigMap } }] : [];
  return { apiVersion: "v1", kind: "Pod", metadata: { name: `pod-${uid}`, namespace: "apps", uid }, spec: { containers: [{ name: "app", env }], volumes } };
}

/** serve answers lists from `lists` (by resource) and keeps each watch open, handing its response to `watches`. */
async function serve(lists: (path: string) => FakeAnswer, watches: Map<string, ServerResponse>): Promise<FakeApiServer> {
  const server = await FakeApiServer.start((r: RecordedRequest) => {
    if (!r.path.includes("watch=true")) return lists(r.path);
    return { stream: (res) => void watches.set(r.path.split("?")[0]!, res) };
  });
  servers.push(server);
  return server;
}

async function start(server: FakeApiServer, logger = silentLogger): Promise<{ objects: ApiConfigObjects; clock: FakeClock; changes: ConfigObjectChange[] }> {
  const clock = new FakeClock();
  const client = new RestClient({ credentials: server.credentials, clock });
  const objects = new ApiConfigObjects({ client, clock, logger, random: () => 0 });
  const changes: ConfigObjectChange[] = [];
  objects.onChange((c) => changes.push(c));
  stops.push(async () => {
    await objects.close();
    client.close();
  });
  return { objects, clock, changes };
}

test("a registered pod's ConfigMap and Secret are each listed and watched by name in its namespace, a change is read and notified, and no log line carries a value", async () => {
  const watches = new Map<string, ServerResponse>();
  const server = await serve((path) => {
    if (path.startsWith("/api/v1/namespaces/apps/configmaps")) return { code: 200, body: { kind: "ConfigMapList", metadata: { resourceVersion: "7" }, items: [{ metadata: { name: "cfg", namespace: "apps", resourceVersion: "5" }, data: { a: "one" } }] } };
    return { code: 200, body: { kind: "SecretList", metadata: { resourceVersion: "7" }, items: [{ metadata: { name: "db", namespace: "apps", resourceVersion: "6" }, data: { p: Buffer.from("hunter2").toString("base64") } }] } };
  }, watches);
  const lines: string[] = [];
  const { objects, changes } = await start(server, createLogger({ level: "trace", write: (l) => lines.push(l) }));
  const p = pod("u1", { configMap: "cfg", secret: "db" });
  objects.registerPod(p);
  await objects.synced(p);
  assert.deepEqual(objects.configMap("apps", "cfg")?.data, { a: "one" });
  assert.equal(objects.secret("apps", "db")?.data?.["p"], Buffer.from("hunter2").toString("base64"));
  const paths = server.requests.map((r) => r.path).sort();
  assert.deepEqual(paths.filter((x) => !x.includes("watch=true")), ["/api/v1/namespaces/apps/configmaps?fieldSelector=metadata.name%3Dcfg", "/api/v1/namespaces/apps/secrets?fieldSelector=metadata.name%3Ddb"]);
  await waitUntil("both watches", () => watches.size === 2);
  assert.ok(paths.some((x) => x.startsWith("/api/v1/namespaces/apps/configmaps?fieldSelector=metadata.name%3Dcfg&watch=true&allowWatchBookmarks=true") && x.endsWith("resourceVersion=7")), paths.join("\n"));
  changes.length = 0;
  watches.get("/api/v1/namespaces/apps/configmaps")!.write(`${JSON.stringify({ type: "MODIFIED", object: { metadata: { name: "cfg", namespace: "apps", resourceVersion: "9" }, data: { a: "two" } } })}\n`);
  await waitUntil("the change", () => changes.length === 1);
  assert.deepEqual(changes, [{ kind: "ConfigMap", namespace: "apps", name: "cfg" }]);
  assert.deepEqual(objects.configMap("apps", "cfg")?.data, { a: "two" });
  watches.get("/api/v1/namespaces/apps/secrets")!.write(`${JSON.stringify({ type: "DELETED", object: { metadata: { name: "db", namespace: "apps", resourceVersion: "10" }, data: { p: "aHVudGVyMg==" } } })}\n`);
  await waitUntil("the deletion", () => changes.length === 2);
  assert.equal(objects.secret("apps", "db"), undefined);
  assert.ok(!lines.some((l) => l.includes("hunter2") || l.includes("aHVudGVyMg")), lines.join(""));
});

test("before its first list an object reads as the kubelet's sync error, synced() waits at most a second for it, and a refused list is retried with back-off", async () => {
  let refuse = true;
  const watches = new Map<string, ServerResponse>();
  const server = await serve(() => (refuse ? { code: 403, body: statusBody(403, "Forbidden", 'configmaps "cfg" is forbidden: User "system:node:n" cannot list resource "configmaps" in API group "" in the namespace "apps": no relationship found between node \'n\' and this object') } : { code: 200, body: { kind: "ConfigMapList", metadata: { resourceVersion: "3" }, items: [] } }), watches);
  const { objects, clock, changes } = await start(server);
  const p = pod("u1", { volumeConfigMap: "cfg" });
  objects.registerPod(p);
  let waited = false;
  const waiting = objects.synced(p).then(() => (waited = true));
  await server.waitForRequests(1);
  await clock.advance(SYNC_WAIT_MS - 1);
  assert.equal(waited, false);
  await clock.advance(1);
  await waiting;
  assert.throws(() => objects.configMap("apps", "cfg"), { name: "ConfigObjectError", message: "failed to sync configmap cache: timed out waiting for the condition" });
  refuse = false;
  await waitUntil("the reflector to back off", () => clock.pendingSleepers() > 0);
  // However many refusals the first second saw, the back-off is at most the reflector's 30 s.
  await clock.advance(30_000);
  await waitUntil("the second list", () => changes.length === 1);
  assert.equal(objects.configMap("apps", "cfg"), undefined, "an object the API server does not have reads as absent (not found)");
  assert.throws(() => objects.secret("apps", "other"), { message: 'object "apps"/"other" not registered' });
});

test("an object stays watched while any registered pod references it and stops with the last one", async () => {
  const watches = new Map<string, ServerResponse>();
  const server = await serve(() => ({ code: 200, body: { kind: "ConfigMapList", metadata: { resourceVersion: "3" }, items: [] } }), watches);
  const { objects } = await start(server);
  const first = pod("u1", { configMap: "cfg" });
  const second = pod("u2", { volumeConfigMap: "cfg", secret: "db" });
  objects.registerPod(first);
  objects.registerPod(second);
  objects.registerPod(second);
  assert.equal(objects.watched, 2);
  await objects.synced(second);
  objects.unregisterPod(second);
  assert.equal(objects.watched, 1, "the secret only the second pod read is no longer watched");
  assert.equal(objects.configMap("apps", "cfg"), undefined);
  objects.unregisterPod(first);
  assert.equal(objects.watched, 0);
  assert.throws(() => objects.configMap("apps", "cfg"), /not registered/);
  assert.equal(server.requests.filter((r) => !r.path.includes("watch=true")).length, 2, "registering a pod again lists nothing again");
});

test("an immutable object is read once and then no longer watched, and its copy stays readable", async () => {
  const watches = new Map<string, ServerResponse>();
  const server = await serve(() => ({ code: 200, body: { kind: "SecretList", metadata: { resourceVersion: "4" }, items: [{ metadata: { name: "db", namespace: "apps", resourceVersion: "4" }, immutable: true, data: { p: "eA==" } }] } }), watches);
  const { objects } = await start(server);
  const p = pod("u1", { secret: "db" });
  objects.registerPod(p);
  await objects.synced(p);
  assert.equal(objects.secret("apps", "db")?.data?.["p"], "eA==");
  assert.deepEqual(server.requests.map((r) => r.path.includes("watch=true")), [false], "no watch of an immutable secret");
  objects.unregisterPod(p);
  assert.equal(objects.watched, 0);
});
