import { test } from "node:test";
import assert from "node:assert/strict";
import type { Container, ContainerStatus, Pod, PodStatus } from "../api/types.js";
import { defaultTestProbe, FIXTURE_NOW, newTestEnv, newTestManager, waitFor, type TestEnv } from "../../test/fixtures.js";
import { flushMicrotasks } from "../../test/fakes/fake-clock.js";
import type { ProbeManager } from "./manager.js";
import { canInheritProbeState } from "./manager.js";
import type { ProbeType } from "./probe-type.js";

const probe = () => defaultTestProbe({ failureThreshold: 3 });

function pod(name: string, containers: Container[], initContainers: Container[] = []): Pod {
  return { metadata: { name, namespace: "default", uid: `${name}-uid` }, spec: { containers, initContainers, restartPolicy: "Always" } };
}

const keys = (m: ProbeManager, p: Pod): string[] =>
  m
    .workersOf(p.metadata.uid!)
    .map((w) => `${w.container.name}/${w.probeType}`)
    .sort();

/** stopAll removes every pod and asserts no worker is left (kubelet cleanup(t, m)). */
async function cleanup(m: ProbeManager): Promise<void> {
  await m.close();
  assert.equal(m.workerCount(), 0);
}

test("[case 133] TestAddRemovePods — one worker per probe; RemovePod stops them; repeated RemovePod is a no-op", async () => {
  const env = newTestEnv();
  const m = newTestManager(env);
  const noProbes = pod("no_probe_pod", [{ name: "no_probe1" }, { name: "no_probe2" }]);
  m.addPod(noProbes);
  assert.equal(m.workerCount(), 0);
  const probed = pod("probe_pod", [
    { name: "no_probe1" },
    { name: "readiness", readinessProbe: probe() },
    { name: "no_probe2" },
    { name: "liveness", livenessProbe: probe() },
    { name: "startup", startupProbe: probe() },
  ]);
  m.addPod(probed);
  assert.deepEqual(keys(m, probed), ["liveness/liveness", "readiness/readiness", "startup/startup"]);
  m.removePod(noProbes);
  assert.equal(m.workerCount(), 3);
  m.removePod(probed);
  await waitFor("workers to exit", () => m.workerCount() === 0);
  m.removePod(probed);
  await cleanup(m);
});

test("[case 134] TestAddPodContinuesAfterExistingWorker — an existing worker does not stop AddPod", async () => {
  const env = newTestEnv();
  const m = newTestManager(env);
  const p = pod("p", [
    { name: "a", readinessProbe: probe() },
    { name: "b", readinessProbe: probe() },
  ]);
  m.addPod(p);
  assert.equal(m.workerCount(), 2);
  m.getWorker("p-uid", "b", "readiness")!.stop();
  await waitFor("b's worker to exit", () => m.workerCount() === 1);
  m.addPod(p);
  assert.deepEqual(keys(m, p), ["a/readiness", "b/readiness"]);
  await cleanup(m);
});

test("[case 135] TestAddRemovePodsWithRestartableInitContainer — only sidecars get workers", async () => {
  for (const [restartPolicy, expected] of [
    [undefined, []],
    ["Always", ["restartable-init/liveness", "restartable-init/readiness", "restartable-init/startup"]],
  ] as const) {
    const env = newTestEnv();
    const m = newTestManager(env);
    const init: Container = { name: "restartable-init", readinessProbe: probe(), livenessProbe: probe(), startupProbe: probe() };
    if (restartPolicy) init.restartPolicy = restartPolicy;
    const p = pod("init_pod", [{ name: "main" }], [{ name: "init" }, init]);
    m.addPod(p);
    assert.deepEqual(keys(m, p), expected);
    m.removePod(p);
    await waitFor("workers to exit", () => m.workerCount() === 0);
    m.removePod(p);
    await cleanup(m);
  }
});

test("[case 136] TestStopLivenessAndStartup — sidecar and main liveness/startup stop; readiness remains", async () => {
  const env = newTestEnv();
  const m = newTestManager(env);
  const all = { readinessProbe: probe(), livenessProbe: probe(), startupProbe: probe() };
  const p = pod("p", [{ name: "main", ...all }], [{ name: "sidecar", restartPolicy: "Always", ...all }]);
  m.addPod(p);
  assert.equal(m.workerCount(), 6);
  m.stopLivenessAndStartup(p);
  await waitFor("liveness/startup workers to exit", () => m.workerCount() === 2);
  assert.deepEqual(keys(m, p), ["main/readiness", "sidecar/readiness"]);
  m.removePod(p);
  await waitFor("all workers to exit", () => m.workerCount() === 0);
  await cleanup(m);
});

