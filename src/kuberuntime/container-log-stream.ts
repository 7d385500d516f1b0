// Reading one container instance's log as `kubectl logs` shows it (kubelet
// pkg/kubelet/kuberuntime/logs/logs.go ReadLogs): CRI log files decoded to plain lines, with
// --tail, --timestamps and --follow, across the rotated files too (the kubelet reads the live file
// only). Which instance a request names is the node's choice (src/agent/container-logs.ts).
import { open, stat, type FileHandle } from "node:fs/promises";
import type { ContainerInfo, Runtime } from "../runtime/runtime.js";
import { parseCriLogLine, type CriLogEntry } from "../runtime/log-format.js";
import type { Clock } from "../util/clock.js";
import { logChunks, tailStart } from "./log-tail.js";
import { rotatedLogs } from "./rotated-logs.js";

/** LogReadOptions are the kubectl logs options that shape the reading (kubelet v1.PodLogOptions). */
export interface LogReadOptions {
  follow?: boolean;
  /** Only the last N lines. */
  tailLines?: number;
  /** Prefix each line with its RFC 3339 timestamp. */
  timestamps?: boolean;
  signal?: AbortSignal;
}

/** FOLLOW_POLL_MS is how often a followed log file is checked for new data. */
const FOLLOW_POLL_MS = 200;
const READ_CHUNK = 64 * 1024;

/**
 * MAX_JOINED_LINE_BYTES bounds the P chunks joined into one output line: a longer line (a
 * container printing megabytes without a newline) is shown in pieces of this size.
 */
const MAX_JOINED_LINE_BYTES = 1024 * 1024;

/** MAX_FILE_LINE_BYTES bounds one file line (a CRI entry is far shorter: 16 KiB of content). */
const MAX_FILE_LINE_BYTES = 1024 * 1024;

/**
 * readLogs streams a container instance's log lines (each ending in "\n"): its rotated files, oldest
 * first, then the live one, starting `tailLines` file lines from the end (found without reading
 * the files whole, log-tail.ts). With follow it keeps reading the live file and goes on into the
 * new one when the log is rotated, until the container exits or the request is aborted.
 */
export async function* readLogs(runtime: Runtime, info: ContainerInfo, request: LogReadOptions, clock: Clock): AsyncGenerator<string> {
  const render = (e: CriLogEntry, content: string): string => (request.timestamps ? `${e.timestamp} ${content}` : content);
  const lines = new LineDecoder();
  const opened = await openLogs(info.logPath, clock);
  let file = opened.file;
  const rotated = opened.rotated;
  const files = [...rotated, info.logPath];
  const start = request.tailLines !== undefined ? await tailStart(files, request.tailLines, file) : { file: 0, offset: 0, skipLines: 0 };
  const live = files.length - 1;
  for (let i = start.file; i < live; i++) {
    const from = i === start.file ? start : { offset: 0, skipLines: 0 };
    for await (const chunk of logChunks(files[i]!, from.offset, from.skipLines)) for (const [entry, content] of lines.push(chunk)) yield render(entry, content);
  }
  const follow = request.follow === true && info.state !== "exited";
  let offset = start.file === live ? start.offset : 0;
  try {
    const buffer = Buffer.alloc(READ_CHUNK);
    const drain = async function* (): AsyncGenerator<string> {
      for (let bytesRead = 1; file && bytesRead > 0; ) {
        ({ bytesRead } = await file.read(buffer, 0, buffer.length, offset));
        offset += bytesRead;
        for (const [entry, content] of lines.push(buffer.subarray(0, bytesRead))) yield render(entry, content);
      }
    };
    yield* drain();
    while (follow && !request.signal?.aborted) {
      await clock.sleep(FOLLOW_POLL_MS, request.signal);
      yield* drain();
      // Rotated: the path names a new file. What the old one got meanwhile is read first.
      if (await rotatedAway(file, info.logPath)) {
        yield* drain();
        await file?.close();
        file = await open(info.logPath).catch(() => undefined);
        offset = 0;
        yield* drain();
      }
      const now = await runtime.containerStatus(info.id).catch(() => undefined);
      if (!now || now.state === "exited") {
        yield* drain();
        break;
      }
    }
    if (info.state === "exited" || follow) yield* flushed(lines);
  } finally {
    await file?.close();
  }
}

