// Reads container log files written in the CRI log format (../log-format.ts), the way the
// kubelet's ReadLogs does for `kubectl logs` (pkg/kubelet/kuberuntime/logs/logs.go): entries
// are read in file order, lines that do not parse are skipped, `tail` counts file lines (entries,
// not reassembled lines), and a reader writes P content as is and F content followed by "\n".
import { createReadStream } from "node:fs";
import { parseCriLogLine, type CriLogEntry, type LogStreamType } from "../log-format.js";

/** MAX_LOG_FILE_LINE bounds one file line; longer ones are not CRI entries and are skipped. */
export const MAX_LOG_FILE_LINE = 1024 * 1024;

/**
 * iterateCriLog yields the entries of a log file in order. Unparseable or overlong lines are
 * skipped (the kubelet logs and skips them too); an incomplete last line is still parsed.
 * Rejects when the file cannot be read.
 */
export async function* iterateCriLog(path: string): AsyncGenerator<CriLogEntry> {
  const stream = createReadStream(path, { highWaterMark: 64 * 1024 });
  let pending: Buffer[] = [];
  let pendingLength = 0;
  let skipping = false;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let start = 0;
      for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, start)) {
        const piece = chunk.subarray(start, nl);
        start = nl + 1;
        const line = pendingLength > 0 ? Buffer.concat([...pending, piece]) : piece;
        pending = [];
        pendingLength = 0;
        if (skipping) skipping = false;
        else {
          const entry = tryParse(line);
          if (entry) yield entry;
        }
      }
      if (start < chunk.length && !skipping) {
        pending.push(chunk.subarray(start));
        pendingLength += chunk.length - start;
        if (pendingLength > MAX_LOG_FILE_LINE) {
          pending = [];
          pendingLength = 0;
          skipping = true;
        }
      }
    }
    if (pendingLength > 0) {
      const entry = tryParse(Buffer.concat(pending));
      if (entry) yield entry;
    }
  } finally {
    stream.destroy();
  }
}

/** ReadLogOptions narrow readContainerLog. */
export interface ReadLogOptions {
  /** Only the last `tail` entries (kubelet TailLines); all when absent or negative. */
  tail?: number;
  /** Only entries of this stream. */
  stream?: LogStreamType;
  /** Only entries at or after this time, ms since the epoch (kubelet SinceTime). */
  since?: number;
  /** Stop after this many bytes of output (kubelet LimitBytes). */
  limitBytes?: number;
}

/**
 * readCriLog returns the matching entries of a log file. Memory is bounded by `tail` when
 * given (a ring of the last entries), else by the file.
 */
export async function readCriLog(path: string, options: Omit<ReadLogOptions, "limitBytes"> = {}): Promise<CriLogEntry[]> {
  const tail = options.tail !== undefined && options.tail >= 0 ? options.tail : Infinity;
  const kept: CriLogEntry[] = [];
  if (tail === 0) return kept;
  for await (const entry of iterateCriLog(path)) {
    if (options.stream !== undefined && entry.stream !== options.stream) continue;
    if (options.since !== undefined && entry.time < options.since) continue;
    kept.push(entry);
    if (kept.length > tail) kept.shift();
  }
  return kept;
}

/**
 * readContainerLog returns a container's output as `kubectl logs` shows it: stdout and stderr
 * interleaved in file order, partial chunks joined to their line, F entries ending in "\n".
 */
export async function readContainerLog(path: string, options: ReadLogOptions = {}): Promise<Buffer> {
  const entries = await readCriLog(path, options);
  const parts: Buffer[] = [];
  let size = 0;
  const limit = options.limitBytes !== undefined && options.limitBytes >= 0 ? options.limitBytes : Infinity;
  for (const entry of entries) {
    for (const part of entry.tag === "P" ? [entry.content] : [entry.content, NEWLINE]) {
      const room = limit - size;
      if (room <= 0) return Buffer.concat(parts, size);
      const kept = part.length <= room ? part : part.subarray(0, room);
      parts.push(kept);
      size += kept.length;
    }
  }
  return Buffer.concat(parts, size);
}

const NEWLINE = Buffer.from("\n");

function tryParse(line: Buffer): CriLogEntry | undefined {
  if (line.length === 0) return undefined;
  try {
    const entry = parseCriLogLine(line);
    // The line buffer may alias a read chunk; give the entry its own copy.
    return { ...entry, content: Buffer.from(entry.content) };
  } catch {
    return undefined;
  }
}
