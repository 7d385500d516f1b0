// The prober's per-worker series, kept as one small record per worker and turned into
// Prometheus values only when the metrics are scraped. prom-client's labelled children cost
// ≈ 1.9 KB per worker (a hashed label string and a labels object per series, a bucket map per
// histogram) and hash the labels again on every inc() and observe(); a node with 10,000 probe
// workers pays that 10,000 times (docs/performance.md, "Memory per worker").
import type { Metric, Registry } from "prom-client";
import type { Result } from "./results/cached-result.js";

/** PROBE_DURATION_BUCKETS are prober_probe_duration_seconds's upper bounds (the kubelet's: Prometheus' default buckets). */
export const PROBE_DURATION_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** SeriesValue is one sample as prom-client's registry renders it. */
export interface SeriesValue {
  metricName?: string;
  labels: Record<string, string | number>;
  value: number;
}

/** ScrapedMetric is a metric whose samples are computed when the registry renders it. */
export interface ScrapedMetric {
  readonly name: string;
  readonly help: string;
  readonly type: "counter" | "histogram";
  /** get returns the samples, in the shape of prom-client's own metrics' get(). */
  get(): Promise<{ name: string; help: string; type: "counter" | "histogram"; values: SeriesValue[]; aggregator: "sum" }>;
}

/**
 * SeriesRecord is one worker's prober_probe_total counts and prober_probe_duration_seconds
 * histogram. A series appears once it has a sample, as a prom-client child does on its first inc.
 */
export class SeriesRecord {
  successful = 0;
  failed = 0;
  unknown = 0;
  /** Observations per bucket, not cumulative; the last slot holds those above the largest bound. */
  readonly buckets: number[] = new Array<number>(PROBE_DURATION_BUCKETS.length + 1).fill(0);
  sum = 0;
  count = 0;

  constructor(
    private readonly owner: Set<SeriesRecord>,
    readonly probeType: string,
    readonly container: string,
    readonly pod: string,
    readonly namespace: string,
    readonly podUid: string,
  ) {}

  /** record counts a probe result and, for success and unknown only, observes its duration. */
  record(result: Result, durationSeconds: number): void {
    if (result === "Success") this.successful++;
    else if (result === "Failure") this.failed++;
    else this.unknown++;
    // kubelet worker.go: failed probes are counted but their duration is not observed.
    if (result === "Failure") return;
    let bucket = 0;
    while (bucket < PROBE_DURATION_BUCKETS.length && durationSeconds > PROBE_DURATION_BUCKETS[bucket]!) bucket++;
    this.buckets[bucket]!++;
    this.sum += durationSeconds;
    this.count++;
  }

  /** remove deletes every series of this worker. */
  remove(): void {
    this.owner.delete(this);
  }
}

/** totalSamples renders prober_probe_total{probe_type,result,container,pod,namespace,pod_uid}, labels in the kubelet's declared order. */
export function totalSamples(records: Iterable<SeriesRecord>): SeriesValue[] {
  const values: SeriesValue[] = [];
  for (const r of records) {
    const add = (result: string, value: number): void => {
      if (value > 0) values.push({ labels: { probe_type: r.probeType, result, container: r.container, pod: r.pod, namespace: r.namespace, pod_uid: r.podUid }, value });
    };
    add("successful", r.successful);
    add("failed", r.failed);
    add("unknown", r.unknown);
  }
  return values;
}

/** durationSamples renders prober_probe_duration_seconds{probe_type,container,pod,namespace}: cumulative buckets, +Inf, sum, count. */
export function durationSamples(name: string, records: Iterable<SeriesRecord>): SeriesValue[] {
  const values: SeriesValue[] = [];
  for (const r of records) {
    if (r.count === 0) continue;
    const labels = { probe_type: r.probeType, container: r.container, pod: r.pod, namespace: r.namespace };
    let cumulative = 0;
    for (let i = 0; i < PROBE_DURATION_BUCKETS.length; i++) {
      cumulative += r.buckets[i]!;
      values.push({ metricName: `${name}_bucket`, labels: { le: PROBE_DURATION_BUCKETS[i]!, ...labels }, value: cumulative });
    }
    values.push({ metricName: `${name}_bucket`, labels: { le: "+Inf", ...labels }, value: r.count });
    values.push({ metricName: `${name}_sum`, labels, value: r.sum });
    values.push({ metricName: `${name}_count`, labels, value: r.count });
  }
  return values;
}

/**
 * scrapedMetric makes a ScrapedMetric whose samples `samples` computes at each scrape, and
 * registers it; prom-client's registry renders any object with a name, help, type and get().
 */
export function scrapedMetric(registry: Registry, name: string, help: string, type: "counter" | "histogram", samples: () => SeriesValue[]): ScrapedMetric {
  const metric: ScrapedMetric = {
    name,
    help,
    type,
    get: () => Promise.resolve({ name, help, type, values: samples(), aggregator: "sum" }),
  };
  registry.registerMetric(metric as unknown as Metric);
  return metric;
}
