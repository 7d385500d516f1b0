// The agent's start-time histograms: kubelet_pod_start_duration_seconds (Pending → Running, as the
// kubelet observes it) and probelet_pod_ready_duration_seconds (first Ready), per pod once; and
// the exec probes' command CPU.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { PodStatus } from "../api/types.js";
import { flushMicrotasks } from "../../test/fakes/fake-clock.js";
import { admitRunning, startAgentOnFakes } from "../../test/fakes/fake-agent.js";
import { AgentMetrics } from "./agent-metrics.js";

const pending: PodStatus = { phase: "Pending" };
const running: PodStatus = { phase: "Running", conditions: [{ type: "Ready", status: "False" }] };
const ready: PodStatus = { phase: "Running", conditions: [{ type: "Ready", status: "True" }] };

/** histogram reads a histogram's count and sum from the exposition text. */
async function histogram(metrics: AgentMetrics, name: string): Promise<{ count: number; sum: number }> {
  const text = await metrics.registry.metrics();
  const value = (suffix: string): number => Number(new RegExp(`^${name}_${suffix} (\\S+)$`, "m").exec(text)?.[1] ?? NaN);
  return { count: value("count"), sum: value("sum") };
}

const cases: Array<{ name: string; restored?: PodStatus; statuses: Array<[atMs: number, status: PodStatus]>; forgetAtEnd?: boolean; start: { count: number; sum: number }; readyAfter: { count: number; sum: number } }> = [
  {
    name: "a new pod: Running at 1.5 s, Ready at 4 s, each observed once",
    statuses: [[500, pending], [1500, running], [2000, running], [4000, ready], [9000, running], [10000, ready]],
    start: { count: 1, sum: 1.5 },
    readyAfter: { count: 1, sum: 4 },
  },
  {
    name: "a pod first published already Running (started in its first sync) is observed",
    statuses: [[800, ready]],
    start: { count: 1, sum: 0.8 },
    readyAfter: { count: 1, sum: 0.8 },
  },
  {
    name: "a pod a previous agent saw Running and Ready is not timed again",
    restored: ready,
    statuses: [[300, ready], [5000, running], [6000, ready]],
    start: { count: 0, sum: 0 },
    readyAfter: { count: 0, sum: 0 },
  },
  {
    name: "a restored pod that was Running but not yet Ready is timed for Ready only",
    restored: running,
    statuses: [[300, running], [2500, ready]],
    start: { count: 0, sum: 0 },
    readyAfter: { count: 1, sum: 2.5 },
  },
  {
    name: "a pod that never runs (or is deleted first) observes nothing",
    statuses: [[1000, pending], [2000, { phase: "Failed" }]],
    forgetAtEnd: true,
    start: { count: 0, sum: 0 },
    readyAfter: { count: 0, sum: 0 },
  },
];

for (const c of cases) {
  test(c.name, async () => {
    const metrics = new AgentMetrics();
    const firstSeen = 1_000_000;
    metrics.podSeen("uid-1", firstSeen, c.restored);
    for (const [at, status] of c.statuses) metrics.observeStartup("uid-1", status, firstSeen + at);
    if (c.forgetAtEnd) {
      metrics.forgetPod("uid-1", "default", "p", ["app"]);
      metrics.observeStartup("uid-1", ready, firstSeen + 20_000);
    }
    assert.deepEqual(await histogram(metrics, "kubelet_pod_start_duration_seconds"), c.start);
    assert.deepEqual(await histogram(metrics, "probelet_pod_ready_duration_seconds"), c.readyAfter);
  });
}

test("the agent observes its pods' start and first Ready in /metrics", async () => {
  const { clock, agent } = startAgentOnFakes();
  await admitRunning(agent, clock, {
    metadata: { name: "web", namespace: "default" },
    spec: { containers: [{ name: "app", image: "img", command: ["app"], readinessProbe: { exec: { command: ["check"] }, periodSeconds: 2 } }] },
  });
  for (let s = 0; s < 5; s++) {
    await clock.advance(1000);
    await flushMicrotasks(50);
  }
  const text = await agent.agentMetrics();
  assert.match(text, /^kubelet_pod_start_duration_seconds_count 1$/m);
  assert.match(text, /^probelet_pod_ready_duration_seconds_count 1$/m);
  await agent.close(0);
});

test("probelet_exec_probe_cpu_seconds observes each measured exec probe by the kubelet's probe_type label", async () => {
  const metrics = new AgentMetrics();
  metrics.observeExecProbeCpu("Liveness", 0.25);
  metrics.observeExecProbeCpu("Liveness", 0.0004);
  metrics.observeExecProbeCpu("Readiness", 0.03);
  const text = await metrics.registry.metrics();
  assert.match(text, /^probelet_exec_probe_cpu_seconds_count\{probe_type="Liveness"\} 2$/m);
  assert.match(text, /^probelet_exec_probe_cpu_seconds_sum\{probe_type="Liveness"\} 0\.2504$/m);
  assert.match(text, /^probelet_exec_probe_cpu_seconds_bucket\{le="0\.0005",probe_type="Liveness"\} 1$/m);
  assert.match(text, /^probelet_exec_probe_cpu_seconds_count\{probe_type="Readiness"\} 1$/m);
});

test("kubelet_pod_worker_duration_seconds is labelled operation_type: a pod's first sync is create, the later ones sync, and a forgotten pod starts over", async () => {
  const metrics = new AgentMetrics();
  const count = async (type: string): Promise<number> =>
    Number(new RegExp(`^kubelet_pod_worker_duration_seconds_count\\{operation_type="${type}"\\} (\\d+)$`, "m").exec(await metrics.registry.metrics())?.[1] ?? 0);
  await metrics.timeSync("u1", () => Promise.resolve());
  await metrics.timeSync("u1", () => Promise.resolve());
  await metrics.timeSync("u1", () => Promise.resolve());
  await metrics.timeSync("u2", () => Promise.resolve());
  assert.equal(await count("create"), 2);
  assert.equal(await count("sync"), 2);
  metrics.forgetPod("u1", "default", "web", []);
  await metrics.timeSync("u1", () => Promise.resolve());
  assert.equal(await count("create"), 3);
  assert.match(await metrics.registry.metrics(), /# HELP kubelet_pod_worker_duration_seconds Duration in seconds to sync a single pod\. Broken down by operation type: create, update, or sync/);
});

test("kubelet_terminated_containers_total counts each container that exits, once, by container_type, exit_code and reason", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  await admitRunning(agent, clock, {
    metadata: { name: "job", namespace: "default" },
    spec: { restartPolicy: "Never", initContainers: [{ name: "setup", image: "img", command: ["setup"] }], containers: [{ name: "app", image: "img", command: ["app"] }] },
  });
  runtime.exit(runtime.current("setup")!.id, 0);
  for (let s = 0; s < 3; s++) {
    await clock.advance(1000);
    await flushMicrotasks(50);
  }
  runtime.exit(runtime.current("app")!.id, 3);
  for (let s = 0; s < 3; s++) {
    await clock.advance(1000);
    await flushMicrotasks(50);
  }
  const text = await agent.agentMetrics();
  assert.match(text, /^kubelet_terminated_containers_total\{container_type="init_container",exit_code="0",reason="Completed"\} 1$/m);
  assert.match(text, /^kubelet_terminated_containers_total\{container_type="container",exit_code="3",reason="Error"\} 1$/m);
  await agent.close(0);
});
