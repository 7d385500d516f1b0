// Probe history on disk: one append-only file per pod under <state-dir>/probe-history, so the
// history survives an agent restart. New probes are written in batches (every FLUSH_INTERVAL_MS
// per pod, and on close) as lines of JSON: a run of identical results becomes one segment line,
// short runs (a change) stay whole entries, and the final flush keeps each worker's newest probe
// whole for describe and explain. Each file is capped (MAX_FILE_BYTES) and
// rotated by size and age: the current file becomes "<name>.old" (replacing the previous one),
// so a pod never holds more than two files. A file that is corrupt or of another version is
// removed and the pod starts with an empty history, said in the log.
import { createHash } from "node:crypto";
import { appendFile, mkdir, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Clock } from "../util/clock.js";
import type { Logger } from "../util/logger.js";
import { foldIntoSegments, type HistorySink, type ProbeHistory, type ProbeHistoryEntry, type ProbeHistorySegment, type WorkerKey } from "./probe-history.js";

/** HISTORY_DIR is the directory, in the state directory, of the history files. */
export const HISTORY_DIR = "probe-history";
/** HISTORY_FILE_VERSION is written in every file's first line; another version is not read. */
export const HISTORY_FILE_VERSION = 1;
/** FLUSH_INTERVAL_MS is how often a pod's new probes are appended to its file. */
export const FLUSH_INTERVAL_MS = 60_000;
/** MAX_FILE_BYTES caps each of a pod's two files (1 MiB). */
export const MAX_FILE_BYTES = 1024 * 1024;
/** Probes waiting for a flush, per pod, before one is forced. */
const MAX_PENDING = 5000;
/** Runs of this many identical results or fewer are written as whole entries. */
const WHOLE_RUN = 2;

const RESULTS = new Set(["Success", "Failure", "Unknown"]);
const PROBE_TYPES = new Set(["liveness", "readiness", "startup"]);

/** ProbeHistoryFilesOptions configure ProbeHistoryFiles. */
export interface ProbeHistoryFilesOptions {
  /** The agent's state directory. */
  stateDir: string;
  clock: Clock;
  logger: Logger;
  /** The history window: files older than this are removed at load. */
  windowMs: number;
  maxFileBytes?: number;
  flushIntervalMs?: number;
}

/** ProbeHistoryFiles persists probe history, one file pair per pod. */
export class ProbeHistoryFiles implements HistorySink {
  private readonly dir: string;
  private readonly maxFileBytes: number;
  private readonly flushIntervalMs: number;
  /** pod UID → probes not written yet, in arrival order. */
  private readonly pending = new Map<string, ProbeHistoryEntry[]>();
  private readonly lastFlush = new Map<string, number>();
  /** pod UID → the chain of its file operations (kept in order). */
  private readonly writes = new Map<string, Promise<void>>();

  constructor(private readonly options: ProbeHistoryFilesOptions) {
    this.dir = join(options.stateDir, HISTORY_DIR);
    this.maxFileBytes = options.maxFileBytes ?? MAX_FILE_BYTES;
    this.flushIntervalMs = options.flushIntervalMs ?? FLUSH_INTERVAL_MS;
  }

  /** append queues a probe; the pod's queue is written once FLUSH_INTERVAL_MS has passed since its last write. */
  append(podUid: string, _key: WorkerKey, entry: ProbeHistoryEntry): void {
    let queue = this.pending.get(podUid);
    if (queue === undefined) {
      queue = [];
      this.pending.set(podUid, queue);
      if (!this.lastFlush.has(podUid)) this.lastFlush.set(podUid, this.options.clock.now());
    }
    queue.push(entry);
    if (queue.length >= MAX_PENDING || this.options.clock.now() - (this.lastFlush.get(podUid) ?? 0) >= this.flushIntervalMs) this.flushPod(podUid);
  }

  /** forget removes a pod's files. */
  forget(podUid: string): void {
    this.pending.delete(podUid);
    this.lastFlush.delete(podUid);
    this.chain(podUid, async () => {
      const path = this.pathOf(podUid);
      await rm(path, { force: true });
      await rm(`${path}.old`, { force: true });
    });
  }

