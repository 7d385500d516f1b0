import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Container, Probe } from "../api/types.js";
import type { ProbeOutcome, ProbeResult } from "../probe/probe-result.js";
import { getTestPod, noopRunner, runningStatus, testContainerID, testPodUID } from "../../test/fixtures.js";
import { MemoryEventRecorder } from "./event-recorder.js";
import { MAX_PROBE_RETRIES, Prober, type ProbeHandlers } from "./prober.js";
import { PROBE_TYPES, type ProbeType } from "./probe-type.js";

/** fakeHandlers returns every handler answering `outcome`, counting calls and recording arguments. */
function fakeHandlers(outcome: () => ProbeOutcome) {
  const calls: { kind: string; args: unknown[] }[] = [];
  const answer = (kind: string) => async (...args: unknown[]) => {
    calls.push({ kind, args });
    return outcome();
  };
  const handlers: ProbeHandlers = { exec: answer("exec"), http: answer("http"), tcp: answer("tcp"), grpc: answer("grpc") };
  return { handlers, calls };
}

function containerWith(probeType: ProbeType, probe: Probe | undefined, extra: Partial<Container> = {}): Container {
  const field = probeType === "liveness" ? "livenessProbe" : probeType === "readiness" ? "readinessProbe" : "startupProbe";
  return { name: "c", ...(probe ? { [field]: probe } : {}), ...extra };
}

async function runProbe(probeType: ProbeType, probe: Probe | undefined, outcome: ProbeOutcome, extra: Partial<Container> = {}) {
  const { handlers, calls } = fakeHandlers(() => outcome);
  const recorder = new MemoryEventRecorder();
  const prober = new Prober({ runner: noopRunner, recorder, handlers });
  const container = containerWith(probeType, probe, extra);
  const got = await prober.probe(probeType, getTestPod(container), runningStatus(), container, testContainerID);
  return { got, calls, recorder };
}

const execProbe: Probe = { exec: { command: ["/bin/true"] }, timeoutSeconds: 1 };
const ok = (result: ProbeResult, output = ""): ProbeOutcome => ({ result, output });

