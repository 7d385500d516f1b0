import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { PodStatus } from "../api/types.js";
import {
  defaultTestProbe,
  FIXTURE_NOW,
  getTestPod,
  newTestEnv,
  newTestWorker,
  runningStatus,
  runningStatusFor,
  testContainerID,
  testContainerName,
  testPodUID,
  testPodWithProbe,
} from "../../test/fixtures.js";
import { PROBE_TYPES, type ProbeType } from "./probe-type.js";
import type { Result } from "./results/cached-result.js";
import { ResultsManager } from "./results/results-manager.js";
import { ProberMetrics } from "./metrics.js";
import { DEFAULT_WORKER_FEATURES } from "./worker-policy.js";

interface DoProbeCase {
  cases: string;
  name: string;
  status?: (t: ProbeType) => PodStatus | undefined;
  deleting?: boolean;
  initialDelaySeconds?: number;
  expectContinue: Record<ProbeType, boolean>;
  expectResult: Record<ProbeType, Result | undefined>;
}

const all = <T,>(v: T): Record<ProbeType, T> => ({ liveness: v, readiness: v, startup: v });

const doProbeCases: DoProbeCase[] = [
  { cases: "[case 106]", name: "no pod status → continue, no result", status: () => undefined, expectContinue: all(true), expectResult: all(undefined) },
  {
    cases: "[case 107]",
    name: "pod phase Failed → stop, no result",
    status: () => ({ phase: "Failed" }),
    expectContinue: all(false),
    expectResult: all(undefined),
  },
  {
    cases: "[case 108]",
    name: "running with deletionTimestamp → readiness probes on; liveness and startup stop quietly with Success",
    status: (t) => runningStatusFor(t),
    deleting: true,
    expectContinue: { readiness: true, liveness: false, startup: false },
    expectResult: all("Success"),
  },
  {
    cases: "[case 109]",
    name: "status only for another container → continue, no result",
    status: () => ({ phase: "Running", containerStatuses: [{ name: "other", containerID: "test://other", ready: false, restartCount: 0, state: { running: {} } }] }),
    expectContinue: all(true),
    expectResult: all(undefined),
  },
  {
    cases: "[case 110]",
    name: "container waiting → continue, Failure",
    status: () => ({ phase: "Pending", containerStatuses: [{ name: testContainerName, containerID: testContainerID, ready: false, restartCount: 0, state: { waiting: {} } }] }),
    expectContinue: all(true),
    expectResult: all("Failure"),
  },
  {
    cases: "[case 111]",
    name: "container terminated with restartPolicy Never → stop, Failure",
    status: () => ({ phase: "Running", containerStatuses: [{ name: testContainerName, containerID: testContainerID, ready: false, restartCount: 0, state: { terminated: { exitCode: 1 } } }] }),
    expectContinue: all(false),
    expectResult: all("Failure"),
  },
  { cases: "[case 112]", name: "running, probe succeeds → continue, Success", status: (t) => runningStatusFor(t), expectContinue: all(true), expectResult: all("Success") },
  {
    cases: "[case 113]",
    name: "InitialDelaySeconds -100 → continue, Success",
    status: (t) => runningStatusFor(t),
    initialDelaySeconds: -100,
    expectContinue: all(true),
    expectResult: all("Success"),
  },
];

describe("worker doProbe (kubelet TestDoProbe)", () => {
  for (const c of doProbeCases) {
    for (const probeType of PROBE_TYPES) {
      test(`${c.cases} TestDoProbe ${probeType}: ${c.name}`, async () => {
        const env = newTestEnv();
        const pod = testPodWithProbe(probeType, defaultTestProbe(c.initialDelaySeconds === undefined ? {} : { initialDelaySeconds: c.initialDelaySeconds }));
        if (c.deleting) pod.metadata.deletionTimestamp = new Date(FIXTURE_NOW).toISOString();
        const status = c.status?.(probeType);
        if (status) env.status.set(testPodUID, status);
        const { worker, results } = newTestWorker(env, probeType, pod);
        assert.equal(await worker.doProbe(), c.expectContinue[probeType]);
        assert.equal(results.get(testContainerID), c.expectResult[probeType]);
      });
    }
  }
});

