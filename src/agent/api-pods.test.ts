// The agent on the object store, with the fake runtime: the store owns pod specs and the agent
// their status (the kubelet's split): a pod created in the store runs, an image change restarts
// that container, a deletion terminates the pod, publishes its final status and removes it.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Pod } from "../api/types.js";
import { PODS } from "../apiserver/resources/pods.js";
import { deleteObject } from "../apiserver/rest/object-deletes.js";
import type { StoreEvent } from "../apiserver/storage/object-store.js";
import { KUBELET_VERSION } from "../probe/user-agent.js";
import { tick, tickUntil } from "../../test/fakes/fake-clock.js";
import { startAgentOnFakes } from "../../test/fakes/fake-agent.js";
import { ANNOTATION_CONFIG_MIRROR, ANNOTATION_CONFIG_SOURCE } from "../api/mirror-pod.js";
import { createApiPod } from "./pod-admission.js";

const webPod = (): Pod => ({ metadata: { name: "web", namespace: "default" }, spec: { terminationGracePeriodSeconds: 5, containers: [{ name: "app", image: "img:1", command: ["app"] }] } });

test("a pod created in the store runs, with the store's UID, and its status is written back to the store", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  const created = createApiPod(agent.store, webPod(), agent.nodeName);
  assert.ok(created.ok);
  await tick(clock);
  assert.ok(runtime.calls.includes("start app#0"), runtime.calls.join("\n"));
  const stored = agent.store.mustGet<Pod>(PODS.name, "default", "web");
  assert.equal(stored.metadata.uid, created.pod.metadata.uid);
  assert.equal(stored.status?.phase, "Running");
  assert.equal(stored.status?.containerStatuses?.[0]?.ready, true);
  await agent.close();
});

test("an image change in the store restarts that container, as the kubelet does on a spec hash change", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  createApiPod(agent.store, webPod(), agent.nodeName);
  await tick(clock);
  agent.store.modify<Pod>(PODS.name, "default", "web", (pod) => ({ ...pod, spec: { ...pod.spec, containers: [{ ...pod.spec.containers[0]!, image: "img:2" }] } }));
  await tick(clock);
  await tick(clock);
  assert.ok(runtime.calls.includes("stop app#0 grace=5"), runtime.calls.join("\n"));
  assert.equal(runtime.current("app")?.attempt, 1, runtime.calls.join("\n"));
  assert.equal(agent.store.mustGet<Pod>(PODS.name, "default", "web").status?.containerStatuses?.[0]?.image, "img:2");
  await agent.close();
});

test("a graceful delete terminates the pod with the deletion's grace, then the final status, then DELETED with the UID", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  const created = createApiPod(agent.store, webPod(), agent.nodeName);
  assert.ok(created.ok);
  await tick(clock);
  const seen: StoreEvent<Pod>[] = [];
  agent.store.watch<Pod>(PODS.name, { fromResourceVersion: Number(agent.store.resourceVersion) }, (e) => seen.push(e));
  deleteObject(agent.store, PODS, "default", "web", { gracePeriodSeconds: 3, preconditions: {}, dryRun: false }, clock.now());
  await tickUntil(clock, () => agent.store.get(PODS.name, "default", "web") === undefined);
  assert.ok(runtime.calls.includes("stop app#0 grace=3"), runtime.calls.join("\n"));
  assert.equal(agent.store.get(PODS.name, "default", "web"), undefined);
  const last = seen.at(-1)!;
  assert.equal(last.type, "DELETED");
  assert.equal(last.object.metadata.uid, created.pod.metadata.uid);
  const final = seen.filter((e) => e.type === "MODIFIED").at(-1)!;
  assert.equal(final.object.status?.containerStatuses?.[0]?.state?.terminated !== undefined, true, JSON.stringify(final.object.status));
  await agent.close();
});

test("a manifest pod appears in the store as a mirror pod and leaves it when its source forgets it", async () => {
  const { clock, agent } = startAgentOnFakes();
  const admitted = agent.admit(webPod(), "file:/m/web.yaml");
  assert.ok(admitted.ok);
  await tick(clock);
  const mirror = agent.store.mustGet<Pod>(PODS.name, "default", "web");
  assert.equal(mirror.metadata.annotations?.[ANNOTATION_CONFIG_SOURCE], "file");
  assert.equal(mirror.metadata.annotations?.[ANNOTATION_CONFIG_MIRROR], admitted.pod.metadata.uid);
  assert.notEqual(mirror.metadata.uid, mirror.metadata.annotations?.[ANNOTATION_CONFIG_MIRROR], "the mirror has a UID of its own, as the API server gives it");
  assert.equal(mirror.status?.phase, "Running");
  agent.removeSource("file:/m/web.yaml");
  await tickUntil(clock, () => agent.store.get(PODS.name, "default", "web") === undefined);
  assert.equal(agent.store.get(PODS.name, "default", "web"), undefined);
  await agent.close();
});

