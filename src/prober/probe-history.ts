// Probe history: every worker's probes over a window (default 24 h), newest last, with the result,
// the handler's output, the latency and where the result stands against its threshold
// ("failure 2 of 3"). Beyond the kubelet, which keeps only the cached result and the events it
// fires. Fed by the probe manager's onProbe hook. Bounded: per worker the newest RECENT_ENTRIES
// probes are kept whole; older ones collapse into segments, runs of identical results
// (start, end, count, latency min/max/sum, last output) of at most SEGMENT_SPAN_MS, at most
// MAX_SEGMENTS of them. Persisted through probe-history-file.ts so it survives an agent restart.
import type { ProbeType } from "./probe-type.js";
import type { Result } from "./results/cached-result.js";
import type { ProbeRecord, Worker } from "./worker.js";

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

/** ProbeHistorySegment is a run of identical results of one worker, collapsed to a summary. */
export interface ProbeHistorySegment {
  container: string;
  probeType: ProbeType;
  containerID: string;
  result: Result;
  /** The first and last probe of the run (RFC 3339, milliseconds). */
  start: string;
  end: string;
  count: number;
  latencyMinMs: number;
  latencyMaxMs: number;
  latencySumMs: number;
  /** The last probe's output, shortened as entries' are. */
  lastOutput: string;
  /** The last probe's run and threshold ("failure 7 of 3" reads as past the threshold). */
  lastRun: number;
  threshold: number;
}

/** ProbeHistoryRange is what a range query answers: whole entries and collapsed segments, oldest first. */
export interface ProbeHistoryRange {
  items: ProbeHistoryEntry[];
  segments: ProbeHistorySegment[];
}

/** HistoryQuery selects part of a pod's history; times in ms since the epoch, unbounded when absent. */
export interface HistoryQuery {
  since?: number;
  until?: number;
  container?: string;
  probeType?: ProbeType;
}

/** DEFAULT_HISTORY_WINDOW_MS is how long history is kept by default (24 h). */
export const DEFAULT_HISTORY_WINDOW_MS = 24 * 3600_000;
/** RECENT_ENTRIES is how many probes per worker are kept whole (1 min at periodSeconds 1, 10 min at the default 10). */
export const RECENT_ENTRIES = 60;
/** SEGMENT_SPAN_MS is the longest time one segment covers, so a day of one result is still drawn in steps. */
export const SEGMENT_SPAN_MS = 5 * 60_000;
/** MAX_SEGMENTS bounds the segments per worker (a day of 5-minute segments is 288; flapping uses more). */
export const MAX_SEGMENTS = 1024;

/** HistorySink is where a pod's new probes go to be persisted (probe-history-file.ts). */
export interface HistorySink {
  /** append is called with every probe recorded; it may batch. */
  append(podUid: string, key: WorkerKey, entry: ProbeHistoryEntry): void;
  /** forget drops a pod's saved history. */
  forget(podUid: string): void;
}

/** WorkerKey names one worker's history within a pod. */
export interface WorkerKey {
  container: string;
  probeType: ProbeType;
}

/** ProbeHistoryOptions tune a ProbeHistory. */
export interface ProbeHistoryOptions {
  /** Whole entries kept per worker (default RECENT_ENTRIES). */
  recentLength?: number;
  /** How long history is kept (default DEFAULT_HISTORY_WINDOW_MS). */
  windowMs?: number;
  /** Where new probes are persisted. */
  sink?: HistorySink;
}

interface WorkerHistory {
  recent: ProbeHistoryEntry[];
  segments: ProbeHistorySegment[];
}

/** ProbeHistory keeps every worker's history over the window, grouped by pod UID. */
export class ProbeHistory {
  /** pod UID → "<container>/<probe type>" → history. */
  private readonly pods = new Map<string, Map<string, WorkerHistory>>();
  private readonly recentLength: number;
  /** How long history is kept, in ms. */
  readonly windowMs: number;
  private readonly sink: HistorySink | undefined;

  constructor(options: ProbeHistoryOptions = {}) {
    this.recentLength = options.recentLength ?? RECENT_ENTRIES;
    this.windowMs = options.windowMs ?? DEFAULT_HISTORY_WINDOW_MS;
    this.sink = options.sink;
  }

