import assert from "node:assert/strict";
import { after, test } from "node:test";
import type { Pod } from "../api/types.js";
import { silentLogger } from "../util/logger.js";
import { FakeClock } from "../../test/fakes/fake-clock.js";
import { FakeApiServer, statusBody, waitUntil } from "../../test/cluster/fake-apiserver.js";
import { RestClient } from "../client/rest-client.js";
import { ANNOTATION_CONFIG_MIRROR as MIRROR_ANNOTATION } from "../api/mirror-pod.js";
import { MirrorPods } from "./mirror-pods.js";

const servers: FakeApiServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

const staticPod: Pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "web", namespace: "default", uid: "hash-2" }, spec: { containers: [{ name: "app", image: "busybox" }] }, status: { phase: "Running" } };

/**
 * mirrorApiServer serves one pod slot as the API server keeps it (POST: AlreadyExists when taken,
 * else stored with the next UID; GET; DELETE empties it) and runs MirrorPods against it.
 */
async function mirrorApiServer(initial: Pod | undefined, uidOf: (made: number) => string) {
  const state = { existing: initial, made: 0 };
  const server = await FakeApiServer.start((r) => {
    if (r.method === "POST") {
      if (state.existing !== undefined) return { code: 409, body: statusBody(409, "AlreadyExists", 'pods "web" already exists') };
      state.existing = { ...(r.body as Pod), metadata: { ...(r.body as Pod).metadata, uid: uidOf(++state.made) } };
      return { code: 201, body: state.existing };
    }
    if (r.method === "GET") return state.existing === undefined ? { code: 404, body: statusBody(404, "NotFound", "") } : { code: 200, body: state.existing };
    if (r.method === "DELETE") {
      state.existing = undefined;
      return { code: 200, body: {} };
    }
    return { code: 500, body: statusBody(500, "InternalError", "unexpected") };
  });
  servers.push(server);
  const statuses: Pod[] = [];
  const mirrors = new MirrorPods({
    client: new RestClient({ credentials: server.credentials, clock: new FakeClock() }),
    nodeName: "node-1",
    nodeUid: Promise.resolve("node-uid"),
    sink: { statusChanged: (p) => statuses.push(p), podTerminated: () => undefined },
    logger: silentLogger,
  });
  return { state, server, statuses, mirrors };
}

test("a mirror of another version of the static pod is deleted and made again, owned by the Node, and gets the static pod's status", async () => {
  const { server, statuses, mirrors } = await mirrorApiServer({ ...staticPod, metadata: { name: "web", namespace: "default", uid: "mirror-old", annotations: { [MIRROR_ANNOTATION]: "hash-1" } } }, () => "mirror-new");
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

for (const how of ["deleted gracefully (the node removes it)", "force-deleted"] as const) {
  test(`a mirror pod ${how} in the API server is made again at once with the static pod's status (kubelet tryReconcileMirrorPods)`, async () => {
    const { state, server, statuses, mirrors } = await mirrorApiServer(undefined, (made) => `mirror-${made}`);
    mirrors.handle({ type: "ADDED", object: staticPod });
    await waitUntil("the first mirror", () => statuses.length === 1);
    const first = state.existing!;
    if (how === "force-deleted") {
      state.existing = undefined;
      mirrors.mirrorGone(first);
    } else {
      mirrors.mirrorDeleting({ ...first, metadata: { ...first.metadata, deletionTimestamp: "2026-01-01T00:00:30Z", deletionGracePeriodSeconds: 30 } });
    }
    await waitUntil("the mirror made again", () => statuses.length === 2);
    assert.equal(statuses[1]!.metadata.uid, "mirror-2");
    assert.equal(statuses[1]!.status?.phase, "Running");
    assert.deepEqual(server.requests.map((r) => r.method), how === "force-deleted" ? ["POST", "POST"] : ["POST", "DELETE", "POST"]);
    if (how !== "force-deleted") assert.deepEqual((server.requests[1]!.body as { gracePeriodSeconds: number; preconditions: unknown }), { kind: "DeleteOptions", apiVersion: "v1", gracePeriodSeconds: 0, preconditions: { uid: "mirror-1" } });
    mirrors.close();
  });
}
