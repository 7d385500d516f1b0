// How the agent reacts to probe results and to deletion (kubelet syncLoopIteration and
// SyncTerminatingPod), driven through the result caches and a fake runtime on a fake clock.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Pod, Probe } from "../api/types.js";
import { flushMicrotasks } from "../../test/fakes/fake-clock.js";
import { admitRunning, startAgentOnFakes } from "../../test/fakes/fake-agent.js";
import { Agent } from "./agent.js";


/** A probe that never runs within a test: its worker only holds the cache's initial value. */
const dormant: Probe = { exec: { command: ["check"] }, initialDelaySeconds: 3600, periodSeconds: 10 };

/** syncs reads how many pod syncs the agent has run from its own metric. */
async function syncs(agent: Agent): Promise<number> {
  const counts = (await agent.agentMetrics()).matchAll(/^kubelet_pod_worker_duration_seconds_count\{operation_type="(?:create|sync)"\} (\d+)$/gm);
  return [...counts].reduce((sum, m) => sum + Number(m[1]), 0);
}

/** probes sums prober_probe_total over every series of one probe type. */
async function probes(agent: Agent, probeType: "Liveness" | "Readiness"): Promise<number> {
  let total = 0;
  for (const line of (await agent.probeMetrics()).split("\n")) {
    if (line.startsWith("prober_probe_total{") && line.includes(`probe_type="${probeType}"`)) total += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return total;
}

test("[case 157] sync loop: liveness Success → no sync; Failure → one sync; readiness and startup set the status then sync; unknown pod UID ignored", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  const pod: Pod = {
    metadata: { name: "p", namespace: "default" },
    spec: { containers: [{ name: "app", image: "img", command: ["app"], livenessProbe: dormant, readinessProbe: dormant, startupProbe: dormant }] },
  };
  const uid = await admitRunning(agent, clock, pod);
  const cid = `fake://${runtime.current("app")!.id}`;
  const container = () => agent.getPod("default", "p").status!.containerStatuses![0]!;
  assert.deepEqual([container().started, container().ready], [false, false]);
  const pm = agent.probeManager;
  const step = async (update: () => void): Promise<number> => {
    const before = await syncs(agent);
    update();
    await flushMicrotasks(50);
    return (await syncs(agent)) - before;
  };

  // A liveness Success (here for an older container ID, so the cache really changes) syncs nothing.
  assert.equal(await step(() => pm.livenessManager.set("fake://older", "Success", uid)), 0);
  // A liveness Failure syncs the pod once; it names an old container, so nothing is killed (case 155).
  assert.equal(await step(() => pm.livenessManager.set("fake://older", "Failure", uid)), 1);
  assert.equal(runtime.calls.filter((c) => c.startsWith("stop ")).length, 0);
  // Startup: SetContainerStartup, then one sync.
  assert.equal(await step(() => pm.startupManager.set(cid, "Success", uid)), 1);
  assert.deepEqual([container().started, container().ready], [true, false]);
  // Readiness: SetContainerReadiness, then one sync.
  assert.equal(await step(() => pm.readinessManager.set(cid, "Success", uid)), 1);
  assert.deepEqual([container().started, container().ready], [true, true]);
  assert.equal(agent.getPod("default", "p").status!.conditions!.find((c) => c.type === "Ready")!.status, "True");
  // Updates for a pod UID the agent does not have are ignored.
  for (const manager of [pm.livenessManager, pm.readinessManager, pm.startupManager]) {
    assert.equal(await step(() => manager.set("fake://gone", "Failure", "no-such-uid")), 0);
  }
  assert.equal(runtime.calls.filter((c) => c.startsWith("stop ")).length, 0);
  await agent.close();
});

test("[case 158] termination: liveness and startup stop, then the kill, then RemovePod; in the grace period only readiness probes and liveness kills nothing", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  runtime.stopDelayMs = 10_000; // the app takes 10 s to exit after SIGTERM
  runtime.execExit.set("app", 1); // every probe fails: liveness would kill after 3 s if it still ran
  const failing: Probe = { exec: { command: ["check"] }, periodSeconds: 1, failureThreshold: 3 };
  const pod: Pod = {
    metadata: { name: "p", namespace: "default" },
    spec: { terminationGracePeriodSeconds: 30, containers: [{ name: "app", image: "img", command: ["app"], livenessProbe: failing, readinessProbe: failing }] },
  };
  const uid = await admitRunning(agent, clock, pod);
  // A stopped worker leaves the manager when its loop notices (kubelet worker.stop + removeWorker).
  const active = (probeType: "liveness" | "readiness"): boolean => {
    const worker = agent.probeManager.getWorker(uid, "app", probeType);
    return worker !== undefined && !worker.stopped;
  };
  const workers = () => ({ liveness: active("liveness"), readiness: active("readiness") });
  assert.deepEqual(workers(), { liveness: true, readiness: true });

  const atStop: Array<ReturnType<typeof workers>> = [];
  const stop = runtime.stopContainer.bind(runtime);
  runtime.stopContainer = (id, seconds) => {
    atStop.push(workers());
    return stop(id, seconds);
  };
  agent.deletePod("default", "p");
  await flushMicrotasks(50);
  assert.deepEqual(atStop, [{ liveness: false, readiness: true }], "liveness and startup stop before the kill");

  const livenessBefore = await probes(agent, "Liveness");
  const readinessBefore = await probes(agent, "Readiness");
  for (let s = 0; s < 8; s++) await clock.advance(1000);
  await flushMicrotasks(50);
  assert.equal(await probes(agent, "Liveness"), livenessBefore, "no liveness probe in the grace period");
  assert.ok((await probes(agent, "Readiness")) >= readinessBefore + 6, "readiness keeps probing in the grace period");
  assert.deepEqual(workers(), { liveness: false, readiness: true });
  assert.deepEqual(runtime.calls.filter((c) => c.startsWith("stop ")), ["stop app#0 grace=30"]);
  assert.ok(!agent.listEvents("default").some((e) => e.message.includes("failed liveness probe")));

  for (let s = 0; s < 4; s++) await clock.advance(1000);
  // No more fake time passes from here: the removal after the kill does file I/O that the fake
  // clock cannot see, so wait (bounded, real time) for it to settle.
  const present = (): boolean => agent.listPods("default").some((p) => p.metadata.name === "p");
  for (let i = 0; i < 200 && (present() || agent.probeManager.workerCount() > 0); i++) {
    await flushMicrotasks(20);
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.deepEqual(workers(), { liveness: false, readiness: false }, "RemovePod after the kill");
  assert.equal(agent.probeManager.workerCount(), 0);
  assert.throws(() => agent.getPod("default", "p"), /not found/);
  await agent.close();
});