describe("prober (kubelet TestProbe)", () => {
  for (const probeType of PROBE_TYPES) {
    test(`[case 81] ${probeType}: no probe → Success without error`, async () => {
      const { got, calls } = await runProbe(probeType, undefined, ok("failure"));
      assert.deepEqual([got.result, got.error], ["Success", undefined]);
      assert.equal(calls.length, 0);
    });
    test(`[case 82] ${probeType}: probe with no handler → Failure with error`, async () => {
      const { got } = await runProbe(probeType, { timeoutSeconds: 1 }, ok("success"));
      assert.equal(got.result, "Failure");
      // kubelet prober.go: "missing probe handler for <format.Pod>:<container>" (name_namespace(uid)).
      assert.equal(got.error?.message, `missing probe handler for test_pod_test_ns(${testPodUID}):c`);
    });
    const rows: [string, string, ProbeOutcome, "Success" | "Failure", boolean][] = [
      ["[case 83]", "exec failure → Failure", ok("failure"), "Failure", false],
      ["[case 84]", "exec success → Success", ok("success"), "Success", false],
      ["[case 85]", "exec warning → Success", ok("warning"), "Success", false],
      ["[case 86]", "exec unknown without error → Failure", ok("unknown"), "Failure", false],
      ["[case 87]", "exec unknown with error → Failure with error", { result: "unknown", output: "", error: new Error("exec error") }, "Failure", true],
      ["[case 91]", "unsupported custom result value → Failure", ok("bogus" as ProbeResult), "Failure", false],
    ];
    for (const [tag, name, outcome, expected, hasError] of rows) {
      test(`${tag} ${probeType}: ${name}`, async () => {
        const { got, calls } = await runProbe(probeType, execProbe, outcome);
        assert.equal(got.result, expected);
        assert.equal(got.error !== undefined, hasError);
        assert.equal(calls.length, hasError ? MAX_PROBE_RETRIES : 1);
      });
    }
    for (const [tag, kind, probe] of [
      ["[case 92]", "HTTP", { httpGet: { port: 80, path: "/", scheme: "HTTP" }, timeoutSeconds: 1 }],
      ["[case 94]", "TCP", { tcpSocket: { port: 80 }, timeoutSeconds: 1 }],
      ["[case 96]", "gRPC", { grpc: { port: 80, service: "" }, timeoutSeconds: 1 }],
    ] as const) {
      test(`${tag} ${probeType}: ${kind} success / failure / warning / unknown → Success / Failure / Success / Failure`, async () => {
        const got: string[] = [];
        for (const r of ["success", "failure", "warning", "unknown"] as const) got.push((await runProbe(probeType, probe, ok(r))).got.result);
        assert.deepEqual(got, ["Success", "Failure", "Success", "Failure"]);
      });
    }
    for (const [tag, kind, probe] of [
      ["[case 93]", "HTTP", { httpGet: { port: "abc", path: "/", scheme: "HTTP" }, timeoutSeconds: 1 }],
      ["[case 95]", "TCP", { tcpSocket: { port: "abc" }, timeoutSeconds: 1 }],
    ] as const) {
      test(`${tag} ${probeType}: ${kind} with unresolvable port "abc" → Failure with error, handler never called`, async () => {
        const { got, calls, recorder } = await runProbe(probeType, probe, ok("success"));
        assert.equal(got.result, "Failure");
        assert.ok(got.error);
        assert.equal(calls.length, 0);
        assert.equal(recorder.events.length, 1);
      });
    }
  }

  test("[case 88] unsupported probe type → Failure with error", async () => {
    const { handlers } = fakeHandlers(() => ok("success"));
    const prober = new Prober({ runner: noopRunner, recorder: new MemoryEventRecorder(), handlers });
    const c = containerWith("liveness", execProbe);
    const got = await prober.probe(666 as unknown as ProbeType, getTestPod(c), runningStatus(), c, testContainerID);
    assert.equal(got.result, "Failure");
    assert.equal(got.error?.message, 'unknown probe type: "666"');
  });

  test("[case 89] exec command is passed through unchanged to the runner", async () => {
    const { calls } = await runProbe("liveness", { exec: { command: ["/bin/bash", "-c", "some script"] }, timeoutSeconds: 1 }, ok("success"));
    assert.deepEqual(calls[0]?.args.slice(1, 3), [testContainerID, ["/bin/bash", "-c", "some script"]]);
  });

  test("[case 90] exec command gets static $(VAR) expansion from the container env", async () => {
    const probe = { exec: { command: ["/bin/bash", "-c", "some $(A) $(B)"] }, timeoutSeconds: 1 };
    const { calls } = await runProbe("liveness", probe, ok("success"), { env: [{ name: "A", value: "script" }] });
    assert.deepEqual(calls[0]?.args[2], ["/bin/bash", "-c", "some script $(B)"]);
  });

  test("[case 99] TestRecordContainerEventUnknownStatus — warning event text", async () => {
    const { recorder } = await runProbe("readiness", execProbe, ok("warning", "probe output"));
    assert.deepEqual(recorder.strings(), ["Warning ProbeWarning Readiness probe warning: probe output"]);
  });

  test("[case 100] retries only errors: 2 errors then success → 3 calls, result of the 3rd", async () => {
    let n = 0;
    const { handlers, calls } = fakeHandlers(() => (++n < 3 ? { result: "unknown", output: "", error: new Error(`attempt ${n}`) } : ok("success")));
    const prober = new Prober({ runner: noopRunner, recorder: new MemoryEventRecorder(), handlers });
    const c = containerWith("readiness", execProbe);
    const got = await prober.probe("readiness", getTestPod(c), runningStatus(), c, testContainerID);
    assert.deepEqual([got.result, got.error, calls.length], ["Success", undefined, 3]);
    const failing = await runProbe("readiness", execProbe, ok("failure"));
    assert.equal(failing.calls.length, 1, "a failure is never retried");
  });

  test("[case 101] events: failure, errored, warning; none for success and unknown", async () => {
    const cases: [ProbeOutcome, string[]][] = [
      [ok("failure", "HTTP probe failed with statuscode: 503"), ["Warning Unhealthy Liveness probe failed: HTTP probe failed with statuscode: 503"]],
      [ok("failure", ""), ["Warning Unhealthy Liveness probe failed: "]],
      [{ result: "unknown", output: "", error: new Error("boom") }, ["Warning Unhealthy Liveness probe errored and resulted in unknown state: boom"]],
      [ok("warning", "w"), ["Warning ProbeWarning Liveness probe warning: w"]],
      [ok("success", "fine"), []],
      [ok("unknown"), []],
    ];
    for (const [outcome, expected] of cases) {
      const { recorder } = await runProbe("liveness", execProbe, outcome);
      assert.deepEqual(recorder.strings(), expected);
    }
  });

  test("events carry the container name and pod", async () => {
    const { recorder } = await runProbe("startup", execProbe, ok("failure", "x"));
    assert.equal(recorder.events[0]?.target.containerName, "c");
    assert.equal(recorder.events[0]?.target.pod.metadata.name, "test_pod");
  });
});