const threeProbes = (n: string): Container[] => [
  { name: `${n}-r`, readinessProbe: probe() },
  { name: `${n}-l`, livenessProbe: probe() },
  { name: `${n}-s`, startupProbe: probe() },
];

test("[case 137] TestCleanupPods — workers of pods not in the desired set exit, the rest remain", async () => {
  const env = newTestEnv();
  const m = newTestManager(env);
  const drop = pod("pod_cleanup", threeProbes("c"));
  const keep = pod("pod_keep", threeProbes("k"));
  m.addPod(drop);
  m.addPod(keep);
  m.cleanupPods(new Set(["pod_keep-uid"]));
  await waitFor("pod_cleanup's workers to exit", () => m.workerCount() === 3);
  assert.deepEqual(keys(m, drop), []);
  assert.equal(keys(m, keep).length, 3);
  await cleanup(m);
});

test("[case 138] TestCleanupRepeated — 100 pods × 3 probes, CleanupPods(empty) ten times", async () => {
  const env = newTestEnv();
  const m = newTestManager(env);
  for (let i = 0; i < 100; i++) m.addPod(pod(`pod-${i}`, threeProbes("c")));
  assert.equal(m.workerCount(), 300);
  for (let i = 0; i < 10; i++) m.cleanupPods(new Set());
  await waitFor("every worker to exit", () => m.workerCount() === 0);
  await cleanup(m);
});

function running(name: string, id: string, extra: Partial<ContainerStatus> = {}): ContainerStatus {
  return { name, containerID: id, ready: false, restartCount: 0, state: { running: { startedAt: new Date(FIXTURE_NOW).toISOString() } }, ...extra };
}

function terminated(name: string, id: string, exitCode = 0): ContainerStatus {
  return { name, containerID: id, ready: false, restartCount: 0, state: { terminated: { exitCode } } };
}

/** managerWithWorkers creates parked workers for the given keys and sets cached results. */
async function managerWithWorkers(env: TestEnv, p: Pod): Promise<ProbeManager> {
  const m = newTestManager(env);
  m.addPod(p);
  await flushMicrotasks();
  return m;
}

test("[case 139] TestUpdatePodStatus — started and ready from results and workers", async () => {
  const env = newTestEnv();
  const p = pod("p", [
    { name: "unprobed", livenessProbe: probe() },
    { name: "probed_ready", readinessProbe: probe() },
    { name: "probed_pending", readinessProbe: probe() },
    { name: "probed_unready", readinessProbe: probe() },
    { name: "not_started_no_readiness", startupProbe: probe() },
    { name: "started_no_readiness", startupProbe: probe() },
    { name: "terminated", readinessProbe: probe() },
  ]);
  // No status for the pod: workers stay parked and write nothing.
  const m = await managerWithWorkers(env, p);
  m.readinessManager.set("test://probed_ready", "Success", "p-uid");
  m.readinessManager.set("test://probed_unready", "Failure", "p-uid");
  m.startupManager.set("test://started_no_readiness", "Success", "p-uid");
  m.readinessManager.set("test://terminated", "Success", "p-uid");
  const status: PodStatus = {
    phase: "Running",
    containerStatuses: [
      running("unprobed", "test://unprobed"),
      running("probed_ready", "test://probed_ready"),
      running("probed_pending", "test://probed_pending"),
      running("probed_unready", "test://probed_unready"),
      running("not_started_no_readiness", "test://not_started_no_readiness"),
      running("started_no_readiness", "test://started_no_readiness"),
      terminated("terminated", "test://terminated"),
    ],
  };
  m.updatePodStatus(p, status);
  const got = Object.fromEntries(status.containerStatuses!.map((c) => [c.name, [c.started, c.ready]]));
  assert.deepEqual(got, {
    unprobed: [true, true],
    probed_ready: [true, true],
    probed_pending: [true, false],
    probed_unready: [true, false],
    not_started_no_readiness: [false, false],
    started_no_readiness: [true, true],
    terminated: [false, false],
  });
  await cleanup(m);
});

