import { test } from "node:test";
import assert from "node:assert/strict";
import { defaultTestProbe, newTestEnv, newTestManager, runningStatus, testContainerID, testPodUID, testPodWithProbe, waitFor } from "../../test/fixtures.js";
import { flushMicrotasks } from "../../test/fakes/fake-clock.js";
import type { Probe } from "../api/types.js";
import type { ProbeOutcome } from "../probe/probe-result.js";
import { PROBE_TYPES } from "./probe-type.js";

test("[case 119] TestCleanUp — stop() ten times ends the worker, removes its result and its map entry", async () => {
  for (const probeType of PROBE_TYPES) {
    const env = newTestEnv();
    const manager = newTestManager(env);
    env.status.set(testPodUID, runningStatus({ started: probeType !== "startup" }));
    manager.addPod(testPodWithProbe(probeType));
    const results = manager.resultsFor(probeType);
    await waitFor("a Success result", () => results.get(testContainerID) === "Success");
    const worker = manager.getWorker(testPodUID, "cOnTaInEr_NaMe", probeType);
    assert.ok(worker);
    for (let i = 0; i < 10; i++) worker.stop();
    await manager.close();
    assert.equal(results.get(testContainerID), undefined, probeType);
    assert.equal(manager.getWorker(testPodUID, "cOnTaInEr_NaMe", probeType), undefined);
    assert.equal(manager.workerCount(), 0);
  }
});

/** timedEnv returns an env whose exec handler records the fake clock time of every call. */
function timedEnv() {
  const env = newTestEnv();
  const times: number[] = [];
  env.exec.impl = async () => {
    times.push(env.clock.now());
    return { result: "success", output: "" };
  };
  return { env, times };
}

test("[case 131] run loop — started long after the manager: first probe at once, then one per period", async () => {
  const { env, times } = timedEnv();
  const start = env.clock.now();
  const m = newTestManagerWithExec(env);
  await env.clock.advance(60_000); // the manager is now a minute old: no start jitter
  env.status.set(testPodUID, runningStatus({ started: true, startedAt: start }));
  m.addPod(testPodWithProbe("readiness", defaultTestProbe({ periodSeconds: 10 })));
  await flushMicrotasks();
  assert.deepEqual(times.map((t) => t - start), [60_000]);
  await env.clock.advance(9_999);
  assert.equal(times.length, 1);
  await env.clock.advance(1);
  await env.clock.advance(10_000);
  assert.deepEqual(times.map((t) => t - start), [60_000, 70_000, 80_000]);
  await m.close();
  assert.equal(m.workerCount(), 0);
});

test("[case 131] run loop — within the first period after manager start, the first probe is delayed by jitter", async () => {
  const { env, times } = timedEnv();
  const start = env.clock.now();
  const m = newTestManagerWithExec(env, () => 0.25);
  env.status.set(testPodUID, runningStatus({ started: true, startedAt: start }));
  m.addPod(testPodWithProbe("readiness", defaultTestProbe({ periodSeconds: 10 })));
  await flushMicrotasks();
  assert.equal(times.length, 0);
  await env.clock.advance(2_499);
  assert.equal(times.length, 0);
  await env.clock.advance(1);
  assert.deepEqual(times.map((t) => t - start), [2_500]);
  await env.clock.advance(10_000);
  assert.deepEqual(times.map((t) => t - start), [2_500, 12_500]);
  await m.close();
});

test("[case 131] run loop — a manual trigger probes at once and restarts the period; triggers coalesce", async () => {
  const { env, times } = timedEnv();
  const start = env.clock.now();
  const m = newTestManagerWithExec(env);
  await env.clock.advance(60_000);
  env.status.set(testPodUID, runningStatus({ started: true, startedAt: start }));
  m.addPod(testPodWithProbe("readiness", defaultTestProbe({ periodSeconds: 10 })));
  await flushMicrotasks();
  await env.clock.advance(3_000);
  const worker = m.getWorker(testPodUID, "cOnTaInEr_NaMe", "readiness")!;
  assert.equal(worker.manualTrigger(), true);
  assert.equal(worker.manualTrigger(), false, "a second trigger before the run coalesces");
  await flushMicrotasks();
  assert.deepEqual(times.map((t) => t - start), [60_000, 63_000]);
  await env.clock.advance(9_999);
  assert.equal(times.length, 2);
  await env.clock.advance(1);
  assert.deepEqual(times.map((t) => t - start), [60_000, 63_000, 73_000]);
  await m.close();
});

