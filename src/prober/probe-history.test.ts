import assert from "node:assert/strict";
import { test } from "node:test";
import { defaultTestProbe, newTestEnv, newTestWorker, runningStatus, testContainerID, testContainerName, testPodUID, testPodWithProbe } from "../../test/fixtures.js";
import { describeRun, HISTORY_OUTPUT_CHARS, ProbeHistory, type ProbeHistoryEntry } from "./probe-history.js";

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
