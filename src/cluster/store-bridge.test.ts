import assert from "node:assert/strict";
import { test } from "node:test";
import type { Pod } from "../api/types.js";
import { PODS } from "../apiserver/resources/pods.js";
import { newApiStore } from "../apiserver/resources/registry.js";
import { ObjectStore } from "../apiserver/storage/object-store.js";
import { silentLogger } from "../util/logger.js";
import { FakeClock } from "../../test/fakes/fake-clock.js";
import { ANNOTATION_CONFIG_MIRROR as MIRROR_ANNOTATION } from "../api/mirror-pod.js";
import { StoreBridge } from "./store-bridge.js";

function pod(name: string, extra: Partial<Pod["metadata"]> = {}, status?: Pod["status"]): Pod {
  return { apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "apps", uid: `uid-${name}`, ...extra }, spec: { nodeName: "node-1", containers: [{ name: "app", image: "busybox" }] }, ...(status ? { status } : {}) };
}

function setup() {
  const store = newApiStore(new ObjectStore(new FakeClock()));
  const sunk: string[] = [];
  const mirrors: string[] = [];
  const recorded: string[] = [];
  const statuses: Pod[] = [];
  const bridge = new StoreBridge({
    store,
    nodeName: "node-1",
    sink: {
      statusChanged: (p) => {
        statuses.push(p);
        sunk.push(`status ${p.metadata.name ?? ""} ${p.status?.phase ?? ""} ${p.status?.reason ?? ""}`);
      },
      podTerminated: (p) => sunk.push(`terminated ${p.metadata.name ?? ""}`) },
    staticPods: (e) => mirrors.push(`${e.type} ${e.object.metadata.name ?? ""}`),
    mirrorRemoved: (p) => mirrors.push(`removed ${p.metadata.name ?? ""}`),
    mirrorDeleting: (p) => mirrors.push(`deleting ${p.metadata.name ?? ""}`),
    events: () => undefined,
    recorder: { event: (target, type, reason, message) => recorded.push(`${target.pod.metadata.name ?? ""} ${type} ${reason} ${message}`) },
    logger: silentLogger,
  });
  return { store, bridge, sunk, mirrors, recorded, statuses };
}

test("an API server pod enters the store with its UID and its deletion with its grace period; the store's copies of its status do not go to the API server (the status manager's do, not through the store)", () => {
  const { store, bridge, sunk } = setup();
  bridge.handle({ op: "ADD", source: "apiserver", pods: [pod("web", {}, { phase: "Pending" })] });
  const stored = store.get<Pod>(PODS.name, "apps", "web");
  assert.equal(stored?.metadata.uid, "uid-web");
  store.modify<Pod>(PODS.name, "apps", "web", (p) => ({ ...p, status: { phase: "Running" } }));
  bridge.handle({ op: "DELETE", source: "apiserver", pods: [pod("web", { deletionTimestamp: "2026-01-01T00:00:30Z", deletionGracePeriodSeconds: 30 })] });
  assert.equal(store.get<Pod>(PODS.name, "apps", "web")?.metadata.deletionGracePeriodSeconds, 30);
  store.delete(PODS.name, "apps", "web");
  assert.deepEqual(sunk, []);
});

test("an image change reaches the store, while the rest of the stored spec stays as admitted", () => {
  const { store, bridge } = setup();
  bridge.handle({ op: "ADD", source: "apiserver", pods: [pod("web")] });
  const changed = pod("web");
  changed.spec = { ...changed.spec, containers: [{ name: "app", image: "busybox:2" }], schedulerName: "other" } as Pod["spec"];
  bridge.handle({ op: "UPDATE", source: "apiserver", pods: [changed] });
  const stored = store.get<Pod>(PODS.name, "apps", "web");
  assert.equal(stored?.spec.containers[0]?.image, "busybox:2");
  assert.equal((stored?.spec as unknown as Record<string, unknown>)["schedulerName"], "default-scheduler");
});

test("a readiness gate's condition set in the API server reaches the store's status; the kubelet's own conditions stay the agent's", () => {
  const { store, bridge } = setup();
  bridge.handle({ op: "ADD", source: "apiserver", pods: [pod("gated")] });
  store.modify<Pod>(PODS.name, "apps", "gated", (p) => ({ ...p, status: { phase: "Running", conditions: [{ type: "Ready", status: "False" }] } }));
  const fromApi = pod("gated", {}, { phase: "Pending", conditions: [{ type: "Ready", status: "True" }, { type: "k8s.io/test-condition1", status: "True" }] });
  bridge.handle({ op: "UPDATE", source: "apiserver", pods: [fromApi] });
  const stored = store.get<Pod>(PODS.name, "apps", "gated")!;
  assert.deepEqual(stored.status?.conditions, [{ type: "Ready", status: "False" }, { type: "k8s.io/test-condition1", status: "True" }]);
  assert.equal(stored.status?.phase, "Running");
});