/** OPEN_ATTEMPTS bounds the retries of openLogs while a rotation is under way (OPEN_RETRY_MS apart). */
const OPEN_ATTEMPTS = 50;
const OPEN_RETRY_MS = 20;

/**
 * openLogs opens the live log and lists its rotated files so that they agree: a rotation between
 * the listing and the open (a new rotated file, or no live file between the rename and the
 * runtime's reopen) is waited out and tried again.
 */
async function openLogs(path: string, clock: Clock): Promise<{ rotated: string[]; file: FileHandle | undefined }> {
  let rotated: string[] = [];
  let file: FileHandle | undefined;
  for (let attempt = 0; attempt < OPEN_ATTEMPTS; attempt++) {
    const before = (await rotatedLogs(path)).inUse;
    file = await open(path).catch(() => undefined);
    rotated = (await rotatedLogs(path)).inUse;
    const settled = before.join("\0") === rotated.join("\0");
    // No live file and nothing rotated: there is no log (yet), not a rotation under way.
    if (settled && (file || rotated.length === 0)) return { rotated, file };
    await file?.close();
    file = undefined;
    await clock.sleep(OPEN_RETRY_MS);
  }
  return { rotated, file: await open(path).catch(() => undefined) };
}

/** rotatedAway tells whether the log path now names another file than the open one (or none yet). */
async function rotatedAway(file: FileHandle | undefined, path: string): Promise<boolean> {
  const current = await stat(path).catch(() => undefined);
  if (!current) return false; // renamed, not reopened yet: keep reading the old file
  if (!file) return true;
  const opened = await file.stat();
  return opened.ino !== current.ino || opened.dev !== current.dev;
}

function* flushed(lines: LineDecoder): Generator<string> {
  const rest = lines.flush();
  if (rest !== undefined) yield rest;
}

/** LineDecoder turns CRI log file bytes into logical lines, joining P chunks with their F chunk. */
class LineDecoder {
  private rest = Buffer.alloc(0);
  private partial: Buffer[] = [];
  private partialBytes = 0;
  /** Set while the rest of an overlong file line is being dropped. */
  private skipping = false;

  push(chunk: Buffer): [CriLogEntry, string][] {
    const data = this.rest.length > 0 ? Buffer.concat([this.rest, chunk]) : chunk;
    const out: [CriLogEntry, string][] = [];
    let start = 0;
    for (let nl = data.indexOf(10, start); nl !== -1; nl = data.indexOf(10, start)) {
      const line = data.subarray(start, nl);
      start = nl + 1;
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      let entry: CriLogEntry;
      try {
        entry = parseCriLogLine(line);
      } catch {
        continue; // the kubelet skips lines it cannot parse
      }
      if (entry.tag === "P") {
        this.partial.push(entry.content);
        this.partialBytes += entry.content.length;
        // A line that never ends is shown in pieces rather than held whole.
        if (this.partialBytes >= MAX_JOINED_LINE_BYTES) out.push([entry, this.takePartial()]);
        continue;
      }
      const content = Buffer.concat([...this.partial, entry.content]).toString("utf8");
      this.partial = [];
      this.partialBytes = 0;
      out.push([entry, `${content}\n`]);
    }
    // A file line longer than any CRI entry is not one: it is dropped up to its end.
    this.rest = data.length - start > MAX_FILE_LINE_BYTES ? Buffer.alloc(0) : Buffer.from(data.subarray(start));
    this.skipping ||= data.length - start > MAX_FILE_LINE_BYTES;
    return out;
  }

  /** flush returns output that ended without a newline (a trailing P chunk), once the writer is done. */
  flush(): string | undefined {
    return this.partial.length === 0 ? undefined : this.takePartial();
  }

  private takePartial(): string {
    const content = Buffer.concat(this.partial).toString("utf8");
    this.partial = [];
    this.partialBytes = 0;
    return content;
  }
}
