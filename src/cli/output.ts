// What `probelet probe` prints: a ProbeReport per probe, as human text or as one JSON object per
// line, plus the watch mode's result-change and restart lines. Pure formatting, no I/O.
import type { ProbeResult } from "../probe/probe-result.js";
import type { ProbeType } from "../prober/probe-type.js";
import type { Result } from "../prober/results/cached-result.js";

/** ReportedEvent is an event the prober recorded during a probe (kubelet Unhealthy/ProbeWarning). */
export interface ReportedEvent {
  type: string;
  reason: string;
  message: string;
}

/** WatchDetails are the worker-level facts a watched probe adds to its report. */
export interface WatchDetails {
  containerId: string;
  /** The consecutive count of this result (kubelet resultRun); absent when the probe errored. */
  run?: number;
  /** The threshold `run` must reach for the result to be cached. */
  threshold?: number;
  /** The result the prober returned for this one probe (before thresholds). */
  probeResult?: Result;
  /** The cached result before this probe, when this probe changed it. */
  changedFrom?: Result;
  /** Set when this probe made the kubelet restart the container. */
  restart?: { message: string; restartCount: number; newContainerId?: string };
}

/** ProbeReport is one probe as `probelet probe` reports it. */
export interface ProbeReport {
  /** Wall-clock time when the probe finished (ms since the epoch). */
  time: number;
  probeType: ProbeType;
  /** The handler's low-level result; an errored probe reports "unknown". */
  result: ProbeResult;
  /** One-shot: the Result the prober maps this probe to; watch: the cached result after it. */
  cachedResult: Result;
  output: string;
  durationMs: number;
  /** An exec probe command's CPU (user + system, ms), when the runner measured it. */
  cpuMs?: number;
  /** The reason the probe could not be run (it is then discarded by a kubelet worker). */
  error?: string;
  events: ReportedEvent[];
  watch?: WatchDetails;
}

/** reportSucceeded: success and warning count as success for exit codes; errors never do. */
export function reportSucceeded(report: ProbeReport): boolean {
  return report.error === undefined && (report.result === "success" || report.result === "warning");
}

/** reportJson renders a report as a single-line JSON object. */
export function reportJson(report: ProbeReport): string {
  const { watch, time, durationMs, cpuMs, ...rest } = report;
  const json: Record<string, unknown> = {
    time: new Date(time).toISOString(),
    ...rest,
    durationMs: Math.round(durationMs * 1000) / 1000,
    ...(cpuMs !== undefined ? { cpuMs: Math.round(cpuMs * 1000) / 1000 } : {}),
  };
  if (report.error === undefined) delete json["error"];
  if (watch) Object.assign(json, watch, watch.run === undefined ? { discarded: true } : {});
  return JSON.stringify(json);
}

/**
 * formatReportText renders a report for people: a headline such as `readiness probe: success (12 ms)`
 * (`(12 ms, 1.4 ms CPU)` for an exec probe whose command's CPU was measured)
 * (watch mode adds the time, the "failure 2 of 3" counter and the cached result), then the
 * events' messages, then the output unless an event message already carries it.
 */
export function formatReportText(report: ProbeReport): string {
  const ms = `${Math.round(report.durationMs)} ms${report.cpuMs !== undefined ? `, ${Math.round(report.cpuMs * 10) / 10} ms CPU` : ""}`;
  const lines: string[] = [];
  const watch = report.watch;
  if (!watch) {
    lines.push(`${report.probeType} probe: ${report.result} (${ms})`);
  } else {
    const counter = watch.run === undefined ? "errored, discarded" : `${lower(watch.probeResult)} ${watch.run} of ${watch.threshold ?? 1}`;
    lines.push(`${new Date(report.time).toISOString()} ${report.probeType} probe: ${report.result} (${counter}, ${ms}) → ${report.cachedResult}`);
  }
  for (const event of report.events) lines.push(...indented("  ", "    ", event.message));
  if (report.error !== undefined && !report.events.some((e) => e.message.includes(report.error ?? ""))) {
    lines.push(`  error: ${report.error}`);
  }
  const output = report.output.replace(/\n+$/, "");
  if (output !== "" && !report.events.some((e) => e.message.includes(output))) {
    lines.push(...indented("  output: ", "          ", output));
  }
  if (watch?.changedFrom !== undefined) lines.push(formatChangeText(report.probeType, watch.changedFrom, report.cachedResult));
  if (watch?.restart) lines.push(...formatRestartText(watch.restart));
  return lines.join("\n") + "\n";
}

/** formatChangeText is the line for a change of the cached result: `→ readiness result changed: Failure → Success`. */
export function formatChangeText(probeType: ProbeType, from: Result, to: Result): string {
  return `→ ${probeType} result changed: ${from} → ${to}`;
}

/** formatInitialText is the line for the initial value the worker caches for a new container. */
export function formatInitialText(probeType: ProbeType, value: Result, containerId: string): string {
  return `→ ${probeType} result: ${value} (initial value for container ${containerId})\n`;
}

/** formatRestartText renders the kubelet's kill message and the simulated restart. */
export function formatRestartText(restart: NonNullable<WatchDetails["restart"]>): string[] {
  const lines = [restart.message];
  if (restart.newContainerId !== undefined) {
    lines.push(`→ container restarted (restart count ${restart.restartCount}), new container ID ${restart.newContainerId}`);
  }
  return lines;
}

/** indented prefixes the first line of a text and indents the rest; trailing newlines are dropped. */
function indented(first: string, rest: string, text: string): string[] {
  return text
    .replace(/\n+$/, "")
    .split("\n")
    .map((line, i) => (i === 0 ? first : rest) + line);
}

function lower(result: Result | undefined): string {
  return (result ?? "Unknown").toLowerCase();
}