  /** flush writes every pod's queued probes (each worker's newest whole) and resolves when all writes are done. */
  async flush(): Promise<void> {
    for (const uid of [...this.pending.keys()]) this.flushPod(uid, true);
    await Promise.all(this.writes.values());
  }

  /**
   * load reads every pod's files into history. Files older than the window are removed; a file
   * that is corrupt or of another version is removed and its pod starts empty (logged).
   */
  async load(history: ProbeHistory): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const names = (await readdir(this.dir)).filter((n) => /^[0-9a-f]{32}\.jsonl$/.test(n));
    const horizon = this.options.clock.now() - this.options.windowMs;
    for (const name of names) {
      const path = join(this.dir, name);
      const files = [`${path}.old`, path];
      try {
        const info = await stat(path);
        if (info.mtimeMs < horizon) {
          await Promise.all(files.map((f) => rm(f, { force: true })));
          continue;
        }
        const parsed: { uid: string; lines: ParsedLine[] }[] = [];
        for (const file of files) {
          const text = await readFile(file, "utf8").catch((err: NodeJS.ErrnoException) => {
            if (err.code === "ENOENT") return undefined;
            throw err;
          });
          if (text !== undefined) parsed.push(parseHistoryFile(text, this.maxFileBytes));
        }
        const uid = parsed[0]?.uid;
        if (uid === undefined || parsed.some((p) => p.uid !== uid) || this.pathOf(uid) !== path) throw new Error("the file names another pod");
        for (const line of parsed.flatMap((p) => p.lines)) {
          if ("segment" in line) history.addSegment(uid, line.segment);
          else history.addEntry(uid, line.entry);
        }
      } catch (err) {
        this.options.logger.warn("Starting with an empty probe history: the saved history is corrupt or from another version", { file: path, err: err instanceof Error ? err.message : String(err) });
        await Promise.all(files.map((f) => rm(f, { force: true })));
      }
    }
  }

  private flushPod(podUid: string, keepNewestWhole = false): void {
    const queue = this.pending.get(podUid);
    this.pending.delete(podUid);
    this.lastFlush.set(podUid, this.options.clock.now());
    if (queue === undefined || queue.length === 0) return;
    const text = renderLines(queue, keepNewestWhole);
    this.chain(podUid, () => this.write(podUid, text));
  }

  private async write(podUid: string, text: string): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const path = this.pathOf(podUid);
    const info = await stat(path).catch(() => undefined);
    const created = info?.birthtimeMs || info?.ctimeMs || 0;
    const tooOld = info !== undefined && this.options.clock.now() - created > this.options.windowMs / 2;
    if (info !== undefined && (info.size + Buffer.byteLength(text) > this.maxFileBytes || tooOld)) {
      await rename(path, `${path}.old`);
    }
    const header = info === undefined || info.size + Buffer.byteLength(text) > this.maxFileBytes || tooOld ? `${JSON.stringify({ probeHistory: HISTORY_FILE_VERSION, uid: podUid })}\n` : "";
    // A single batch larger than the cap is cut to the newest lines that fit.
    let body = header + text;
    if (Buffer.byteLength(body) > this.maxFileBytes) {
      const lines = text.split("\n").filter((l) => l !== "");
      let kept = header;
      for (let i = lines.length - 1; i >= 0 && Buffer.byteLength(kept) + Buffer.byteLength(lines[i]!) + 1 <= this.maxFileBytes; i--) kept = header + lines.slice(i).join("\n") + "\n";
      body = kept;
    }
    await appendFile(path, body, { mode: 0o600 });
  }

  private chain(podUid: string, op: () => Promise<void>): void {
    const previous = this.writes.get(podUid) ?? Promise.resolve();
    const next = previous.then(op).catch((err: unknown) => this.options.logger.warn("Could not save probe history", { podUID: podUid, err: err instanceof Error ? err.message : String(err) }));
    this.writes.set(podUid, next);
    void next.then(() => {
      if (this.writes.get(podUid) === next) this.writes.delete(podUid);
    });
  }

  private pathOf(podUid: string): string {
    return join(this.dir, `${createHash("sha256").update(podUid).digest("hex").slice(0, 32)}.jsonl`);
  }
}

type ParsedLine = { entry: ProbeHistoryEntry } | { segment: ProbeHistorySegment };

