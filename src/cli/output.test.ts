// Unit tests of the `probelet probe` report formats and of the synthetic pod it probes in.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { FakeClock } from "../../test/fakes/fake-clock.js";
import { formatReportText, reportJson, reportSucceeded, type ProbeReport } from "./output.js";
import { syntheticPod, SyntheticPodStatus } from "../prober/synthetic-container.js";

const TIME = Date.UTC(2026, 0, 2, 3, 4, 5, 678);

function report(overrides: Partial<ProbeReport> = {}): ProbeReport {
  return { time: TIME, probeType: "readiness", result: "success", cachedResult: "Success", output: "", durationMs: 12.3456, events: [], ...overrides };
}

describe("formatReportText", () => {
  const cases: { name: string; report: ProbeReport; want: string }[] = [
    { name: "one-shot success without output", report: report(), want: "readiness probe: success (12 ms)\n" },
    { name: "an exec probe's measured command CPU", report: report({ cpuMs: 1.449 }), want: "readiness probe: success (12 ms, 1.4 ms CPU)\n" },
    {
      name: "multi-line output is indented; trailing newlines dropped",
      report: report({ output: "a\nb\n" }),
      want: "readiness probe: success (12 ms)\n  output: a\n          b\n",
    },
    {
      name: "an event that carries the output replaces the output line",
      report: report({
        result: "failure",
        cachedResult: "Failure",
        output: "HTTP probe failed with statuscode: 503",
        events: [{ type: "Warning", reason: "Unhealthy", message: "Readiness probe failed: HTTP probe failed with statuscode: 503" }],
      }),
      want: "readiness probe: failure (12 ms)\n  Readiness probe failed: HTTP probe failed with statuscode: 503\n",
    },
    {
      name: "multi-line event messages are indented; trailing newlines dropped",
      report: report({
        result: "failure",
        cachedResult: "Failure",
        output: "out\nerr\n",
        events: [{ type: "Warning", reason: "Unhealthy", message: "Readiness probe failed: out\nerr\n" }],
      }),
      want: "readiness probe: failure (12 ms)\n  Readiness probe failed: out\n    err\n",
    },
    {
      name: "an error not in any event is printed",
      report: report({ result: "unknown", cachedResult: "Failure", error: "boom" }),
      want: "readiness probe: unknown (12 ms)\n  error: boom\n",
    },
    {
      name: "watch: time, run counter, cached result, change and restart lines",
      report: report({
        probeType: "liveness",
        result: "failure",
        cachedResult: "Failure",
        watch: {
          containerId: "probelet://a",
          run: 3,
          threshold: 3,
          probeResult: "Failure",
          changedFrom: "Success",
          restart: { message: "Container probe failed liveness probe, will be restarted", restartCount: 1, newContainerId: "probelet://b" },
        },
      }),
      want:
        "2026-01-02T03:04:05.678Z liveness probe: failure (failure 3 of 3, 12 ms) → Failure\n" +
        "→ liveness result changed: Success → Failure\n" +
        "Container probe failed liveness probe, will be restarted\n" +
        "→ container restarted (restart count 1), new container ID probelet://b\n",
    },
    {
      name: "watch: an errored probe is marked discarded",
      report: report({ result: "unknown", cachedResult: "Failure", error: "e", watch: { containerId: "probelet://a" } }),
      want: "2026-01-02T03:04:05.678Z readiness probe: unknown (errored, discarded, 12 ms) → Failure\n  error: e\n",
    },
  ];
  for (const c of cases) test(c.name, () => assert.equal(formatReportText(c.report), c.want));
});

describe("reportJson", () => {
  test("one line with an ISO time, rounded durationMs and no error key when there is none", () => {
    assert.equal(
      reportJson(report({ output: "ok" })),
      '{"time":"2026-01-02T03:04:05.678Z","probeType":"readiness","result":"success","cachedResult":"Success","output":"ok","events":[],"durationMs":12.346}',
    );
    assert.match(reportJson(report({ cpuMs: 1.23456 })), /"durationMs":12\.346,"cpuMs":1\.235\}$/);
  });

  test("watch fields are flattened; an errored watch probe is marked discarded", () => {
    const json = JSON.parse(reportJson(report({ error: "e", result: "unknown", watch: { containerId: "probelet://a" } }))) as Record<string, unknown>;
    assert.equal(json["error"], "e");
    assert.equal(json["containerId"], "probelet://a");
    assert.equal(json["discarded"], true);
  });
});

describe("reportSucceeded", () => {
  const cases: [Partial<ProbeReport>, boolean][] = [
    [{ result: "success" }, true],
    [{ result: "warning" }, true],
    [{ result: "failure" }, false],
    [{ result: "unknown" }, false],
    [{ result: "success", error: "errored" }, false],
  ];
  for (const [overrides, want] of cases) {
    test(`${overrides.result ?? ""}${overrides.error ? " with an error" : ""} → ${want ? "exit 0" : "exit 1"}`, () => {
      assert.equal(reportSucceeded(report(overrides)), want);
    });
  }
});

describe("synthetic pod", () => {
  test("one container named probe carrying the probe under its type; restartPolicy Always", () => {
    const pod = syntheticPod("liveness", { tcpSocket: { port: 1 } });
    assert.equal(pod.spec.restartPolicy, "Always");
    assert.deepEqual(pod.spec.containers, [{ name: "probe", livenessProbe: { tcpSocket: { port: 1 } } }]);
  });

  test("status: running since now, started except for startup; restart() gives a new instance", async () => {
    const clock = new FakeClock(TIME);
    const status = new SyntheticPodStatus("::1", "startup", clock);
    const first = status.containerId;
    assert.match(first, /^probelet:\/\/[0-9a-f]{12}$/);
    assert.equal(status.getPodStatus().podIP, "::1");
    assert.deepEqual(status.getPodStatus().containerStatuses?.[0], {
      name: "probe",
      containerID: first,
      state: { running: { startedAt: "2026-01-02T03:04:05.678Z" } },
      ready: false,
      restartCount: 0,
      started: false,
    });
    await clock.advance(5000);
    assert.deepEqual(status.restart(), { restartCount: 1, newContainerId: status.containerId });
    assert.notEqual(status.containerId, first);
    const restarted = status.getPodStatus().containerStatuses?.[0];
    assert.equal(restarted?.state?.running?.startedAt, "2026-01-02T03:04:10.678Z");
    assert.equal(restarted?.restartCount, 1);
    assert.equal(new SyntheticPodStatus("", "readiness", clock).getPodStatus().containerStatuses?.[0]?.started, true);
  });
});
