// The agent while its runtime stops answering (containerd dying mid-run): probes error without
// consequences, pod syncs are skipped once the runtime counts as down (kubelet runtimeErrors and
// syncLoop), the API keeps serving the last status, and everything resumes when it is back.
import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import type { Pod, Probe } from "../api/types.js";
import { FakeClock, flushMicrotasks } from "../../test/fakes/fake-clock.js";
import { startAgentOnFakes } from "../../test/fakes/fake-agent.js";
import { FakeRuntime } from "../../test/fakes/fake-runtime.js";
import { Agent } from "./agent.js";

const everySecond: Probe = { exec: { command: ["check"] }, periodSeconds: 1, failureThreshold: 1 };

function setup(): { clock: FakeClock; runtime: FakeRuntime; agent: Agent } {
  const { clock, runtime, agent } = startAgentOnFakes();
  const pod: Pod = { metadata: { name: "web", namespace: "default" }, spec: { containers: [{ name: "app", image: "img", command: ["app"], livenessProbe: everySecond, readinessProbe: everySecond }] } };
  assert.ok(agent.admit(pod, "api").ok);
  return { clock, runtime, agent };
}

async function seconds(clock: FakeClock, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await clock.advance(1000);
    await flushMicrotasks(50);
  }
}

async function syncs(agent: Agent): Promise<number> {
  const counts = (await agent.agentMetrics()).matchAll(/^kubelet_pod_worker_duration_seconds_count\{operation_type="(?:create|sync)"\} (\d+)$/gm);
  return [...counts].reduce((sum, m) => sum + Number(m[1]), 0);
}

test("runtime down: probes error without kills, syncs are skipped after 30 s, healthz fails after 5 min, all resumes when it is back", async () => {
  const { clock, runtime, agent } = setup();
  await seconds(clock, 3);
  const app = () => agent.getPod("default", "web").status!.containerStatuses![0]!;
  assert.deepEqual([app().ready, app().restartCount], [true, 0]);
  assert.deepEqual(agent.runtimeErrors(), []);

  runtime.unavailable = true;
  await seconds(clock, 10);
  assert.deepEqual(agent.runtimeErrors(), [], "not down before 30 s without a successful call");
  const events = agent.listEvents("default").map((e) => `${e.reason} ${e.message}`);
  assert.ok(events.some((e) => e.startsWith("Unhealthy Liveness probe errored and resulted in unknown state: ")), events.join("\n"));
  assert.ok(!runtime.calls.some((c) => c.startsWith("stop ")), "an errored probe is not a failure: nothing is killed");
  assert.equal(app().ready, true, "an errored readiness probe keeps the last result");

  await seconds(clock, 21);
  assert.deepEqual(agent.runtimeErrors(), ["container runtime is down"]);
  const skippedFrom = await syncs(agent);
  await seconds(clock, 70); // past a full resync
  assert.equal(await syncs(agent), skippedFrom, "no pod sync while the runtime is down");
  assert.equal(agent.getPod("default", "web").status!.phase, "Running", "the API serves the last status");
  assert.equal(agent.healthz().ok, true);

  await seconds(clock, 100); // 3 min 21 s since the last successful relist
  assert.deepEqual(agent.runtimeErrors(), ["container runtime is down", "PLEG is not healthy: pleg was last seen active 3m21s ago; threshold is 3m0s"]);
  await seconds(clock, 110);
  assert.equal(agent.healthz().ok, true, "syncs skipped for 4m41s: not yet");
  await seconds(clock, 30);
  const health = agent.healthz();
  assert.equal(health.ok, false);
  assert.equal(health.message, "pod synchronization skipped for 5m11s: [container runtime is down, PLEG is not healthy: pleg was last seen active 5m41s ago; threshold is 3m0s]");

  runtime.unavailable = false;
  await seconds(clock, 2);
  assert.deepEqual(agent.runtimeErrors(), []);
  assert.equal(agent.healthz().ok, true);
  assert.ok((await syncs(agent)) > skippedFrom, "every pod is synced once the runtime is back");
  assert.deepEqual([app().ready, app().restartCount, runtime.current("app")!.attempt], [true, 0, 0], "nothing restarted");
  assert.ok(!runtime.calls.some((c) => c.startsWith("stop ")));
  await agent.close();
});

test("runtime down: a pod admitted meanwhile starts once the runtime is back; close() ends even while it is down", async () => {
  const { clock, runtime, agent } = setup();
  await seconds(clock, 2);
  runtime.unavailable = true;
  await seconds(clock, 31);
  const late: Pod = { metadata: { name: "late", namespace: "default" }, spec: { containers: [{ name: "late", image: "img", command: ["late"] }] } };
  assert.ok(agent.admit(late, "api").ok);
  await seconds(clock, 2);
  assert.equal(runtime.current("late"), undefined, "not started while the runtime is down");
  runtime.unavailable = false;
  await seconds(clock, 2);
  assert.equal(runtime.current("late")?.state, "running");
  runtime.unavailable = true;
  let closed = false;
  void agent.close(0).then(() => (closed = true));
  // close() also waits for the state directory's writes (real I/O), so it gets real time too.
  for (let i = 0; i < 100 && !closed; i++) {
    await clock.advance(1000);
    await delay(20);
  }
  assert.equal(closed, true, "close() ended while the runtime was down");
});