test("[case 114] TestInitialDelay — initial value until the delay has passed, then the probe result", async () => {
  for (const probeType of PROBE_TYPES) {
    const env = newTestEnv();
    const { worker, results } = newTestWorker(env, probeType, testPodWithProbe(probeType, defaultTestProbe({ initialDelaySeconds: 10 })));
    env.status.set(testPodUID, runningStatusFor(probeType, FIXTURE_NOW));
    assert.equal(await worker.doProbe(), true);
    assert.equal(results.get(testContainerID), worker.initialValue, probeType);
    env.status.set(testPodUID, runningStatusFor(probeType, FIXTURE_NOW - 100_000));
    assert.equal(await worker.doProbe(), true);
    assert.equal(results.get(testContainerID), "Success", probeType);
  }
});

/** expectSequence runs doProbe once per entry with the fake exec set as given, checking the cache. */
async function expectSequence(env: ReturnType<typeof newTestEnv>, worker: ReturnType<typeof newTestWorker>["worker"], results: ResultsManager, steps: [ "success" | "failure", Result][]): Promise<void> {
  for (const [i, [probe, expected]] of steps.entries()) {
    env.exec.outcome = { result: probe, output: "" };
    assert.equal(await worker.doProbe(), true);
    assert.equal(results.get(testContainerID), expected, `step ${i}`);
  }
}

test("[case 115] TestFailureThreshold — readiness S=1 F=3 stays Success until 3 failures in a row", async () => {
  const env = newTestEnv();
  const { worker, results } = newTestWorker(env, "readiness", testPodWithProbe("readiness", defaultTestProbe({ successThreshold: 1, failureThreshold: 3 })));
  env.status.set(testPodUID, runningStatus({ started: true }));
  for (let round = 0; round < 2; round++) {
    await expectSequence(env, worker, results, [
      ["success", "Success"],
      ["success", "Success"],
      ["success", "Success"],
      ["failure", "Success"],
      ["failure", "Success"],
      ["failure", "Failure"],
      ["failure", "Failure"],
      ["failure", "Failure"],
    ]);
  }
});

test("[case 116] TestSuccessThreshold — readiness S=3 F=1 needs 3 successes in a row", async () => {
  const env = newTestEnv();
  const { worker, results } = newTestWorker(env, "readiness", testPodWithProbe("readiness", defaultTestProbe({ successThreshold: 3, failureThreshold: 1 })));
  env.status.set(testPodUID, runningStatus({ started: true }));
  for (let round = 0; round < 2; round++) {
    await expectSequence(env, worker, results, [
      ["success", "Failure"],
      ["success", "Failure"],
      ["success", "Success"],
      ["success", "Success"],
      ["success", "Success"],
      ["failure", "Failure"],
    ]);
  }
});

test("[case 117] TestStartupProbeSuccessThreshold — first success is written and puts the worker on hold", async () => {
  const env = newTestEnv();
  const { worker, results } = newTestWorker(env, "startup", testPodWithProbe("startup", defaultTestProbe({ successThreshold: 1, failureThreshold: 3 })));
  env.status.set(testPodUID, runningStatus({ started: false }));
  assert.equal(worker.onHold, false);
  assert.equal(await worker.doProbe(), true);
  assert.equal(results.get(testContainerID), "Success");
  assert.equal(worker.onHold, true);
  assert.equal(worker.resultRun, 0);
});

test("[case 118] TestStartupProbeFailureThreshold — Unknown until the 3rd failure, then Failure and on hold", async () => {
  const env = newTestEnv();
  env.exec.outcome = { result: "failure", output: "" };
  const { worker, results } = newTestWorker(env, "startup", testPodWithProbe("startup", defaultTestProbe({ successThreshold: 1, failureThreshold: 3 })));
  env.status.set(testPodUID, runningStatus({ started: false }));
  for (const [expected, run] of [["Unknown", 1], ["Unknown", 2], ["Failure", 0]] as const) {
    assert.equal(await worker.doProbe(), true);
    assert.equal(results.get(testContainerID), expected);
    assert.equal(worker.resultRun, run);
  }
  assert.equal(worker.onHold, true);
});