/**
 * renderLines writes a batch: per worker, runs of identical results longer than WHOLE_RUN as
 * segments, the rest whole; with keepNewestWhole the worker's newest probe is always whole.
 */
export function renderLines(batch: readonly ProbeHistoryEntry[], keepNewestWhole: boolean): string {
  const byWorker = new Map<string, ProbeHistoryEntry[]>();
  for (const e of batch) {
    const key = `${e.container}/${e.probeType}`;
    const list = byWorker.get(key) ?? [];
    list.push(e);
    byWorker.set(key, list);
  }
  const lines: string[] = [];
  for (const entries of byWorker.values()) {
    let i = 0;
    while (i < entries.length) {
      const first = entries[i]!;
      let j = i + 1;
      while (j < entries.length && entries[j]!.result === first.result && entries[j]!.containerID === first.containerID) j++;
      const run = entries.slice(i, j);
      const newestWhole = keepNewestWhole && j === entries.length;
      if (run.length <= WHOLE_RUN) for (const e of run) lines.push(JSON.stringify({ e }));
      else {
        const segments: ProbeHistorySegment[] = [];
        for (const e of newestWhole ? run.slice(0, -1) : run) foldIntoSegments(segments, e);
        for (const s of segments) lines.push(JSON.stringify({ s }));
        if (newestWhole) lines.push(JSON.stringify({ e: run.at(-1) }));
      }
      i = j;
    }
  }
  return lines.map((l) => `${l}\n`).join("");
}

/** parseHistoryFile reads one file; it throws an Error saying what is wrong (size, version, a bad line). */
export function parseHistoryFile(text: string, maxBytes: number): { uid: string; lines: ParsedLine[] } {
  if (Buffer.byteLength(text) > maxBytes + 64 * 1024) throw new Error(`larger than ${maxBytes} bytes`);
  const rows = text.split("\n");
  if (rows.at(-1) === "") rows.pop();
  const header = parseJson(rows[0] ?? "", 1) as { probeHistory?: unknown; uid?: unknown } | null;
  if (header?.probeHistory !== HISTORY_FILE_VERSION) throw new Error(`version ${JSON.stringify(header?.probeHistory)}, want ${HISTORY_FILE_VERSION}`);
  if (typeof header.uid !== "string" || header.uid === "") throw new Error("line 1: no pod uid");
  const lines: ParsedLine[] = [];
  rows.slice(1).forEach((row, i) => {
    const value = parseJson(row, i + 2) as { e?: unknown; s?: unknown } | null;
    if (value !== null && isEntry(value.e)) lines.push({ entry: value.e });
    else if (value !== null && isSegment(value.s)) lines.push({ segment: value.s });
    else throw new Error(`line ${i + 2}: neither a probe nor a segment`);
  });
  return { uid: header.uid, lines };
}

function parseJson(row: string, line: number): unknown {
  try {
    return JSON.parse(row) as unknown;
  } catch {
    throw new Error(`line ${line}: not JSON`);
  }
}

function isCommon(v: Record<string, unknown>): boolean {
  return typeof v["container"] === "string" && PROBE_TYPES.has(v["probeType"] as string) && typeof v["containerID"] === "string" && RESULTS.has(v["result"] as string) && typeof v["threshold"] === "number";
}

function isEntry(v: unknown): v is ProbeHistoryEntry {
  if (v === null || typeof v !== "object") return false;
  const o = v as Record<string, unknown>;
  return isCommon(o) && typeof o["time"] === "string" && !Number.isNaN(Date.parse(o["time"])) && typeof o["output"] === "string" && typeof o["latencyMs"] === "number" && typeof o["run"] === "number";
}

function isSegment(v: unknown): v is ProbeHistorySegment {
  if (v === null || typeof v !== "object") return false;
  const o = v as Record<string, unknown>;
  return (
    isCommon(o) &&
    ["start", "end"].every((k) => typeof o[k] === "string" && !Number.isNaN(Date.parse(o[k] as string))) &&
    ["count", "latencyMinMs", "latencyMaxMs", "latencySumMs", "lastRun"].every((k) => typeof o[k] === "number") &&
    typeof o["lastOutput"] === "string"
  );
}
