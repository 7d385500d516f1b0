// The report both drivers print: a few human lines, then one `RESULT {json}` line whose field
// names are the anchor driver's (see /work/shared/anchors/README.md and driver/main.go).

/** DriverResult is the parsed `RESULT` JSON; null stands for a figure that could not be computed. */
export interface DriverResult {
  driver: string;
  mode: string;
  kind: string;
  n: number;
  period_s: number;
  duration_s: number;
  probes_completed: number;
  probes_expected: number;
  probes_per_s: number;
  success: number;
  failure: number;
  latency_p50_ms: number | null;
  latency_p99_ms: number | null;
  /** Load mode only (absent in seq mode). */
  lag_p50_ms?: number | null;
  lag_p99_ms?: number | null;
  lag_max_ms?: number | null;
  cpu_user_s: number;
  cpu_sys_s: number;
  cpu_s: number;
  children_cpu_s: number;
  peak_rss_mb: number;
  cpu_us_per_probe: number;
  extra?: Record<string, unknown>;
}

const RESULT_PREFIX = "RESULT ";

/** formatReport renders the human lines and the RESULT line, like the anchor's printReport. */
export function formatReport(r: DriverResult): string {
  const v = (x: unknown): string => (x === null || x === undefined ? "NaN" : String(x));
  const lines = [
    `driver=${r.driver} mode=${r.mode} kind=${r.kind} n=${r.n} period=${r.period_s}s duration=${r.duration_s}s`,
    `probes_completed=${r.probes_completed} expected=${r.probes_expected} probes_per_s=${r.probes_per_s} success=${r.success} failure=${r.failure}`,
    `latency_ms p50=${v(r.latency_p50_ms)} p99=${v(r.latency_p99_ms)}`,
  ];
  if ("lag_p50_ms" in r) lines.push(`sched_lag_ms p50=${v(r.lag_p50_ms)} p99=${v(r.lag_p99_ms)} max=${v(r.lag_max_ms)}`);
  lines.push(
    `cpu_s user=${r.cpu_user_s} sys=${r.cpu_sys_s} total=${r.cpu_s} children=${r.children_cpu_s} peak_rss_mb=${r.peak_rss_mb} cpu_us_per_probe=${r.cpu_us_per_probe}`,
  );
  lines.push(RESULT_PREFIX + JSON.stringify(r));
  return lines.join("\n") + "\n";
}

/** parseResultLine finds the last `RESULT {json}` line in a driver's output; undefined if none parses. */
export function parseResultLine(output: string): DriverResult | undefined {
  const lines = output.split("\n").filter((l) => l.startsWith(RESULT_PREFIX));
  const last = lines[lines.length - 1];
  if (last === undefined) return undefined;
  try {
    return JSON.parse(last.slice(RESULT_PREFIX.length)) as DriverResult;
  } catch {
    return undefined;
  }
}

/** cpuUsPerProbeWithChildren is (own + reaped children's CPU) per completed probe, in µs. */
export function cpuUsPerProbeWithChildren(r: DriverResult): number {
  return ((r.cpu_s + r.children_cpu_s) * 1e6) / Math.max(1, r.probes_completed);
}
