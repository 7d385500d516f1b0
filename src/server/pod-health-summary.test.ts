import assert from "node:assert/strict";
import { test } from "node:test";
import { FakeAgentApi } from "../../test/fakes/fake-agent-api.js";
import type { ProbeHistoryEntry, ProbeHistorySegment } from "../prober/probe-history.js";
import { summarizePodHealth, type PodHealthSummary } from "./pod-health-summary.js";
import { startStatusServer } from "./server.js";

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const at = (s: number): string => new Date(T0 + s * 1000).toISOString();

function entry(s: number, probeType: ProbeHistoryEntry["probeType"], result: ProbeHistoryEntry["result"], output = ""): ProbeHistoryEntry {
  return { time: at(s), container: "app", probeType, containerID: "process://1", result, output, latencyMs: 1, run: 1, threshold: 3 };
}

test("summarizePodHealth marks each bucket with its worst result, counts results and keeps the last failure's output; the worst probe comes first", () => {
  const segment: ProbeHistorySegment = { container: "app", probeType: "readiness", containerID: "process://1", result: "Success", start: at(0), end: at(59), count: 60, latencyMinMs: 1, latencyMaxMs: 2, latencySumMs: 90, lastOutput: "", lastRun: 60, threshold: 1 };
  const items = [entry(65, "liveness", "Success"), entry(70, "liveness", "Failure", "HTTP probe failed with statuscode: 500"), entry(75, "liveness", "Success"), entry(100, "liveness", "Failure", "connection refused")];
  const health = summarizePodHealth({ namespace: "default", name: "web" }, { items, segments: [segment] }, [{ container: "init", containerID: "process://9", startedAt: at(-40), finishedAt: at(-35), exitCode: 0, reason: "Completed" }, { container: "app", containerID: "process://0", startedAt: at(-30), finishedAt: at(90), exitCode: 137, reason: "Error" }, { container: "init", containerID: "process://8", startedAt: at(1), finishedAt: at(2), exitCode: 0, reason: "Completed" }], T0, T0 + 120_000, 4);
  assert.deepEqual(health.probes.map((p) => [p.probeType, p.buckets, p.success, p.failure]), [
    ["liveness", "..ff", 2, 2],
    ["readiness", "ss..", 60, 0],
  ]);
  assert.deepEqual(health.probes[0]!.lastFailure, { time: at(100), output: "connection refused" });
  assert.deepEqual(health.exits, [{ container: "init", time: at(2), exitCode: 0, reason: "Completed" }, { container: "app", time: at(90), exitCode: 137, reason: "Error" }]);
  assert.equal(health.failures, 3, "two probe failures and one failed exit; a clean exit is no failure");
});

test("summarizePodHealth counts a collapsed run in proportion to its part inside the range", () => {
  const segment: ProbeHistorySegment = { container: "app", probeType: "liveness", containerID: "process://1", result: "Failure", start: at(-100), end: at(100), count: 200, latencyMinMs: 1, latencyMaxMs: 1, latencySumMs: 200, lastOutput: "down", lastRun: 200, threshold: 3 };
  const health = summarizePodHealth({ namespace: "default", name: "web" }, { items: [], segments: [segment] }, [], T0, T0 + 200_000, 2);
  assert.equal(health.probes[0]!.failure, 100);
  assert.equal(health.probes[0]!.buckets, "ff");
});

test("GET /probes/summary answers every pod's health, and a 400 for a bad range or bucket count", async (t) => {
  const api = new FakeAgentApi();
  api.addPod({ metadata: { name: "web", namespace: "default" }, spec: { containers: [{ name: "app" }] } });
  api.addPod({ metadata: { name: "idle", namespace: "other" }, spec: { containers: [{ name: "app" }] } });
  api.recordProbe("default", "web", entry(10, "liveness", "Failure", "refused"));
  const server = await startStatusServer(api, { listen: "127.0.0.1:0" });
  t.after(() => server.close());
  const res = await fetch(`${server.url}/probes/summary?since=${at(0)}&until=${at(60)}&buckets=6`);
  assert.equal(res.status, 200);
  const summary = (await res.json()) as PodHealthSummary;
  assert.equal(summary.kind, "PodHealthSummary");
  assert.equal(summary.bucketSeconds, 10);
  const web = summary.items.find((i) => i.name === "web");
  assert.equal(web?.probes[0]?.buckets, ".f....");
  assert.deepEqual(summary.items.find((i) => i.name === "idle")?.probes, []);
  const scoped = (await (await fetch(`${server.url}/probes/summary?namespace=other`)).json()) as PodHealthSummary;
  assert.deepEqual(scoped.items.map((i) => i.name), ["idle"]);
  for (const query of ["buckets=0", "buckets=500", "since=soon", `since=${at(60)}&until=${at(0)}`]) {
    const bad = await fetch(`${server.url}/probes/summary?${query}`);
    assert.equal(bad.status, 400, query);
    await bad.arrayBuffer();
  }
});