test("[case 140][case 141] TestUpdatePodStatusWithInitContainers — plain init vs restartable init", async () => {
  for (const [restartPolicy, expectedReady] of [
    [undefined, [false, false, true]],
    ["Always", [false, true, false]],
  ] as const) {
    const env = newTestEnv();
    const init = (name: string): Container => ({ name, startupProbe: probe(), ...(restartPolicy ? { restartPolicy } : {}) });
    const p = pod("p", [{ name: "main" }], [init("not_started"), init("started"), init("terminated")]);
    const m = newTestManager(env);
    // The kubelet test inserts startup workers for all three init containers directly.
    for (const c of p.spec.initContainers!) m.startWorker(p, c, "startup");
    await flushMicrotasks();
    m.startupManager.set("test://started", "Success", "p-uid");
    const status: PodStatus = {
      phase: "Pending",
      initContainerStatuses: [running("not_started", "test://not_started"), running("started", "test://started"), terminated("terminated", "test://terminated")],
    };
    m.updatePodStatus(p, status);
    const started = status.initContainerStatuses!.map((c) => c.started);
    const ready = status.initContainerStatuses!.map((c) => c.ready);
    assert.deepEqual(started, [false, true, false], `started (${restartPolicy ?? "plain"})`);
    assert.deepEqual(ready, [...expectedReady], `ready (${restartPolicy ?? "plain"})`);
    await cleanup(m);
  }
});

/** restartScenario: a container that started long before the manager, with a readiness probe. */
async function restartScenario(options: { preserve: boolean; apiId: string; withWorker: boolean; podReady: "True" | "False" }): Promise<boolean> {
  const env = newTestEnv();
  const p = pod("p", [{ name: "c", readinessProbe: probe() }]);
  const m = newTestManager(env, { features: { preserveStateOnRestart: options.preserve } });
  if (options.withWorker) {
    m.addPod(p);
    await flushMicrotasks();
  }
  const oldStart = new Date(FIXTURE_NOW - 120_000).toISOString();
  const status: PodStatus = {
    phase: "Running",
    conditions: [{ type: "Ready", status: options.podReady }],
    containerStatuses: [{ name: "c", containerID: "test://c1", ready: false, restartCount: 0, state: { running: { startedAt: oldStart } } }],
  };
  const apiStatus: PodStatus = {
    phase: "Running",
    conditions: [{ type: "Ready", status: options.podReady }],
    containerStatuses: [{ name: "c", containerID: options.apiId, ready: true, restartCount: 0, state: { running: { startedAt: oldStart } } }],
  };
  m.updatePodStatus(p, status, apiStatus);
  await cleanup(m);
  return status.containerStatuses![0]!.ready;
}

test("[case 142] TestUpdatePodStatusOnKubeletRestart — a surviving Ready container stays Ready", async () => {
  assert.equal(await restartScenario({ preserve: true, apiId: "test://c1", withWorker: true, podReady: "True" }), true);
  assert.equal(await restartScenario({ preserve: true, apiId: "test://c0", withWorker: true, podReady: "True" }), false);
  assert.equal(await restartScenario({ preserve: true, apiId: "test://c1", withWorker: false, podReady: "True" }), true);
  assert.equal(await restartScenario({ preserve: true, apiId: "test://c0", withWorker: false, podReady: "True" }), false);
  assert.equal(await restartScenario({ preserve: false, apiId: "test://c1", withWorker: true, podReady: "True" }), false);
  assert.equal(await restartScenario({ preserve: false, apiId: "test://c0", withWorker: true, podReady: "True" }), false);
});

test("[case 143] TestUpdatePodStatusOnKubeletRestartWithMultipleContainers — pod NotReady forces false", async () => {
  assert.equal(await restartScenario({ preserve: true, apiId: "test://c1", withWorker: true, podReady: "False" }), false);
});

test("[case 144] TestUpdateReadiness — a real readiness worker drives the cached result both ways", async () => {
  const env = newTestEnv();
  const m = newTestManager(env);
  const p = pod("p", [{ name: "c", readinessProbe: defaultTestProbe() }]);
  env.status.set("p-uid", { phase: "Running", podIP: "127.0.0.1", containerStatuses: [running("c", "test://c", { started: true })] });
  const seen: string[] = [];
  m.readinessManager.subscribe((u) => seen.push(u.result), { initial: true });
  await env.clock.advance(60_000);
  m.addPod(p);
  await waitFor("ready", () => m.readinessManager.get("test://c") === "Success");
  env.exec.outcome = { result: "failure", output: "" };
  await env.clock.advance(1_000);
  await waitFor("not ready", () => m.readinessManager.get("test://c") === "Failure");
  assert.deepEqual(seen, ["Failure", "Success", "Failure"]);
  await cleanup(m);
});