test("a pod whose name is taken on the node by another UID is reported Failed with UnexpectedAdmissionError", () => {
  const { bridge, sunk } = setup();
  bridge.handle({ op: "ADD", source: "apiserver", pods: [pod("web")] });
  bridge.handle({ op: "ADD", source: "apiserver", pods: [pod("web", { uid: "uid-other" })] });
  assert.equal(sunk.at(-1), "status web Failed UnexpectedAdmissionError");
});

test("a bound pod that fails the node's validation is rejected as the kubelet's rejectPod does: a Warning event, then Failed with the reason and 'Pod was rejected: '", () => {
  const { store, bridge, recorded, statuses } = setup();
  const invalid = pod("nfs");
  invalid.spec.volumes = [{ name: "data", nfs: { server: "10.0.0.1", path: "/x" } } as unknown as NonNullable<Pod["spec"]["volumes"]>[number]];
  bridge.handle({ op: "ADD", source: "apiserver", pods: [invalid] });
  const message = "spec.volumes[0].nfs: Forbidden: probelet mounts only emptyDir, hostPath, configMap, secret, downwardAPI, projected volumes";
  assert.deepEqual(recorded, [`nfs Warning UnexpectedAdmissionError ${message}`]);
  assert.deepEqual(statuses.map((p) => [p.metadata.uid, p.status?.phase, p.status?.reason, p.status?.message]), [["uid-nfs", "Failed", "UnexpectedAdmissionError", `Pod was rejected: ${message}`]]);
  assert.equal(store.get<Pod>(PODS.name, "apps", "nfs"), undefined, "nothing of the pod enters the node");
});

test("the node's admit handlers reject before anything runs: unsafe sysctls (SysctlForbidden), another OS (PodOSNotSupported)", () => {
  const { store, bridge, recorded, statuses } = setup();
  const unsafe = pod("sysctl");
  unsafe.spec.securityContext = { sysctls: [{ name: "kernel.shm_rmid_forced", value: "1" }, { name: "kernel.msgmax", value: "10000000000" }] };
  const windows = pod("win");
  (windows.spec as unknown as Record<string, unknown>)["os"] = { name: "windows" };
  const safe = pod("safe");
  safe.spec.securityContext = { sysctls: [{ name: "net/ipv4/ip_local_port_range", value: "1024 65535" }] };
  bridge.handle({ op: "ADD", source: "apiserver", pods: [unsafe, windows, safe] });
  assert.deepEqual(recorded, [
    'sysctl Warning SysctlForbidden forbidden sysctl: "kernel.msgmax" not allowlisted',
    "win Warning PodOSNotSupported Failed to admit pod as the OS field doesn't match node OS",
  ]);
  assert.deepEqual(statuses.filter((p) => p.status?.phase === "Failed").map((p) => [p.metadata.name, p.status?.reason, p.status?.message]), [
    ["sysctl", "SysctlForbidden", 'Pod was rejected: forbidden sysctl: "kernel.msgmax" not allowlisted'],
    ["win", "PodOSNotSupported", "Pod was rejected: Failed to admit pod as the OS field doesn't match node OS"],
  ]);
  assert.deepEqual(store.list<Pod>(PODS.name, {}).items.map((p) => p.metadata.name), ["safe"]);
});

test("mirror pods and finished pods are not written, mirror deletions go to the mirror client, and pods the API server no longer has are removed but not the agent's own", () => {
  const { store, bridge, mirrors } = setup();
  const mirror = pod("static", { annotations: { [MIRROR_ANNOTATION]: "h" } });
  bridge.handle({ op: "ADD", source: "apiserver", pods: [mirror, pod("done", {}, { phase: "Succeeded" }), pod("gone")] });
  bridge.handle({ op: "DELETE", source: "apiserver", pods: [{ ...mirror, metadata: { ...mirror.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" } }] });
  bridge.handle({ op: "REMOVE", source: "apiserver", pods: [mirror] });
  assert.deepEqual(store.list<Pod>(PODS.name, {}).items.map((p) => p.metadata.name), ["gone"]);
  assert.deepEqual(mirrors, ["deleting static", "removed static"]);
  store.create<Pod>(PODS.name, pod("local", { namespace: "apps" }), { keepUid: true });
  bridge.forgetMissing(() => false);
  assert.deepEqual(store.list<Pod>(PODS.name, {}).items.map((p) => p.metadata.name), ["local"]);
});

test("PodObservedGenerationTracking: the API server's generation reaches the node's copy, also when the change bumping it is one the node does not take (tolerations)", () => {
  const { store, bridge } = setup();
  bridge.handle({ op: "ADD", source: "apiserver", pods: [pod("web", { generation: 1 })] });
  assert.equal(store.get<Pod>(PODS.name, "apps", "web")?.metadata.generation, 1);
  const tolerated = pod("web", { generation: 2 });
  tolerated.spec = { ...tolerated.spec, tolerations: [{ key: "example.com/k", operator: "Exists" }] } as Pod["spec"];
  bridge.handle({ op: "UPDATE", source: "apiserver", pods: [tolerated] });
  const stored = store.get<Pod>(PODS.name, "apps", "web")!;
  assert.equal(stored.metadata.generation, 2);
  assert.equal((stored.spec as { tolerations?: unknown }).tolerations, undefined, "the node's copy keeps the spec it admitted");
});
