import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { after, test } from "node:test";
import { silentLogger } from "../util/logger.js";
import { FakeClock } from "../../test/fakes/fake-clock.js";
import { FakeApiServer, waitUntil, type RecordedRequest } from "../../test/cluster/fake-apiserver.js";
import { RestClient } from "../client/rest-client.js";
import { ApiServices } from "./api-services.js";

const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const c of cleanups) await c();
});

test("the node's services: none before the first list, then the list and the watch's changes", async () => {
  let watch: ServerResponse | undefined;
  const server = await FakeApiServer.start((r: RecordedRequest) => {
    if (r.path.includes("watch=true")) return { stream: (res) => void (watch = res) };
    return {
      code: 200,
      body: { kind: "ServiceList", metadata: { resourceVersion: "5" }, items: [{ metadata: { name: "kubernetes", namespace: "default", resourceVersion: "1" }, spec: { clusterIP: "10.96.0.1", ports: [{ port: 443 }] } }] },
    };
  });
  const clock = new FakeClock();
  const client = new RestClient({ credentials: server.credentials, clock });
  const services = new ApiServices({ client, clock, logger: silentLogger, random: () => 0 });
  cleanups.push(async () => {
    await services.close();
    client.close();
    await server.close();
  });
  assert.equal(services.services(), undefined, "not read yet");
  services.start();
  await waitUntil("the first list", () => services.services() !== undefined);
  assert.deepEqual(services.services()!.map((s) => s.metadata.name), ["kubernetes"]);
  assert.equal(server.requests[0]!.path, "/api/v1/services");
  await waitUntil("the watch", () => watch !== undefined);
  assert.match(server.requests.at(-1)!.path, /^\/api\/v1\/services\?watch=true&/, "a collection without a query gets one");
  watch!.write(`${JSON.stringify({ type: "ADDED", object: { metadata: { name: "fooservice", namespace: "apps", resourceVersion: "6" }, spec: { clusterIP: "10.96.0.20", ports: [{ port: 8765 }] } } })}\n`);
  await waitUntil("the added service", () => services.services()!.length === 2);
  watch!.write(`${JSON.stringify({ type: "DELETED", object: { metadata: { name: "kubernetes", namespace: "default", resourceVersion: "7" } } })}\n`);
  await waitUntil("the deleted service", () => services.services()!.length === 1);
  assert.deepEqual(services.services()!.map((s) => `${s.metadata.namespace ?? ""}/${s.metadata.name ?? ""}`), ["apps/fooservice"]);
});