test("[case 120] TestHandleCrash — a throwing handler leaves the result unchanged and the worker going", async () => {
  const env = newTestEnv();
  const { worker, results } = newTestWorker(env, "readiness", testPodWithProbe("readiness"));
  env.status.set(testPodUID, runningStatus({ started: true }));
  assert.equal(await worker.doProbe(), true);
  assert.equal(results.get(testContainerID), "Success");
  env.exec.panic = true;
  assert.equal(await worker.doProbe(), true);
  assert.equal(results.get(testContainerID), "Success");
});

test("[case 121] TestOnHoldOnLivenessOrStartupCheckFailure — hold until a new container ID", async () => {
  for (const probeType of ["liveness", "startup"] as const) {
    const env = newTestEnv();
    env.exec.outcome = { result: "failure", output: "" };
    const { worker, results } = newTestWorker(env, probeType, testPodWithProbe(probeType));
    const started = probeType === "liveness";
    env.status.set(testPodUID, runningStatus({ started }));
    assert.equal(await worker.doProbe(), true);
    assert.equal(results.get(testContainerID), "Failure", probeType);
    assert.equal(worker.onHold, true);
    env.exec.outcome = { result: "success", output: "" };
    assert.equal(await worker.doProbe(), true);
    assert.equal(results.get(testContainerID), "Failure", `${probeType} still held`);
    assert.equal(worker.onHold, true);
    const newId = "test://newCont_ID";
    env.status.set(testPodUID, runningStatus({ started, containerId: newId }));
    assert.equal(await worker.doProbe(), true);
    assert.equal(results.get(newId), "Success", probeType);
    // Liveness is released; startup crossed its success threshold and holds again.
    assert.equal(worker.onHold, probeType === "startup");
  }
});

test("[case 122] TestResultRunOnLivenessCheckFailure — resultRun counts and resets at the threshold", async () => {
  const env = newTestEnv();
  const { worker, results } = newTestWorker(env, "liveness", testPodWithProbe("liveness", defaultTestProbe({ successThreshold: 1, failureThreshold: 3 })));
  env.status.set(testPodUID, runningStatus({ started: true }));
  const steps = [
    ["success", "Success", 1],
    ["failure", "Success", 1],
    ["failure", "Success", 2],
    ["failure", "Failure", 0],
  ] as const;
  for (const [probe, expected, run] of steps) {
    env.exec.outcome = { result: probe, output: "" };
    assert.equal(await worker.doProbe(), true);
    assert.equal(results.get(testContainerID), expected);
    assert.equal(worker.resultRun, run);
  }
});

test("[case 123] TestResultRunOnStartupCheckFailure — Unknown (1), Unknown (2), Failure (0)", async () => {
  const env = newTestEnv();
  env.exec.outcome = { result: "failure", output: "" };
  const { worker, results } = newTestWorker(env, "startup", testPodWithProbe("startup", defaultTestProbe({ successThreshold: 1, failureThreshold: 3 })));
  env.status.set(testPodUID, runningStatus({ started: false }));
  for (const [expected, run] of [["Unknown", 1], ["Unknown", 2], ["Failure", 0]] as const) {
    await worker.doProbe();
    assert.equal(results.get(testContainerID), expected);
    assert.equal(worker.resultRun, run);
  }
});

test("[case 124] TestLivenessProbeDisabledByStarted — liveness does not probe until started", async () => {
  const env = newTestEnv();
  env.exec.outcome = { result: "failure", output: "" };
  const { worker, results } = newTestWorker(env, "liveness", testPodWithProbe("liveness"));
  env.status.set(testPodUID, runningStatus({ started: false }));
  assert.equal(await worker.doProbe(), true);
  assert.equal(results.get(testContainerID), "Success");
  assert.equal(env.exec.calls.length, 0);
  env.status.set(testPodUID, runningStatus({ started: true }));
  assert.equal(await worker.doProbe(), true);
  assert.equal(results.get(testContainerID), "Failure");
});

