// The kubelet's prober metrics, with the same names, labels and label values
// (kubelet pkg/kubelet/prober/prober_manager.go and worker.go).
import { Registry } from "prom-client";
import type { ProbeEngineInfo } from "../probe/probe-engine.js";
import { registerProbeEngineInfo } from "./engine-metric.js";
import { durationSamples, scrapedMetric, SeriesRecord, totalSamples, type ScrapedMetric } from "./probe-series.js";
import { probeTypeLabel, type ProbeType } from "./probe-type.js";
import type { Result } from "./results/cached-result.js";

/** ProbeSeriesLabels identify one worker's series. */
export interface ProbeSeriesLabels {
  probeType: ProbeType;
  container: string;
  pod: string;
  namespace: string;
  podUid: string;
}

/** WorkerSeries is one worker's series: record() per probe, remove() on exit. */
export interface WorkerSeries {
  /** record counts a probe result and, for success and unknown only, observes its duration. */
  record(result: Result, durationSeconds: number): void;
  /** remove deletes every series of this worker. */
  remove(): void;
}

/** ProberMetrics owns prober_probe_total and prober_probe_duration_seconds in a registry. */
export class ProberMetrics {
  /** prober_probe_total{probe_type,result,container,pod,namespace,pod_uid} */
  readonly probeTotal: ScrapedMetric;
  /** prober_probe_duration_seconds{probe_type,container,pod,namespace}; Prometheus' default buckets. */
  readonly probeDuration: ScrapedMetric;
  private readonly records = new Set<SeriesRecord>();

  constructor(readonly registry: Registry = new Registry()) {
    const duration = "prober_probe_duration_seconds";
    this.probeTotal = scrapedMetric(registry, "prober_probe_total", "[BETA] Cumulative number of a liveness, readiness or startup probe for a container by result.", "counter", () => totalSamples(this.records));
    this.probeDuration = scrapedMetric(registry, duration, "[ALPHA] Duration in seconds for a probe response.", "histogram", () => durationSamples(duration, this.records));
  }

  /** recordEngine exports which probe I/O engine runs probes (probelet_probe_engine_info). */
  recordEngine(engine: ProbeEngineInfo): void {
    registerProbeEngineInfo(this.registry, engine);
  }

  /** series makes one worker's record (kubelet newWorker builds its label sets once). */
  series(labels: ProbeSeriesLabels): WorkerSeries {
    const record = new SeriesRecord(this.records, probeTypeLabel(labels.probeType), labels.container, labels.pod, labels.namespace, labels.podUid);
    this.records.add(record);
    return record;
  }
}