  /** record appends a worker's finished probe (the ProbeManager's onProbe signature) and returns its entry. */
  record(worker: Worker, record: ProbeRecord): ProbeHistoryEntry {
    const uid = worker.pod.metadata.uid ?? "";
    const output = record.outcome?.output ?? "";
    const entry: ProbeHistoryEntry = {
      time: new Date(record.time).toISOString(),
      container: worker.container.name,
      probeType: record.probeType,
      containerID: record.containerId,
      result: record.result,
      ...(record.outcome ? { handlerResult: record.outcome.result } : {}),
      output: shorten(output),
      latencyMs: roundMicros(record.durationMs),
      ...(record.outcome?.cpuSeconds !== undefined ? { cpuMs: roundMicros(record.outcome.cpuSeconds * 1000) } : {}),
      run: record.resultRun,
      threshold: record.threshold,
    };
    this.addEntry(uid, entry);
    this.sink?.append(uid, { container: entry.container, probeType: entry.probeType }, entry);
    return entry;
  }

  /** addEntry adds a whole entry (recorded now or restored from disk); the oldest recent one folds into the segments. */
  addEntry(podUid: string, entry: ProbeHistoryEntry): void {
    const worker = this.workerOf(podUid, entry.container, entry.probeType);
    worker.recent.push(entry);
    while (worker.recent.length > this.recentLength) {
      const oldest = worker.recent.shift();
      if (oldest !== undefined) foldIntoSegments(worker.segments, oldest);
    }
    this.prune(worker, Date.parse(entry.time));
  }

  /**
   * addSegment adds a segment restored from disk. The whole entries kept so far are older: they
   * fold into the segments first, so segments stay in time order.
   */
  addSegment(podUid: string, segment: ProbeHistorySegment): void {
    const worker = this.workerOf(podUid, segment.container, segment.probeType);
    for (const entry of worker.recent.splice(0)) foldIntoSegments(worker.segments, entry);
    const last = worker.segments.at(-1);
    if (last !== undefined && continues(last, segment.result, segment.containerID, segment.threshold, Date.parse(segment.start)) && Date.parse(segment.end) - Date.parse(last.start) < SEGMENT_SPAN_MS) extend(last, segment);
    else worker.segments.push(segment);
    this.prune(worker, Date.parse(segment.end));
  }

  /**
   * runs returns a pod's history as runs: per worker, consecutive probes with the same result on
   * the same container instance (and threshold) in one row, with their count and their last
   * probe's output and run; oldest last probe first. A day of successes is one row, so the
   * failures that led to a kill stay in sight beside it (`describe` shows the newest runs).
   */
  runs(podUid: string): ProbeHistorySegment[] {
    const workers = [...(this.pods.get(podUid)?.values() ?? [])];
    return workers.flatMap((w) => collapseRuns([...w.segments, ...w.recent])).sort((a, b) => a.end.localeCompare(b.end));
  }

  /** list returns a pod's whole entries of every probe (the newest of each worker), oldest first. */
  list(podUid: string): ProbeHistoryEntry[] {
    const probes = this.pods.get(podUid);
    if (!probes) return [];
    return [...probes.values()].flatMap((w) => w.recent).sort((a, b) => a.time.localeCompare(b.time));
  }

  /** query returns a pod's entries and segments that overlap [since, until], oldest first. */
  query(podUid: string, query: HistoryQuery): ProbeHistoryRange {
    const out: ProbeHistoryRange = { items: [], segments: [] };
    const since = query.since ?? -Infinity;
    const until = query.until ?? Infinity;
    for (const worker of this.pods.get(podUid)?.values() ?? []) {
      const sample = worker.recent[0] ?? worker.segments[0];
      if (sample === undefined) continue;
      if (query.container !== undefined && sample.container !== query.container) continue;
      if (query.probeType !== undefined && sample.probeType !== query.probeType) continue;
      for (const e of worker.recent) {
        const t = Date.parse(e.time);
        if (t >= since && t <= until) out.items.push(e);
      }
      for (const s of worker.segments) {
        if (Date.parse(s.end) >= since && Date.parse(s.start) <= until) out.segments.push(s);
      }
    }
    out.items.sort((a, b) => a.time.localeCompare(b.time));
    out.segments.sort((a, b) => a.start.localeCompare(b.start));
    return out;
  }