test("[case 125] TestStartupProbeDisabledByStarted — startup stops probing once started", async () => {
  const env = newTestEnv();
  const { worker, results } = newTestWorker(env, "startup", testPodWithProbe("startup", defaultTestProbe({ successThreshold: 1, failureThreshold: 2 })));
  env.status.set(testPodUID, runningStatus({ started: false }));
  env.exec.outcome = { result: "failure", output: "" };
  await worker.doProbe();
  assert.equal(results.get(testContainerID), "Unknown");
  env.exec.outcome = { result: "success", output: "" };
  await worker.doProbe();
  assert.equal(results.get(testContainerID), "Success");
  env.status.set(testPodUID, runningStatus({ started: true }));
  env.exec.outcome = { result: "failure", output: "" };
  const calls = env.exec.calls.length;
  assert.equal(await worker.doProbe(), true);
  assert.equal(results.get(testContainerID), "Success");
  assert.equal(env.exec.calls.length, calls);
});

test("[case 126] errored probe → no counter change, resultRun and result unchanged", async () => {
  const env = newTestEnv();
  const { worker, results } = newTestWorker(env, "readiness", testPodWithProbe("readiness", defaultTestProbe({ failureThreshold: 3 })));
  env.status.set(testPodUID, runningStatus({ started: true }));
  env.exec.outcome = { result: "failure", output: "" };
  await worker.doProbe();
  assert.equal(worker.resultRun, 1);
  env.exec.outcome = { result: "unknown", output: "", error: new Error("runtime gone") };
  assert.equal(await worker.doProbe(), true);
  assert.equal(worker.resultRun, 1);
  assert.equal(worker.lastResult, "Failure");
  assert.equal(results.get(testContainerID), "Failure"); // the initial readiness value, untouched
});

test("[case 127] sidecar terminated with restartPolicy Never → Failure, worker keeps going", async () => {
  for (const features of [DEFAULT_WORKER_FEATURES, { ...DEFAULT_WORKER_FEATURES, containerRestartRules: false }]) {
    const env = newTestEnv();
    const sidecar = { name: testContainerName, restartPolicy: "Always", readinessProbe: defaultTestProbe() };
    const pod = { ...getTestPod(), spec: { restartPolicy: "Never" as const, initContainers: [sidecar], containers: [{ name: "main", image: "img" }] } };
    env.status.set(testPodUID, {
      phase: "Running",
      initContainerStatuses: [{ name: testContainerName, containerID: testContainerID, ready: false, restartCount: 0, state: { terminated: { exitCode: 1 } } }],
    });
    const { worker, results } = newTestWorker(env, "readiness", pod, new ResultsManager(), { features });
    assert.equal(await worker.doProbe(), true);
    assert.equal(results.get(testContainerID), "Failure");
  }
});

test("[case 128] terminated with OnFailure and exit 0 → classic keeps going; ContainerRestartRules stops", async () => {
  for (const [features, expected] of [
    [{ ...DEFAULT_WORKER_FEATURES, containerRestartRules: false }, true],
    [DEFAULT_WORKER_FEATURES, false],
  ] as const) {
    const env = newTestEnv();
    const pod = testPodWithProbe("readiness");
    pod.spec.restartPolicy = "OnFailure";
    env.status.set(testPodUID, {
      phase: "Running",
      containerStatuses: [{ name: testContainerName, containerID: testContainerID, ready: false, restartCount: 0, state: { terminated: { exitCode: 0 } } }],
    });
    const { worker } = newTestWorker(env, "readiness", pod, new ResultsManager(), { features });
    assert.equal(await worker.doProbe(), expected);
  }
});

