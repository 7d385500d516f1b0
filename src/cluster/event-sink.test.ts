import assert from "node:assert/strict";
import { after, test } from "node:test";
import type { Pod } from "../api/types.js";
import { EventStore } from "../agent/kube-events.js";
import type { KubeEvent } from "../apiserver/endpoints/host-interface.js";
import { EVENTS } from "../apiserver/resources/events.js";
import { newApiStore } from "../apiserver/resources/registry.js";
import { ObjectStore } from "../apiserver/storage/object-store.js";
import { silentLogger } from "../util/logger.js";
import { FakeClock } from "../../test/fakes/fake-clock.js";
import { FakeApiServer, waitUntil } from "../../test/cluster/fake-apiserver.js";
import { RestClient } from "../client/rest-client.js";
import { EVENT_RETRY_SLEEP_MS, EventSink } from "./event-sink.js";

const servers: FakeApiServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

/** recorderAndSink is the agent's event recorder writing into a store whose events the sink sends, as the store bridge wires them. */
function recorderAndSink(server: FakeApiServer, clock: FakeClock): { store: EventStore; sink: EventSink } {
  const objects = newApiStore(new ObjectStore(clock));
  const sink = new EventSink({ client: new RestClient({ credentials: server.credentials, clock }), clock, logger: silentLogger });
  objects.watch<KubeEvent>(EVENTS.name, {}, (e) => (e.type === "DELETED" ? undefined : sink.send({ type: e.type, object: e.object })));
  return { store: new EventStore(clock, "node-1", objects), sink };
}

const pod: Pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "web", namespace: "default", uid: "u1" }, spec: { containers: [{ name: "app", image: "busybox" }] } };

test("a new event is POSTed as the kubelet's and a repeat PATCHes its count", async () => {
  const server = await FakeApiServer.start((r) => ({ code: r.method === "POST" ? 201 : 200, body: r.body ?? {} }));
  servers.push(server);
  const clock = new FakeClock();
  const { store, sink } = recorderAndSink(server, clock);
  store.event({ pod, containerName: "app" }, "Warning", "Unhealthy", "Readiness probe failed: boom");
  await server.waitForRequests(1);
  await clock.advance(1000);
  store.event({ pod, containerName: "app" }, "Warning", "Unhealthy", "Readiness probe failed: boom");
  const [post, patch] = await server.waitForRequests(2);
  sink.close();
  assert.equal(post!.path, "/api/v1/namespaces/default/events");
  const event = post!.body as { source: unknown; involvedObject: { fieldPath: string }; reason: string; count: number };
  assert.deepEqual(event.source, { component: "kubelet", host: "node-1" });
  assert.equal(event.involvedObject.fieldPath, "spec.containers{app}");
  assert.equal(patch!.method, "PATCH");
  assert.equal(patch!.contentType, "application/strategic-merge-patch+json");
  assert.equal((patch!.body as { count: number }).count, 2);
});

test("an event that did not reach the API server is sent again after 10 s", async () => {
  let down = true;
  const server = await FakeApiServer.start((r) => (down ? { stream: (res) => res.destroy() } : { code: 201, body: r.body ?? {} }));
  servers.push(server);
  const clock = new FakeClock();
  const { store, sink } = recorderAndSink(server, clock);
  store.event({ pod }, "Normal", "Scheduled", "hello");
  await server.waitForRequests(1);
  await waitUntil("the sink to sleep before its next try", () => clock.pendingSleepers() > 0);
  down = false;
  await clock.advance(EVENT_RETRY_SLEEP_MS);
  await server.waitForRequests(2);
  sink.close();
});