test("the agent's Node is in the store with capacity, the four conditions, addresses and nodeInfo", async () => {
  const { clock, agent } = startAgentOnFakes();
  await tick(clock);
  const node = agent.store.mustGet<Pod>("nodes", undefined, "node-a") as unknown as { status: { capacity: Record<string, string>; conditions: { type: string }[]; addresses: { type: string }[]; nodeInfo: Record<string, string> } };
  assert.deepEqual(Object.keys(node.status.capacity), ["cpu", "memory", "pods"]);
  assert.deepEqual(node.status.conditions.map((c) => c.type), ["MemoryPressure", "DiskPressure", "PIDPressure", "Ready"]);
  assert.deepEqual(node.status.addresses.map((a) => a.type), ["InternalIP", "Hostname"]);
  assert.equal(node.status.nodeInfo["kubeletVersion"], KUBELET_VERSION);
  assert.match(node.status.nodeInfo["containerRuntimeVersion"] ?? "", /^fake:\/\//);
  await agent.close();
});

test("kubelet.go SyncPod stores the status it found before restarting: a crashed container is stored terminated and not Ready, then running again", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  createApiPod(agent.store, webPod(), agent.nodeName);
  await tick(clock);
  const stored: string[] = [];
  agent.store.watch<Pod>(PODS.name, { fromResourceVersion: Number(agent.store.resourceVersion) }, (e) => {
    const s = e.object.status?.containerStatuses?.[0];
    const ready = e.object.status?.conditions?.find((c) => c.type === "Ready")?.status;
    if (s) stored.push(`${Object.keys(s.state ?? {}).join()} restarts=${s.restartCount} Ready=${ready}`);
  });
  runtime.exit(runtime.current("app")!.id, 1);
  await tickUntil(clock, () => runtime.current("app")?.attempt === 1);
  await tickUntil(clock, () => stored.at(-1) === "running restarts=1 Ready=True");
  assert.deepEqual(stored.filter((s, i) => s !== stored[i - 1]), ["terminated restarts=0 Ready=False", "running restarts=1 Ready=True"]);
  await agent.close();
});

test("status_manager.go syncPod: a status sink gets every stored status with the status manager's version, and the pod once its termination finished", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  const seen: string[] = [];
  agent.addStatusSink({
    statusChanged: (pod, version) => seen.push(`${pod.metadata.name ?? ""} v${version ?? "?"} ${pod.status?.phase ?? ""}`),
    podTerminated: (pod) => seen.push(`terminated ${pod.metadata.name ?? ""} ${pod.status?.phase ?? ""}`),
  });
  const created = createApiPod(agent.store, webPod(), agent.nodeName);
  assert.ok(created.ok);
  await tick(clock);
  const uid = created.pod.metadata.uid ?? "";
  assert.equal(seen.at(-1), `web v${agent.statusManager.version(uid)} Running`);
  assert.ok(agent.podCouldHaveRunningContainers(uid));
  deleteObject(agent.store, PODS, "default", "web", { gracePeriodSeconds: 0, preconditions: {}, dryRun: false }, clock.now());
  await tickUntil(clock, () => seen.some((s) => s.startsWith("terminated")));
  assert.ok(runtime.calls.some((c) => c.startsWith("stop app#0")), runtime.calls.join("\n"));
  assert.equal(seen.at(-1), "terminated web Failed");
  assert.equal(agent.podCouldHaveRunningContainers(uid), false);
  const versions = seen.flatMap((s) => /v(\d+)/.exec(s)?.[1] ?? []).map(Number);
  assert.deepEqual(versions, [...versions].sort((a, b) => a - b), "versions only grow");
  await agent.close();
});

test("PodObservedGenerationTracking: a new generation of a running pod with nothing the node runs changed is observed in its status", async () => {
  const { clock, agent } = startAgentOnFakes();
  createApiPod(agent.store, webPod(), agent.nodeName);
  await tick(clock);
  assert.equal(agent.store.mustGet<Pod>(PODS.name, "default", "web").status?.phase, "Running");
  agent.store.modify<Pod>(PODS.name, "default", "web", (pod) => ({ ...pod, metadata: { ...pod.metadata, generation: 2 } }));
  await tickUntil(clock, () => agent.store.mustGet<Pod>(PODS.name, "default", "web").status?.observedGeneration === 2);
  assert.equal(agent.store.mustGet<Pod>(PODS.name, "default", "web").status?.observedGeneration, 2);
  await agent.close();
});
