import assert from "node:assert/strict";
import { test } from "node:test";
import { defaultTestProbe, newTestEnv, newTestWorker, runningStatus, testContainerID, testContainerName, testPodUID, testPodWithProbe } from "../../test/fixtures.js";
import { describeRun, HISTORY_OUTPUT_CHARS, ProbeHistory, SEGMENT_SPAN_MS, type ProbeHistoryEntry } from "./probe-history.js";

/** historyWorker is a readiness worker (S=2, F=3) whose every finished probe lands in `history`. */
function historyWorker(history: ProbeHistory) {
  const env = newTestEnv();
  const pod = testPodWithProbe("readiness", defaultTestProbe({ successThreshold: 2, failureThreshold: 3 }));
  const { worker } = newTestWorker(env, "readiness", pod, undefined, { onProbe: (w, record) => history.record(w, record) });
  env.status.set(testPodUID, runningStatus({ started: true }));
  return { env, worker };
}

test("ProbeHistory records each probe with its output, latency and its run against the threshold", async () => {
  const history = new ProbeHistory();
  const { env, worker } = historyWorker(history);
  const steps = [
    { result: "failure", output: "exit 1" },
    { result: "failure", output: "exit 1" },
    { result: "warning", output: "slow" },
    { result: "success", output: "" },
  ] as const;
  for (const step of steps) {
    env.exec.impl = async () => {
      await env.clock.advance(7);
      return { ...step };
    };
    assert.equal(await worker.doProbe(), true);
    await env.clock.advance(1000);
  }
  const entries = history.list(testPodUID);
  assert.deepEqual(
    entries.map((e) => [e.result, e.handlerResult, e.output, e.run, e.threshold, describeRun(e)]),
    [
      ["Failure", "failure", "exit 1", 1, 3, "failure 1 of 3"],
      ["Failure", "failure", "exit 1", 2, 3, "failure 2 of 3"],
      ["Success", "warning", "slow", 1, 2, "success 1 of 2"],
      ["Success", "success", "", 2, 2, "success 2 of 2"],
    ],
  );
  for (const e of entries) {
    assert.equal(e.container, testContainerName);
    assert.equal(e.probeType, "readiness");
    assert.equal(e.containerID, testContainerID);
    assert.equal(e.latencyMs, 7);
  }
  assert.deepEqual(entries.map((e) => Date.parse(e.time) - Date.parse(entries[0]!.time)), [0, 1007, 2014, 3021]);
});

test("ProbeHistory keeps the newest entries per probe and shortens long output", async () => {
  const history = new ProbeHistory({ recentLength: 4 });
  const { env, worker } = historyWorker(history);
  for (let i = 0; i < 9; i++) {
    env.exec.outcome = { result: "failure", output: `probe ${i} ${"x".repeat(HISTORY_OUTPUT_CHARS)}` };
    await worker.doProbe();
    await env.clock.advance(1000);
  }
  const entries = history.list(testPodUID);
  assert.equal(entries.length, 4);
  assert.deepEqual(entries.map((e) => e.output.slice(0, 7)), ["probe 5", "probe 6", "probe 7", "probe 8"]);
  assert.equal(entries[0]!.output.length, HISTORY_OUTPUT_CHARS + 1);
  assert.ok(entries[0]!.output.endsWith("…"));
});

test("ProbeHistory does not record a probe that could not run, and forgets a pod", async () => {
  const history = new ProbeHistory();
  const { env, worker } = historyWorker(history);
  env.exec.outcome = { result: "unknown", output: "", error: new Error("runtime is down") };
  await worker.doProbe();
  assert.deepEqual(history.list(testPodUID), []);
  env.exec.outcome = { result: "success", output: "ok" };
  await worker.doProbe();
  assert.equal(history.list(testPodUID).length, 1);
  history.forget(testPodUID);
  assert.deepEqual(history.list(testPodUID), []);
});

test("describeRun", () => {
  const cases: [Pick<ProbeHistoryEntry, "result" | "run" | "threshold">, string][] = [
    [{ result: "Failure", run: 2, threshold: 3 }, "failure 2 of 3"],
    [{ result: "Failure", run: 3, threshold: 3 }, "failure 3 of 3"],
    [{ result: "Failure", run: 5, threshold: 3 }, "failure (5 in a row)"],
    [{ result: "Success", run: 4, threshold: 1 }, "success (4 in a row)"],
    [{ result: "Success", run: 1, threshold: 1 }, "success"],
    [{ result: "Failure", run: 1, threshold: 1 }, "failure"],
    [{ result: "Unknown", run: 1, threshold: 1 }, "unknown"],
  ];
  for (const [entry, want] of cases) assert.equal(describeRun(entry), want);
});

