// The kubelet's prober metrics, with the same names, labels and label values
// (kubelet pkg/kubelet/prober/prober_manager.go and worker.go).
import { Counter, Histogram, Registry } from "prom-client";
import type { ProbeEngineInfo } from "../probe/probe-engine.js";
import { registerProbeEngineInfo } from "./engine-metric.js";
import { probeTypeLabel, type ProbeType } from "./probe-type.js";
import type { Result } from "./results/result.js";

/** ProbeSeriesLabels identify one worker's series. */
export interface ProbeSeriesLabels {
  probeType: ProbeType;
  container: string;
  pod: string;
  namespace: string;
  podUid: string;
}

/** WorkerSeries is one worker's precomputed label sets: record() per probe, remove() on exit. */
export interface WorkerSeries {
  /** record counts a probe result and, for success and unknown only, observes its duration. */
  record(result: Result, durationSeconds: number): void;
  /** remove deletes every series of this worker. */
  remove(): void;
}

/** PROBE_RESULT_LABEL maps a Result to the kubelet's `result` label value. */
export const PROBE_RESULT_LABEL: Record<Result, "successful" | "failed" | "unknown"> = {
  Success: "successful",
  Failure: "failed",
  Unknown: "unknown",
};

/** ProberMetrics owns prober_probe_total and prober_probe_duration_seconds in a registry. */
export class ProberMetrics {
  /** prober_probe_total{probe_type,result,container,pod,namespace,pod_uid} */
  readonly probeTotal: Counter;
  /** prober_probe_duration_seconds{probe_type,container,pod,namespace}; default buckets. */
  readonly probeDuration: Histogram;

  constructor(readonly registry: Registry = new Registry()) {
    this.probeTotal = new Counter({
      name: "prober_probe_total",
      help: "[BETA] Cumulative number of a liveness, readiness or startup probe for a container by result.",
      labelNames: ["probe_type", "result", "container", "pod", "namespace", "pod_uid"],
      registers: [registry],
    });
    this.probeDuration = new Histogram({
      name: "prober_probe_duration_seconds",
      help: "[ALPHA] Duration in seconds for a probe response.",
      labelNames: ["probe_type", "container", "pod", "namespace"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
  }

  /** recordEngine exports which probe I/O engine runs probes (probelet_probe_engine_info). */
  recordEngine(engine: ProbeEngineInfo): void {
    registerProbeEngineInfo(this.registry, engine);
  }

  /** series precomputes one worker's label sets (kubelet newWorker builds them once). */
  series(labels: ProbeSeriesLabels): WorkerSeries {
    // Label objects are built in the kubelet's declared label order, which prom-client keeps.
    const type = probeTypeLabel(labels.probeType);
    const total = (result: string) => ({ probe_type: type, result, container: labels.container, pod: labels.pod, namespace: labels.namespace, pod_uid: labels.podUid });
    const base = { probe_type: type, container: labels.container, pod: labels.pod, namespace: labels.namespace };
    const totals = {
      Success: this.probeTotal.labels(total("successful")),
      Failure: this.probeTotal.labels(total("failed")),
      Unknown: this.probeTotal.labels(total("unknown")),
    };
    const duration = this.probeDuration.labels(base);
    return {
      record: (result, seconds) => {
        totals[result].inc();
        // kubelet worker.go: failed probes are counted but their duration is not observed.
        if (result !== "Failure") duration.observe(seconds);
      },
      remove: () => {
        for (const result of ["successful", "failed", "unknown"]) this.probeTotal.remove(total(result));
        this.probeDuration.remove(base);
      },
    };
  }
}
