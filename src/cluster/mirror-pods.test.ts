import assert from "node:assert/strict";
import { after, test } from "node:test";
import type { Pod } from "../api/types.js";
import { silentLogger } from "../util/logger.js";
import { FakeClock } from "../../test/fakes/fake-clock.js";
import { FakeApiServer, statusBody, waitUntil } from "../../test/cluster/fake-apiserver.js";
import { ApiClient } from "./api-client.js";
import { MIRROR_ANNOTATION, MirrorPods } from "./mirror-pods.js";

const servers: FakeApiServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

const staticPod: Pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "web", namespace: "default", uid: "hash-2" }, spec: { containers: [{ name: "app", image: "busybox" }] }, status: { phase: "Running" } };

test("a mirror of another version of the static pod is deleted and made again, owned by the Node, and gets the static pod's status", async () => {
  let existing: Pod | undefined = { ...staticPod, metadata: { name: "web", namespace: "default", uid: "mirror-old", annotations: { [MIRROR_ANNOTATION]: "hash-1" } } };
  const server = await FakeApiServer.start((r) => {
    if (r.method === "POST") {
      if (existing !== undefined) return { code: 409, body: statusBody(409, "AlreadyExists", 'pods "web" already exists') };
      existing = { ...(r.body as Pod), metadata: { ...(r.body as Pod).metadata, uid: "mirror-new" } };
      return { code: 201, body: existing };
    }
    if (r.method === "GET") return existing === undefined ? { code: 404, body: statusBody(404, "NotFound", "") } : { code: 200, body: existing };
    if (r.method === "DELETE") {
      existing = undefined;
      return { code: 200, body: {} };
    }
    return { code: 500, body: statusBody(500, "InternalError", "unexpected") };
  });
  servers.push(server);
  const statuses: Pod[] = [];
  const mirrors = new MirrorPods({
    client: new ApiClient({ credentials: server.credentials, clock: new FakeClock() }),
    nodeName: "node-1",
    nodeUid: Promise.resolve("node-uid"),
    sink: { statusChanged: (p) => statuses.push(p), podTerminated: () => undefined },
    logger: silentLogger,
  });
  mirrors.handle({ type: "MODIFIED", object: staticPod });
  await waitUntil("the static pod's status on the mirror", () => statuses.length === 1);
  assert.deepEqual(server.requests.map((r) => r.method), ["POST", "GET", "DELETE", "POST"]);
  assert.deepEqual((server.requests[2]!.body as { preconditions: unknown }).preconditions, { uid: "mirror-old" });
  const created = server.requests[3]!.body as Pod & { metadata: { ownerReferences: unknown } };
  assert.equal(created.spec.nodeName, "node-1");
  assert.equal(created.metadata.annotations?.[MIRROR_ANNOTATION], "hash-2");
  assert.deepEqual(created.metadata.ownerReferences, [{ apiVersion: "v1", kind: "Node", name: "node-1", uid: "node-uid", controller: true }]);
  assert.equal(statuses[0]!.metadata.uid, "mirror-new");
  assert.equal(statuses[0]!.status?.phase, "Running");
});