test("run loop — a probe slower than the period runs the next one at once, dropping missed ticks", async () => {
  const env = newTestEnv();
  const times: number[] = [];
  env.exec.impl = async () => {
    times.push(env.clock.now());
    if (times.length === 1) await env.clock.sleep(25_000);
    return { result: "success", output: "" };
  };
  const start = env.clock.now();
  const m = newTestManagerWithExec(env);
  await env.clock.advance(60_000);
  env.status.set(testPodUID, runningStatus({ started: true, startedAt: start }));
  m.addPod(testPodWithProbe("readiness", defaultTestProbe({ periodSeconds: 10, timeoutSeconds: 30 })));
  await flushMicrotasks();
  await env.clock.advance(25_000);
  await env.clock.advance(5_000);
  // Probe 1 ran 60..85 s; ticks at 70 and 80 collapse into one immediate run at 85; then 90.
  assert.deepEqual(times.map((t) => t - start), [60_000, 85_000, 90_000]);
  await m.close();
});

function newTestManagerWithExec(env: ReturnType<typeof newTestEnv>, random: () => number = () => 0) {
  return newTestManager(env, { random });
}

test("probe extension fastPeriodMs: probes every fastPeriodMs until the first Success, then every period; a new container is fast again", async () => {
  const env = newTestEnv();
  const times: number[] = [];
  let failures = 3;
  env.exec.impl = async () => {
    times.push(env.clock.now());
    return failures-- > 0 ? { result: "failure", output: "not yet" } : { result: "success", output: "" };
  };
  const start = env.clock.now();
  const m = newTestManagerWithExec(env);
  await env.clock.advance(60_000);
  env.status.set(testPodUID, runningStatus({ started: true, startedAt: start }));
  const pod = testPodWithProbe("readiness", defaultTestProbe({ periodSeconds: 10, failureThreshold: 1 }));
  pod.metadata.annotations = { "probe.probelet.dev/cOnTaInEr_NaMe.readiness": "fastPeriodMs: 250" };
  m.addPod(pod);
  await flushMicrotasks();
  for (let i = 0; i < 84; i++) await env.clock.advance(250); // to 81 s
  const results = m.resultsFor("readiness");
  assert.equal(results.get(testContainerID), "Success");
  assert.deepEqual(times.map((t) => t - start), [60_000, 60_250, 60_500, 60_750, 70_750, 80_750]);

  // A new container: failing again, probed fast again until it succeeds.
  times.length = 0;
  failures = 2;
  env.status.set(testPodUID, runningStatus({ started: true, startedAt: start, containerId: "test://second" }));
  for (let i = 0; i < 82; i++) await env.clock.advance(250); // to 101.5 s
  assert.deepEqual(times.map((t) => t - start), [90_750, 91_000, 91_250, 101_250]);
  assert.equal(results.get("test://second"), "Success");
  await m.close();
});

/** coalescedTickTimes runs one readiness probe for 3.5 s of fake time with a 4 ms coalescing window and returns its probe times. */
async function coalescedTickTimes(probe: Probe): Promise<number[]> {
  const times: number[] = [];
  const record = async (): Promise<ProbeOutcome> => {
    times.push(env.clock.now());
    return { result: "success", output: "" };
  };
  const env = newTestEnv({ exec: record, tcp: record });
  const start = env.clock.now();
  const m = newTestManager(env, { tickCoalesceMs: 4 });
  await env.clock.advance(60_000); // no start jitter
  env.status.set(testPodUID, runningStatus({ started: true, startedAt: start }));
  m.addPod(testPodWithProbe("readiness", probe));
  await flushMicrotasks();
  for (let i = 0; i < 3500; i++) await env.clock.advance(1);
  await m.close();
  return times.map((t) => t - start);
}

test("tick coalescing — exec ticks keep the kubelet ticker's exact times; tcpSocket ticks run at most the window late, never early, on an undrifting grid", async () => {
  const { exec: _exec, ...periodOnly } = defaultTestProbe({ periodSeconds: 1 });
  assert.deepEqual(await coalescedTickTimes(defaultTestProbe({ periodSeconds: 1 })), [60_000, 61_000, 62_000, 63_000]);
  assert.deepEqual(await coalescedTickTimes({ ...periodOnly, tcpSocket: { port: 8080 } }), [60_000, 61_004, 62_004, 63_004]);
});
