// Manifest pods are static pods, as in the kubelet (kubelet.go SyncPod → tryReconcileMirrorPods):
// deleting the mirror pod through the API, gracefully or at once, deletes the mirror only; the
// agent makes a new one at once (a new UID) and the static pod's containers run on untouched.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ANNOTATION_CONFIG_MIRROR, ANNOTATION_MANIFEST, ANNOTATION_MANIFEST_WATCHED } from "../api/mirror-pod.js";
import type { Pod } from "../api/types.js";
import { PODS } from "../apiserver/resources/pods.js";
import { deleteObject } from "../apiserver/rest/object-deletes.js";
import { flushMicrotasks, tick } from "../../test/fakes/fake-clock.js";
import { startAgentOnFakes } from "../../test/fakes/fake-agent.js";

const webPod = (): Pod => ({ metadata: { name: "web", namespace: "default" }, spec: { terminationGracePeriodSeconds: 5, containers: [{ name: "app", image: "img:1", command: ["app"] }] } });

for (const grace of [3, 0]) {
  test(`deleting a static pod's mirror ${grace === 0 ? "at once (--force --grace-period=0)" : "gracefully"} makes a new mirror at once; the containers run on, restart counts and container IDs unchanged`, async () => {
    const { clock, runtime, agent } = startAgentOnFakes();
    const admitted = agent.admit(webPod(), "file:/srv/web.yaml");
    assert.ok(admitted.ok);
    await tick(clock);
    const before = agent.store.mustGet<Pod>(PODS.name, "default", "web");
    const containerId = before.status?.containerStatuses?.[0]?.containerID;
    assert.ok(containerId !== undefined);
    const calls = runtime.calls.length;
    deleteObject(agent.store, PODS, "default", "web", { gracePeriodSeconds: grace, preconditions: {}, dryRun: false }, clock.now());
    await flushMicrotasks();
    const after = agent.store.mustGet<Pod>(PODS.name, "default", "web");
    assert.notEqual(after.metadata.uid, before.metadata.uid, "a new mirror, with a UID of its own");
    assert.equal(after.metadata.deletionTimestamp, undefined);
    assert.equal(after.metadata.annotations?.[ANNOTATION_CONFIG_MIRROR], admitted.pod.metadata.uid, "the same static pod");
    assert.equal(after.metadata.annotations?.[ANNOTATION_MANIFEST], "/srv/web.yaml");
    assert.equal(after.status?.phase, "Running", "the new mirror has the static pod's status");
    assert.equal(after.status?.containerStatuses?.[0]?.containerID, containerId);
    await tick(clock, 10_000);
    const later = agent.store.mustGet<Pod>(PODS.name, "default", "web");
    assert.equal(later.metadata.uid, after.metadata.uid);
    assert.equal(later.status?.containerStatuses?.[0]?.containerID, containerId);
    assert.equal(later.status?.containerStatuses?.[0]?.restartCount, 0);
    assert.deepEqual(runtime.calls.slice(calls).filter((c) => !c.startsWith("exec")), [], "nothing was stopped or started");
    await agent.close();
  });
}

test("events of a static pod name its current mirror, so clients find them by the pod's UID", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  assert.ok(agent.admit(webPod(), "file:/srv/web.yaml").ok);
  await tick(clock);
  const first = agent.store.mustGet<Pod>(PODS.name, "default", "web");
  assert.ok(agent.listEvents("default", "web").every((e) => e.involvedObject.uid === first.metadata.uid));
  deleteObject(agent.store, PODS, "default", "web", { gracePeriodSeconds: 0, preconditions: {}, dryRun: false }, clock.now());
  await flushMicrotasks();
  const second = agent.store.mustGet<Pod>(PODS.name, "default", "web");
  runtime.exit(runtime.current("app")!.id, 1);
  await tick(clock);
  const restarted = agent.listEvents("default", "web").filter((e) => e.involvedObject.uid === second.metadata.uid);
  assert.ok(restarted.some((e) => e.reason === "Started"), JSON.stringify(agent.listEvents("default", "web")));
  await agent.close();
});

test("a static pod from a watched directory is marked so; removing its source deletes it and its mirror for good", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  assert.ok(agent.admit(webPod(), "file:/m/web.yaml", { watched: true }).ok);
  await tick(clock);
  assert.equal(agent.store.mustGet<Pod>(PODS.name, "default", "web").metadata.annotations?.[ANNOTATION_MANIFEST_WATCHED], "true");
  agent.removeSource("file:/m/web.yaml");
  for (let i = 0; i < 10 && agent.store.get(PODS.name, "default", "web") !== undefined; i++) await tick(clock);
  assert.equal(agent.store.get(PODS.name, "default", "web"), undefined, "not made again");
  assert.ok(runtime.calls.includes("stop app#0 grace=5"), runtime.calls.join("\n"));
  await agent.close();
});

test("in-process deletePod of a static pod deletes the mirror only, as the API does", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  assert.ok(agent.admit(webPod(), "file:/srv/web.yaml").ok);
  await tick(clock);
  const before = agent.getPod("default", "web").metadata.uid;
  const deleted = agent.deletePod("default", "web");
  assert.equal(deleted.metadata.deletionGracePeriodSeconds, 5);
  await flushMicrotasks();
  assert.notEqual(agent.getPod("default", "web").metadata.uid, before);
  await agent.deletePodAndWait("default", "web");
  assert.ok(!runtime.calls.some((c) => c.startsWith("stop")), runtime.calls.join("\n"));
  assert.equal(agent.getPod("default", "web").status?.phase, "Running");
  await agent.close();
});
