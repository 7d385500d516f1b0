// Probe history: the last probes of every worker, newest last, with the result, the handler's
// output, the latency and where the result stands against its threshold ("failure 2 of 3").
// Beyond the kubelet, which keeps only the cached result and the events it fires. Fed by the
// probe manager's onProbe hook; bounded per probe, so memory does not grow with uptime.
import type { ProbeType } from "./probe-type.js";
import type { Result } from "./results/result.js";
import type { ProbeRecord, Worker } from "./worker.js";

/** PROBE_HISTORY_LENGTH is how many probes are kept per (pod, container, probe type). */
export const PROBE_HISTORY_LENGTH = 10;

/** HISTORY_OUTPUT_CHARS bounds the handler output kept per entry (the kubelet caps output at 10 KiB). */
export const HISTORY_OUTPUT_CHARS = 256;

/** ProbeHistoryEntry is one finished probe, as the status API serves it. */
export interface ProbeHistoryEntry {
  /** When the probe finished (RFC 3339, milliseconds). */
  time: string;
  container: string;
  probeType: ProbeType;
  /** The container instance probed ("<runtime>://<id>"). */
  containerID: string;
  /** The result as the worker counts it (a handler warning is a Success). */
  result: Result;
  /** The handler's own verdict: success, warning, failure or unknown. */
  handlerResult?: string;
  /** The handler's output (exec output, HTTP body, failure reason), shortened to HISTORY_OUTPUT_CHARS. */
  output: string;
  latencyMs: number;
  /** An exec probe's command CPU (user + system, ms), where the runtime measures it. */
  cpuMs?: number;
  /** Consecutive probes with this result so far (the kubelet's resultRun). */
  run: number;
  /** The run needed before the result is written: successThreshold or failureThreshold. */
  threshold: number;
}

/**
 * describeRun renders where an entry stands against its threshold: `failure 2 of 3` until the
 * threshold is reached, then `failure (5 in a row)`; a lone result is just `success`.
 */
export function describeRun(entry: Pick<ProbeHistoryEntry, "result" | "run" | "threshold">): string {
  const word = entry.result === "Success" ? "success" : entry.result === "Failure" ? "failure" : "unknown";
  if (entry.threshold > 1 && entry.run <= entry.threshold) return `${word} ${entry.run} of ${entry.threshold}`;
  return entry.run > 1 ? `${word} (${entry.run} in a row)` : word;
}

/** ProbeHistory keeps a bounded ring of entries per probe worker, grouped by pod UID. */
export class ProbeHistory {
  /** pod UID → "<container>/<probe type>" → entries, oldest first. */
  private readonly pods = new Map<string, Map<string, ProbeHistoryEntry[]>>();

  constructor(private readonly length: number = PROBE_HISTORY_LENGTH) {}

  /** record appends a worker's finished probe (the ProbeManager's onProbe signature). */
  record(worker: Worker, record: ProbeRecord): void {
    const uid = worker.pod.metadata.uid ?? "";
    let probes = this.pods.get(uid);
    if (!probes) {
      probes = new Map();
      this.pods.set(uid, probes);
    }
    const key = `${worker.container.name}/${record.probeType}`;
    let entries = probes.get(key);
    if (!entries) {
      entries = [];
      probes.set(key, entries);
    }
    const output = record.outcome?.output ?? "";
    entries.push({
      time: new Date(record.time).toISOString(),
      container: worker.container.name,
      probeType: record.probeType,
      containerID: record.containerId,
      result: record.result,
      ...(record.outcome ? { handlerResult: record.outcome.result } : {}),
      output: output.length > HISTORY_OUTPUT_CHARS ? `${output.slice(0, HISTORY_OUTPUT_CHARS)}…` : output,
      latencyMs: roundMicros(record.durationMs),
      ...(record.outcome?.cpuSeconds !== undefined ? { cpuMs: roundMicros(record.outcome.cpuSeconds * 1000) } : {}),
      run: record.resultRun,
      threshold: record.threshold,
    });
    if (entries.length > this.length) entries.shift();
  }

  /** list returns a pod's entries of every probe, oldest first. */
  list(podUid: string): ProbeHistoryEntry[] {
    const probes = this.pods.get(podUid);
    if (!probes) return [];
    return [...probes.values()].flat().sort((a, b) => a.time.localeCompare(b.time));
  }

  /** forget drops a pod's history (the pod is gone). */
  forget(podUid: string): void {
    this.pods.delete(podUid);
  }
}

/** roundMicros rounds milliseconds to whole microseconds. */
function roundMicros(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