function syntheticEntry(time: number, result: ProbeHistoryEntry["result"], extra: Partial<ProbeHistoryEntry> = {}): ProbeHistoryEntry {
  return { time: new Date(time).toISOString(), container: "app", probeType: "liveness", containerID: "process://1", result, output: "", latencyMs: 1, run: 1, threshold: 3, ...extra };
}

test("ProbeHistory range queries return the entries and segments within [since, until], by container and probe type", () => {
  const history = new ProbeHistory({ recentLength: 10 });
  const t0 = Date.UTC(2026, 0, 1);
  for (let i = 0; i < 100; i++) {
    history.addEntry("uid", syntheticEntry(t0 + i * 1000, i < 50 ? "Success" : "Failure"));
    history.addEntry("uid", syntheticEntry(t0 + i * 1000, "Success", { probeType: "readiness" }));
    history.addEntry("uid", syntheticEntry(t0 + i * 1000, "Success", { container: "sidecar" }));
  }
  const all = history.query("uid", {});
  assert.equal(all.items.length, 30);
  assert.equal(all.items.length + all.segments.reduce((n, s) => n + s.count, 0), 300);
  const liveness = history.query("uid", { container: "app", probeType: "liveness" });
  assert.deepEqual(liveness.segments.map((s) => [s.result, s.count]), [["Success", 50], ["Failure", 40]]);
  const window = history.query("uid", { since: t0 + 95_000, until: t0 + 97_000, container: "app", probeType: "liveness" });
  assert.deepEqual(window.items.map((e) => Date.parse(e.time) - t0), [95_000, 96_000, 97_000]);
  assert.deepEqual(window.segments, []);
  const early = history.query("uid", { until: t0 + 10_000, probeType: "liveness", container: "app" });
  assert.deepEqual(early.segments.map((s) => s.result), ["Success"]);
});

test("ProbeHistory segments never span more than SEGMENT_SPAN_MS nor join two container instances", () => {
  const history = new ProbeHistory({ recentLength: 1 });
  const t0 = Date.UTC(2026, 0, 1);
  for (let i = 0; i <= 600; i++) history.addEntry("uid", syntheticEntry(t0 + i * 1000, "Success", { containerID: i < 300 ? "process://1" : "process://2" }));
  const segments = history.query("uid", {}).segments;
  for (const s of segments) assert.ok(Date.parse(s.end) - Date.parse(s.start) < SEGMENT_SPAN_MS);
  assert.ok(segments.some((s) => s.containerID === "process://1") && segments.some((s) => s.containerID === "process://2"));
  assert.ok(segments.every((s, i) => i === 0 || segments[i - 1]!.containerID === s.containerID || Date.parse(segments[i - 1]!.end) < Date.parse(s.start)));
});

test("ProbeHistory runs: a worker's whole window as runs of one result, across its segments and recent probes; a new container instance starts a run", () => {
  const history = new ProbeHistory({ recentLength: 5 });
  const t0 = Date.UTC(2026, 0, 1);
  let t = t0;
  // 600 successes (past the 5-minute segment span and the 5 recent ones), 3 failures, a restart, 18 successes.
  for (let i = 0; i < 600; i++) history.addEntry("uid", syntheticEntry((t += 1000), "Success", { run: i + 1, threshold: 1 }));
  for (let run = 1; run <= 3; run++) history.addEntry("uid", syntheticEntry((t += 1000), "Failure", { run, output: `boom ${run}` }));
  for (let i = 0; i < 18; i++) history.addEntry("uid", syntheticEntry((t += 1000), "Success", { run: i + 1, threshold: 1, containerID: "process://2" }));
  history.addEntry("uid", syntheticEntry(t0 + 5000, "Success", { probeType: "readiness", threshold: 1 }));
  const runs = history.runs("uid").map((r) => `${r.probeType} ${r.result} ×${r.count} ${r.containerID} ${r.lastRun}/${r.threshold} ${r.lastOutput}`.trim());
  assert.deepEqual(runs, [
    "readiness Success ×1 process://1 1/1",
    "liveness Success ×600 process://1 600/1",
    "liveness Failure ×3 process://1 3/3 boom 3",
    "liveness Success ×18 process://2 18/1",
  ]);
  assert.deepEqual(history.runs("other"), []);
});