  /** forget drops a pod's history in memory; and on disk too unless keepSaved (an agent shutdown keeps it for next time). */
  forget(podUid: string, keepSaved = false): void {
    this.pods.delete(podUid);
    if (!keepSaved) this.sink?.forget(podUid);
  }

  private workerOf(podUid: string, container: string, probeType: ProbeType): WorkerHistory {
    let probes = this.pods.get(podUid);
    if (!probes) {
      probes = new Map();
      this.pods.set(podUid, probes);
    }
    const key = `${container}/${probeType}`;
    let worker = probes.get(key);
    if (!worker) {
      worker = { recent: [], segments: [] };
      probes.set(key, worker);
    }
    return worker;
  }

  /** prune drops what has left the window and the oldest segments beyond MAX_SEGMENTS. */
  private prune(worker: WorkerHistory, now: number): void {
    const horizon = now - this.windowMs;
    while (worker.segments.length > 0 && (worker.segments.length > MAX_SEGMENTS || Date.parse(worker.segments[0]!.end) < horizon)) worker.segments.shift();
    while (worker.recent.length > 0 && Date.parse(worker.recent[0]!.time) < horizon) worker.recent.shift();
  }
}

/**
 * foldIntoSegments adds an entry to a worker's segments: it extends the last segment when the
 * result, the container instance and the threshold are the same and the segment spans less than
 * SEGMENT_SPAN_MS; otherwise it starts a new one.
 */
export function foldIntoSegments(segments: ProbeHistorySegment[], entry: ProbeHistoryEntry): void {
  const last = segments.at(-1);
  const t = Date.parse(entry.time);
  if (last !== undefined && continues(last, entry.result, entry.containerID, entry.threshold, t) && t - Date.parse(last.start) < SEGMENT_SPAN_MS) extend(last, segmentOf(entry));
  else segments.push(segmentOf(entry));
}

/**
 * collapseRuns merges one worker's segments and probes, oldest first, into runs: consecutive
 * parts with the same result, container instance and threshold become one (ProbeHistory.runs).
 */
export function collapseRuns(parts: Iterable<ProbeHistorySegment | ProbeHistoryEntry>): ProbeHistorySegment[] {
  const runs: ProbeHistorySegment[] = [];
  for (const part of parts) {
    const segment = "count" in part ? part : segmentOf(part);
    const last = runs.at(-1);
    if (last !== undefined && continues(last, segment.result, segment.containerID, segment.threshold, Date.parse(segment.start))) extend(last, segment);
    else runs.push({ ...segment });
  }
  return runs;
}

/** extend adds a later segment (or one probe) of the same run to `last`. */
function extend(last: ProbeHistorySegment, later: ProbeHistorySegment): void {
  last.end = later.end;
  last.count += later.count;
  last.latencyMinMs = Math.min(last.latencyMinMs, later.latencyMinMs);
  last.latencyMaxMs = Math.max(last.latencyMaxMs, later.latencyMaxMs);
  last.latencySumMs = roundMicros(last.latencySumMs + later.latencySumMs);
  last.lastOutput = later.lastOutput;
  last.lastRun = later.lastRun;
}

/** segmentOf is one probe as a segment of its own. */
function segmentOf(entry: ProbeHistoryEntry): ProbeHistorySegment {
  return {
    container: entry.container,
    probeType: entry.probeType,
    containerID: entry.containerID,
    result: entry.result,
    start: entry.time,
    end: entry.time,
    count: 1,
    latencyMinMs: entry.latencyMs,
    latencyMaxMs: entry.latencyMs,
    latencySumMs: entry.latencyMs,
    lastOutput: entry.output,
    lastRun: entry.run,
    threshold: entry.threshold,
  };
}

/** continues reports whether a probe (or run) starting at t with these fields may extend segment last. */
function continues(last: ProbeHistorySegment, result: Result, containerID: string, threshold: number, t: number): boolean {
  return last.result === result && last.containerID === containerID && last.threshold === threshold && t >= Date.parse(last.end);
}

function shorten(output: string): string {
  return output.length > HISTORY_OUTPUT_CHARS ? `${output.slice(0, HISTORY_OUTPUT_CHARS)}…` : output;
}

/** roundMicros rounds milliseconds to whole microseconds. */
function roundMicros(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
