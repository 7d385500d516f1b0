import assert from "node:assert/strict";
import { after, test } from "node:test";
import type { Pod, PodCondition, PodStatus } from "../api/types.js";
import { silentLogger } from "../util/logger.js";
import { FakeClock } from "../../test/fakes/fake-clock.js";
import { FakeApiServer, statusBody, type FakeAnswer, type RecordedRequest } from "../../test/cluster/fake-apiserver.js";
import { RestClient } from "../client/rest-client.js";
import { ApiStatusSync, mergePodStatus } from "./api-status-sync.js";
import { mergeApiConditions } from "../agent/pod-conditions.js";

const UID = "0b1e7c1e-0000-4000-8000-000000000001";
const servers: FakeApiServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

function pod(status: PodStatus, uid = UID, deleting = false): Pod {
  return { apiVersion: "v1", kind: "Pod", metadata: { name: "web", namespace: "default", uid, ...(deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}) }, spec: { containers: [{ name: "app", image: "busybox" }] }, status };
}

const notReady: PodStatus = {
  phase: "Running",
  conditions: [
    { type: "Ready", status: "False", reason: "ContainersNotReady", message: "containers with unready status: [app]", lastTransitionTime: "2026-01-01T00:00:00Z" },
    { type: "PodScheduled", status: "True", lastTransitionTime: "2026-01-01T00:00:00Z" },
  ],
};
const ready: PodStatus = {
  phase: "Running",
  conditions: [
    { type: "Ready", status: "True", lastTransitionTime: "2026-01-01T00:00:05Z" },
    { type: "PodScheduled", status: "True", lastTransitionTime: "2026-01-01T00:00:00Z" },
  ],
};

async function setup(apiPod: () => Pod | undefined, onWrite: (r: RecordedRequest) => FakeAnswer = () => ({ code: 200, body: {} }), couldHaveRunningContainers?: (uid: string) => boolean): Promise<{ server: FakeApiServer; sync: ApiStatusSync; clock: FakeClock }> {
  const server = await FakeApiServer.start((r) => {
    if (r.method === "GET") {
      const current = apiPod();
      return current === undefined ? { code: 404, body: statusBody(404, "NotFound", 'pods "web" not found') } : { code: 200, body: current };
    }
    return onWrite(r);
  });
  servers.push(server);
  const clock = new FakeClock();
  const client = new RestClient({ credentials: server.credentials, clock });
  const sync = new ApiStatusSync({ client, clock, logger: silentLogger, ...(couldHaveRunningContainers !== undefined ? { couldHaveRunningContainers } : {}) });
  return { server, sync, clock };
}

test("a readiness flip is PATCHed as a two-way strategic merge patch that removes the stale reason and carries the UID precondition", async () => {
  const { server, sync } = await setup(() => pod(notReady));
  sync.statusChanged(pod(ready));
  const [patch] = await server.waitForRequests(1, (r) => r.method === "PATCH");
  assert.equal(patch!.path, "/api/v1/namespaces/default/pods/web/status");
  assert.equal(patch!.contentType, "application/strategic-merge-patch+json");
  const body = patch!.body as { metadata: unknown; status: Record<string, unknown> };
  assert.deepEqual(body.metadata, { uid: UID });
  const status = body.status;
  assert.deepEqual(status["$setElementOrder/conditions"], [{ type: "Ready" }, { type: "PodScheduled" }]);
  assert.deepEqual(status["conditions"], [{ type: "Ready", status: "True", lastTransitionTime: "2026-01-01T00:00:05Z", reason: null, message: null }]);
});

test("conditions the kubelet does not own stay in the merged status; the kubelet's own replace the API server's", () => {
  const api: PodStatus = { ...notReady, conditions: [...notReady.conditions!, { type: "example.com/gate", status: "True" }] };
  const merged = mergePodStatus(api, ready);
  assert.deepEqual(merged.conditions?.map((c) => `${c.type}=${c.status}`), ["example.com/gate=True", "Ready=True", "PodScheduled=True"]);
});

test("cluster mode merges the resize and restart-all conditions as the standalone agent does: the kubelet owns them, so the API server's stale ones go", () => {
  const stale: PodCondition[] = [{ type: "PodResizePending", status: "True" }, { type: "PodResizeInProgress", status: "True" }, { type: "AllContainersRestarting", status: "True" }, { type: "example.com/gate", status: "True" }];
  const api: PodStatus = { ...notReady, conditions: [...notReady.conditions!, ...stale] };
  const cluster = mergePodStatus(api, ready);
  const standalone = mergeApiConditions(ready, api) ?? ready;
  const types = (s: PodStatus) => (s.conditions ?? []).map((c) => `${c.type}=${c.status}`).sort();
  assert.deepEqual(types(cluster), ["PodScheduled=True", "Ready=True", "example.com/gate=True"]);
  assert.deepEqual(types(cluster), types(standalone));
});