test("[case 129] init container status is used; an entry with an empty containerID counts as absent", async () => {
  const env = newTestEnv();
  const { worker, results } = newTestWorker(env, "readiness", testPodWithProbe("readiness"));
  env.status.set(testPodUID, {
    phase: "Running",
    containerStatuses: [{ name: testContainerName, containerID: "", ready: false, restartCount: 0, state: { waiting: {} } }],
    initContainerStatuses: [{ name: testContainerName, containerID: testContainerID, ready: false, restartCount: 0, started: true, state: { running: { startedAt: new Date(FIXTURE_NOW).toISOString() } } }],
  });
  assert.equal(await worker.doProbe(), true);
  assert.equal(results.get(testContainerID), "Success");
});

test("[case 130] container ID change → old entry removed silently, new ID gets the initial value, hold cleared", async () => {
  const env = newTestEnv();
  const results = new ResultsManager();
  const updates: string[] = [];
  results.subscribe((u) => updates.push(`${u.containerId}=${u.result}`), { initial: true });
  env.exec.outcome = { result: "failure", output: "" };
  const probe = defaultTestProbe({ failureThreshold: 1, initialDelaySeconds: 5 });
  const { worker } = newTestWorker(env, "liveness", testPodWithProbe("liveness", probe), results);
  env.status.set(testPodUID, runningStatus({ started: true, startedAt: FIXTURE_NOW - 100_000 }));
  await worker.doProbe();
  assert.equal(worker.onHold, true);
  assert.deepEqual(updates, [`${testContainerID}=Success`, `${testContainerID}=Failure`]);
  const run = worker.resultRun;
  const last = worker.lastResult;
  // The new instance has just started: inside its initial delay, so only the initial value is written.
  env.status.set(testPodUID, runningStatus({ started: true, containerId: "test://new", startedAt: FIXTURE_NOW }));
  env.exec.outcome = { result: "success", output: "" };
  await worker.doProbe();
  assert.equal(results.get(testContainerID), undefined);
  assert.equal(results.get("test://new"), "Success");
  assert.deepEqual(updates.slice(2), ["test://new=Success"]);
  assert.equal(worker.onHold, false);
  assert.equal(worker.resultRun, run);
  assert.equal(worker.lastResult, last);
});

