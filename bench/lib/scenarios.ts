// The A/B scenarios and their targets (from the performance issue): each runs the same flags
// through the anchor driver and the probelet driver and compares probelet/anchor ratios.
import { cpuUsPerProbeWithChildren, type DriverResult } from "./result-line.js";

/** TARGET_HOST and the two target ports the anchor target listens on. */
export const TARGET_HOST = "127.0.0.1";
/** HTTP_PORT is the anchor target's HTTP port. */
export const HTTP_PORT = 23080;
/** TCP_PORT is the anchor target's accept-and-close TCP port. */
export const TCP_PORT = 23081;
/** GRPC_PORT is the gRPC anchor's health server port. */
export const GRPC_PORT = 23082;

/** MetricName names a compared figure. */
export type MetricName = "cpu_us_per_probe" | "cpu_us_per_probe_incl_children" | "lag_p99_ms" | "peak_rss_mb" | "prober_time_wait";

/** RatioTarget is a pass condition: median ratio probelet/anchor of `metric` ≤ `max`. */
export interface RatioTarget {
  metric: MetricName;
  max: number;
}

/** Scenario is one A/B comparison. */
export interface Scenario {
  name: string;
  /** Driver flags, identical for both drivers. */
  args: string[];
  /** The nominal load duration, for time bounds and estimates. */
  durationMs: number;
  /** The target port whose TIME-WAIT sockets are counted (none for exec). */
  port: number | undefined;
  /** The CPU metric compared for this scenario (exec counts children). */
  cpuMetric: MetricName;
  targets: RatioTarget[];
  /** Which anchor driver runs it: the kubelet-probe-method anchor, or the gRPC anchor. */
  anchor: "main" | "grpc";
}

const httpUrl = `http://${TARGET_HOST}:${HTTP_PORT}/healthz`;

function scenario(name: string, kind: string, target: string, n: number, period: string, durationS: number, port: number | undefined, targets: RatioTarget[]): Scenario {
  return {
    name,
    args: ["-kind", kind, "-target", target, "-n", String(n), "-period", period, "-duration", `${durationS}s`, "-timeout", "1s"],
    durationMs: durationS * 1000,
    port,
    cpuMetric: kind === "exec" ? "cpu_us_per_probe_incl_children" : "cpu_us_per_probe",
    targets,
    anchor: kind === "grpc" ? "grpc" : "main",
  };
}

/** scenarios lists the comparisons; `quick` shortens every run for a smoke test. */
export function scenarios(quick: boolean): Scenario[] {
  const d = (full: number, short: number): number => (quick ? short : full);
  return [
    scenario("http", "http", httpUrl, 1000, "1s", d(20, 5), HTTP_PORT, [{ metric: "cpu_us_per_probe", max: 0.5 }, { metric: "prober_time_wait", max: 0 }]),
    scenario("tcp", "tcp", `${TARGET_HOST}:${TCP_PORT}`, 1000, "1s", d(20, 5), TCP_PORT, [{ metric: "cpu_us_per_probe", max: 0.5 }, { metric: "prober_time_wait", max: 0.999 }]),
    scenario("exec", "exec", "/bin/true", 100, "1s", d(20, 5), undefined, [
      { metric: "cpu_us_per_probe_incl_children", max: 1.0 },
      { metric: "lag_p99_ms", max: 1.0 },
    ]),
    scenario("scale", "http", httpUrl, 10000, "10s", d(30, 12), HTTP_PORT, [
      { metric: "lag_p99_ms", max: 1.0 },
      { metric: "peak_rss_mb", max: 1.0 },
    ]),
    // A new connection per probe, as the kubelet makes it; reported, no target set.
    scenario("grpc", "grpc", `${TARGET_HOST}:${GRPC_PORT}`, 1000, "1s", d(20, 5), GRPC_PORT, []),
  ];
}

/** metricValue reads one compared figure from a run; prober-side TIME-WAIT comes from `ss`. */
export function metricValue(metric: MetricName, r: DriverResult, proberTimeWait: number | undefined): number {
  switch (metric) {
    case "cpu_us_per_probe":
      return r.cpu_us_per_probe;
    case "cpu_us_per_probe_incl_children":
      return cpuUsPerProbeWithChildren(r);
    case "lag_p99_ms":
      return r.lag_p99_ms ?? Number.NaN;
    case "peak_rss_mb":
      return r.peak_rss_mb;
    case "prober_time_wait":
      return proberTimeWait ?? Number.NaN;
  }
}