test("[case 145] TestProbeWorkersSurviveSyncContextCancellation — workers do not depend on the caller's lifetime", async () => {
  const env = newTestEnv();
  const m = newTestManager(env);
  const controller = new AbortController();
  const p = pod("p", [{ name: "c", readinessProbe: defaultTestProbe() }]);
  env.status.set("p-uid", { phase: "Running", podIP: "127.0.0.1", containerStatuses: [running("c", "test://c", { started: true })] });
  const seen: string[] = [];
  m.readinessManager.subscribe((u) => seen.push(u.result), { initial: true });
  await env.clock.advance(60_000);
  m.addPod(p);
  controller.abort(); // addPod takes no context: nothing the caller cancels can stop a worker
  await waitFor("a Success", () => seen.includes("Success"));
  assert.deepEqual(seen, ["Failure", "Success"]);
  await cleanup(m);
});

test("[case 146] TestCanInheritProbeState", () => {
  const api = (id?: string): PodStatus => ({ containerStatuses: [{ name: "c", ready: true, restartCount: 0, ...(id === undefined ? {} : { containerID: id }) }] });
  const cases: [string, PodStatus | undefined, string, boolean][] = [
    ["no API status", undefined, "test://a", true],
    ["same ID", api("test://a"), "test://a", true],
    ["different ID", api("test://b"), "test://a", false],
    ["container not in API status", { containerStatuses: [] }, "test://a", true],
    ["API status without ID", api(), "test://a", true],
    ["runtime ID empty", api("test://b"), "", true],
  ];
  for (const [name, status, id, expected] of cases) assert.equal(canInheritProbeState(status, "c", id), expected, name);
});

test("updatePodStatus triggers a manual readiness run when the result is not Success", async () => {
  const env = newTestEnv();
  const p = pod("p", [{ name: "c", readinessProbe: probe() }]);
  const m = await managerWithWorkers(env, p);
  const worker = m.getWorker("p-uid", "c", "readiness" as ProbeType)!;
  const status: PodStatus = { phase: "Running", containerStatuses: [running("c", "test://c")] };
  m.updatePodStatus(p, status);
  assert.equal(worker.manualTrigger(), false, "a trigger is already pending");
  await cleanup(m);
});

test("close resolves once every worker live at the call has exited, one still probing included, for every caller; later workers are not waited for", async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let busyProbes = 0;
  const env = newTestEnv({
    // Port 81's probe blocks until released; port 82's answers at once.
    tcp: async (target) => {
      if (target.port === 81) {
        busyProbes++;
        await gate;
      }
      return { result: "success", output: "" };
    },
  });
  const m = newTestManager(env);
  const p = pod("p", [
    { name: "busy", readinessProbe: { tcpSocket: { port: 81 }, periodSeconds: 10 } },
    { name: "idle", livenessProbe: { tcpSocket: { port: 82 }, periodSeconds: 10 } },
  ]);
  env.status.set("p-uid", { phase: "Running", podIP: "127.0.0.1", containerStatuses: [running("busy", "test://busy", { started: true }), running("idle", "test://idle", { started: true })] });
  await env.clock.advance(60_000); // past the first period: no start jitter
  m.addPod(p);
  await waitFor("the busy probe to start", () => busyProbes === 1);

  let closed = 0;
  const closes = [m.close().then(() => closed++), m.close().then(() => closed++)];
  await waitFor("the idle worker to exit", () => m.workerCount() === 1);
  // A worker started after close() (a late pod update) is not waited for.
  const late = pod("late", [{ name: "c", livenessProbe: { tcpSocket: { port: 82 }, periodSeconds: 10 } }]);
  env.status.set("late-uid", { phase: "Running", podIP: "127.0.0.1", containerStatuses: [running("c", "test://late", { started: true })] });
  m.addPod(late);
  await flushMicrotasks();
  assert.equal(closed, 0, "close waits for the probe in flight (the kubelet does not abort it)");
  release();
  await Promise.all(closes);
  assert.equal(closed, 2);
  assert.deepEqual(keys(m, late), ["c/liveness"]);
  await m.close();
  assert.equal(m.workerCount(), 0);
  await m.close(); // nothing left: resolves at once
});