test("[case 132] metrics — success counts and observes duration; failure counts without a duration", async () => {
  const env = newTestEnv();
  const metrics = new ProberMetrics();
  const series = metrics.series({ probeType: "readiness", container: testContainerName, pod: "test_pod", namespace: "test_ns", podUid: testPodUID });
  const { worker } = newTestWorker(env, "readiness", testPodWithProbe("readiness"), new ResultsManager(), {}, series);
  env.status.set(testPodUID, runningStatus({ started: true }));
  await worker.doProbe();
  env.exec.outcome = { result: "failure", output: "" };
  await worker.doProbe();
  const text = await metrics.registry.metrics();
  assert.match(text, /prober_probe_total\{probe_type="Readiness",result="successful",container="cOnTaInEr_NaMe",pod="test_pod",namespace="test_ns",pod_uid="pOd_UiD"\} 1/);
  assert.match(text, /prober_probe_total\{probe_type="Readiness",result="failed",container="cOnTaInEr_NaMe",pod="test_pod",namespace="test_ns",pod_uid="pOd_UiD"\} 1/);
  assert.match(text, /prober_probe_duration_seconds_count\{probe_type="Readiness",container="cOnTaInEr_NaMe",pod="test_pod",namespace="test_ns"\} 1/);
  series.remove();
  const after = await metrics.registry.metrics();
  assert.doesNotMatch(after, /pOd_UiD/);
  assert.doesNotMatch(after, /prober_probe_duration_seconds_count\{/);
});

describe("[case 216] TestChangeContainerStatusOnKubeletRestart (kubernetes#137146: a started sidecar's startup result after an agent restart)", () => {
  // ChangeContainerStatusOnKubeletRestart on = preserveStateOnRestart off. A "restart" is a
  // container that started 5 min before the manager; otherwise it started 5 min after.
  const rows: [gate: boolean, isRestart: boolean, probeType: ProbeType, sidecar: boolean, expected: Result | undefined][] = [
    [true, true, "readiness", false, "Failure"],
    [true, true, "liveness", false, "Success"],
    [true, true, "startup", false, "Unknown"],
    [true, false, "readiness", false, "Failure"],
    [true, false, "liveness", false, "Success"],
    [true, false, "startup", false, "Unknown"],
    [false, true, "readiness", false, undefined],
    [false, true, "liveness", false, undefined],
    [false, true, "startup", false, undefined],
    [false, false, "readiness", false, "Failure"],
    [false, false, "liveness", false, "Success"],
    [false, false, "startup", false, "Unknown"],
    // Sidecars (#136910): a started sidecar's startup worker seeds Success; the others set nothing.
    [false, true, "startup", true, "Success"],
    [false, true, "liveness", true, undefined],
    [false, true, "readiness", true, undefined],
  ];
  for (const [gate, isRestart, probeType, sidecar, expected] of rows) {
    test(`feature ${gate ? "enabled" : "disabled"}, ${isRestart ? "is restart" : "not restart"}, ${probeType}${sidecar ? ", sidecar" : ""} → ${expected ?? "not set"}`, async () => {
      const env = newTestEnv();
      const managerStart = env.clock.now();
      const probe = defaultTestProbe({ initialDelaySeconds: 1000 });
      const base = testPodWithProbe(probeType, probe);
      const pod = sidecar ? { ...base, spec: { containers: [{ name: "main", image: "img" }], initContainers: [{ ...base.spec.containers[0]!, restartPolicy: "Always" as const }] } } : base;
      const { worker, results } = newTestWorker(env, probeType, pod, undefined, { managerStart, features: { ...DEFAULT_WORKER_FEATURES, preserveStateOnRestart: !gate } });
      const status = runningStatus({ started: true, containerId: "test://container-id", startedAt: managerStart + (isRestart ? -5 : 5) * 60_000 });
      env.status.set(testPodUID, sidecar ? { phase: "Running", initContainerStatuses: status.containerStatuses! } : status);
      await worker.doProbe();
      assert.equal(results.get("test://container-id"), expected);
    });
  }
});

describe("[case 217] TestDoProbeWithContainerRestartAllContainers: a worker keeps going while its container or the pod restarts in place", () => {
  const restartAll = { restartPolicy: "Never" as const, restartPolicyRules: [{ action: "RestartAllContainers", exitCodes: { operator: "In", values: [1] } }] };
  const failed = (name: string, containerID?: string): NonNullable<PodStatus["containerStatuses"]>[number] => ({ name, ...(containerID ? { containerID } : {}), ready: false, restartCount: 0, state: { terminated: { exitCode: 1 } } });
  for (const probeType of PROBE_TYPES) {
    test(`${probeType}: container terminated with a matching RestartAllContainers rule → continue`, async () => {
      const env = newTestEnv();
      const pod = testPodWithProbe(probeType);
      Object.assign(pod.spec.containers[0]!, restartAll);
      env.status.set(testPodUID, { phase: "Running", containerStatuses: [failed(testContainerName, testContainerID)] });
      assert.equal(await newTestWorker(env, probeType, pod).worker.doProbe(), true);
    });
    test(`${probeType}: container terminated by another container's RestartAllContainers → continue`, async () => {
      const env = newTestEnv();
      const pod = testPodWithProbe(probeType);
      pod.spec.containers.push({ name: "trigger", ...restartAll });
      env.status.set(testPodUID, { phase: "Running", containerStatuses: [failed(testContainerName, testContainerID), failed("trigger")] });
      assert.equal(await newTestWorker(env, probeType, pod).worker.doProbe(), true);
    });
    test(`${probeType}: container cleaned up by RestartAllContainers (waiting, pod Pending) → continue`, async () => {
      const env = newTestEnv();
      const pod = testPodWithProbe(probeType);
      pod.spec.containers.push({ name: "trigger", ...restartAll });
      env.status.set(testPodUID, { phase: "Pending", containerStatuses: [{ name: testContainerName, containerID: testContainerID, ready: false, restartCount: 0, state: { waiting: {} } }] });
      assert.equal(await newTestWorker(env, probeType, pod).worker.doProbe(), true);
    });
  }
});
