import assert from "node:assert/strict";
import { test } from "node:test";
import { Counter, Histogram, Registry } from "prom-client";
import { ProberMetrics } from "./metrics.js";
import type { ProbeType } from "./probe-type.js";
import type { Result } from "./results/cached-result.js";

const RESULT_LABEL: Record<Result, string> = { Success: "successful", Failure: "failed", Unknown: "unknown" };
const TYPE_LABEL: Record<ProbeType, string> = { readiness: "Readiness", liveness: "Liveness", startup: "Startup" };

/** lines sorts an exposition's lines: the series' order is not part of the format. */
function lines(text: string): string[] {
  return text.split("\n").filter((l) => l !== "").sort();
}

test("ProberMetrics renders the same samples as prom-client's own Counter and Histogram given the same probes, and drops a removed worker's", async () => {
  // The reference: labelled prom-client children, as the kubelet's metrics are declared.
  const reference = new Registry();
  const total = new Counter({
    name: "prober_probe_total",
    help: "[BETA] Cumulative number of a liveness, readiness or startup probe for a container by result.",
    labelNames: ["probe_type", "result", "container", "pod", "namespace", "pod_uid"],
    registers: [reference],
  });
  const duration = new Histogram({
    name: "prober_probe_duration_seconds",
    help: "[ALPHA] Duration in seconds for a probe response.",
    labelNames: ["probe_type", "container", "pod", "namespace"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [reference],
  });
  const metrics = new ProberMetrics();
  // Label values that need escaping, and durations on, between and beyond the bucket bounds.
  const workers = [
    { probeType: "readiness", container: "c1", pod: 'p"1', namespace: "ns", podUid: "u1" },
    { probeType: "liveness", container: "c2", pod: "p2", namespace: "ns\\x", podUid: "u2" },
    { probeType: "startup", container: "c3", pod: "p3\n", namespace: "ns", podUid: "u3" },
  ] as const;
  const series = workers.map((w) => metrics.series(w));
  const probes: [number, Result, number][] = [[0, "Success", 0.003], [0, "Success", 0.01], [1, "Failure", 0.5], [1, "Unknown", 12], [0, "Unknown", 0.02], [2, "Success", 0.005], [2, "Success", 1], [1, "Success", 0.1]];
  for (const [i, result, seconds] of probes) {
    const w = workers[i]!;
    const base = { probe_type: TYPE_LABEL[w.probeType], container: w.container, pod: w.pod, namespace: w.namespace };
    // prom-client renders labels in the order given: the kubelet's declared order.
    total.inc({ probe_type: base.probe_type, result: RESULT_LABEL[result], container: w.container, pod: w.pod, namespace: w.namespace, pod_uid: w.podUid });
    if (result !== "Failure") duration.observe(base, seconds);
    series[i]!.record(result, seconds);
  }
  assert.deepEqual(lines(await metrics.registry.metrics()), lines(await reference.metrics()));

  series[1]!.remove();
  const removed = workers[1];
  const base = { probe_type: "Liveness", container: removed.container, pod: removed.pod, namespace: removed.namespace };
  for (const result of Object.values(RESULT_LABEL)) total.remove({ probe_type: "Liveness", result, container: removed.container, pod: removed.pod, namespace: removed.namespace, pod_uid: removed.podUid });
  duration.remove(base);
  assert.deepEqual(lines(await metrics.registry.metrics()), lines(await reference.metrics()));
});

test("a worker's series appear with its first probe: a new worker adds nothing to the exposition", async () => {
  const metrics = new ProberMetrics();
  const empty = await metrics.registry.metrics();
  metrics.series({ probeType: "liveness", container: "c", pod: "p", namespace: "n", podUid: "u" });
  assert.equal(await metrics.registry.metrics(), empty);
  assert.doesNotMatch(empty, /^prober_probe/m);
});