test("a pod deleted and recreated under the same name with another UID is not patched", async () => {
  const { server, sync } = await setup(() => pod(notReady, "another-uid"));
  sync.statusChanged(pod(ready));
  await server.waitForRequests(1, (r) => r.method === "GET");
  await sync.idle();
  assert.deepEqual(server.requests.map((r) => r.method), ["GET"]);
});

test("a finished pod that the API server is deleting gets its final status and then DELETE with grace 0 and a UID precondition", async () => {
  const { server, sync } = await setup(() => pod(ready, UID, true));
  sync.podTerminated(pod({ ...notReady, phase: "Succeeded" }));
  const [del] = await server.waitForRequests(1, (r) => r.method === "DELETE");
  assert.deepEqual(del!.body, { kind: "DeleteOptions", apiVersion: "v1", gracePeriodSeconds: 0, preconditions: { uid: UID } });
  const methods = server.requests.map((r) => r.method);
  assert.ok(methods.indexOf("PATCH") >= 0 && methods.indexOf("PATCH") < methods.indexOf("DELETE"), methods.join(","));
});

test("a finished pod that nobody is deleting is not deleted from the API server", async () => {
  const { server, sync } = await setup(() => pod(notReady));
  sync.podTerminated(pod({ ...notReady, phase: "Succeeded" }));
  await server.waitForRequests(1, (r) => r.method === "PATCH");
  await sync.idle();
  assert.equal(server.requests.filter((r) => r.method === "DELETE").length, 0);
});

test("a patch the API server refused is sent again by the next syncBatch", async () => {
  let fail = true;
  const { server, sync, clock } = await setup(() => pod(notReady), () => (fail ? { code: 500, body: statusBody(500, "InternalError", "etcd is down") } : { code: 200, body: {} }));
  const stop = new AbortController();
  const running = sync.run(stop.signal);
  sync.statusChanged(pod(ready));
  await server.waitForRequests(1, (r) => r.method === "PATCH");
  await sync.idle();
  fail = false;
  await clock.advance(10_000);
  await server.waitForRequests(2, (r) => r.method === "PATCH");
  stop.abort();
  await running;
});

test("kubetypes.PodConditionByKubelet: the kubelet's AllContainersRestarting (RestartAllContainersOnContainerExits) reaches the API server and replaces the API server's", () => {
  const api: PodStatus = { ...notReady, conditions: [...notReady.conditions!, { type: "AllContainersRestarting", status: "True", reason: "RestartAllContainersStarted" }] };
  const ours: PodStatus = { ...ready, conditions: [...ready.conditions!, { type: "AllContainersRestarting", status: "False" }] };
  const merged = mergePodStatus(api, ours);
  assert.deepEqual(merged.conditions?.map((c) => `${c.type}=${c.status}`), ["Ready=True", "PodScheduled=True", "AllContainersRestarting=False"]);
});

test("status_manager.go mergePodStatus: a terminal phase waits while containers could run, and is PATCHed once they stopped, the same status version sent again", async () => {
  let running = true;
  let api = pod(ready);
  const patches: Record<string, unknown>[] = [];
  const { sync } = await setup(() => api, (r) => {
    const status = (r.body as { status: Record<string, unknown> }).status;
    patches.push(status);
    api = pod({ ...api.status, ...(status as PodStatus) });
    return { code: 200, body: api };
  }, () => running);
  const failed: PodStatus = { ...notReady, phase: "Failed" };
  sync.statusChanged(pod(failed), 7);
  await sync.idle();
  assert.equal(patches.length, 1);
  assert.equal(patches[0]!["phase"], undefined, "the phase stays Running while containers could run");
  sync.statusChanged(pod(failed), 7);
  await sync.idle();
  assert.equal(patches.length, 1, "the same version with nothing changed is not sent again");
  running = false;
  sync.statusChanged(pod(failed), 7);
  await sync.idle();
  assert.equal(patches.length, 2);
  assert.equal(patches[1]!["phase"], "Failed");
});

test("mergePodStatus keeps the API server's phase, reason and message while containers could run and the new phase is terminal", () => {
  const api: PodStatus = { ...ready, phase: "Running" };
  const ours: PodStatus = { ...notReady, phase: "Failed", reason: "DeadlineExceeded", message: "Pod was active on the node longer than the specified deadline" };
  assert.deepEqual([mergePodStatus(api, ours, true).phase, mergePodStatus(api, ours, true).reason], ["Running", undefined]);
  assert.deepEqual([mergePodStatus(api, ours, false).phase, mergePodStatus(api, ours, false).reason], ["Failed", "DeadlineExceeded"]);
});
