// The CRI container log format, shared by the process runtime (which writes it) and anything
// that reads container logs (the agent, the CRI runtime). One file line per log entry:
//
//   <RFC3339Nano timestamp> <stdout|stderr> <tag[:tag…]> <content>\n
//
// where the first tag is "F" for a full line and "P" for a partial one (a line longer than the
// runtime's maximum is cut into P chunks ending with an F chunk; output that ends without a
// newline is a final P chunk). Writers follow containerd's internal/cri/io/logger.go; readers
// follow the kubelet's pkg/kubelet/kuberuntime/logs/logs.go (parseCRILog).

/** LogStreamType names the container stream an entry came from (CRI runtimeapi.LogStreamType). */
export type LogStreamType = "stdout" | "stderr";

/** LogTag is the first tag of an entry: "P" partial, "F" full (CRI runtimeapi.LogTag). */
export type LogTag = "P" | "F";

/** LOG_TAG_PARTIAL marks a chunk that does not end a line (CRI LogTagPartial). */
export const LOG_TAG_PARTIAL: LogTag = "P";

/** LOG_TAG_FULL marks the chunk that ends a line (CRI LogTagFull). */
export const LOG_TAG_FULL: LogTag = "F";

/** LOG_TAG_DELIMITER separates several tags of one entry (CRI LogTagDelimiter). */
export const LOG_TAG_DELIMITER = ":";

/**
 * MAX_CONTAINER_LOG_LINE_SIZE is the longest line content written as one entry: 16 KiB, the
 * default of containerd's max_container_log_line_size. Longer lines become P chunks of exactly
 * this size followed by one F chunk with the rest.
 */
export const MAX_CONTAINER_LOG_LINE_SIZE = 16 * 1024;

/**
 * RFC3339_NANO_LAYOUT is Go's time.RFC3339Nano layout; the kubelet quotes it in its parse error
 * (it parses with a lenient variant that also accepts the fixed-width form).
 */
export const RFC3339_NANO_LAYOUT = "2006-01-02T15:04:05.999999999Z07:00";

/** CriLogEntry is one parsed log file line. */
export interface CriLogEntry {
  /** The timestamp exactly as written. */
  timestamp: string;
  /** The timestamp in ms since the epoch (sub-millisecond digits dropped). */
  time: number;
  stream: LogStreamType;
  /** The first tag: "P" or "F". */
  tag: LogTag;
  /** Every tag as written (forward compatible: the kubelet only looks at the first). */
  tags: string[];
  /** The content, without the file line's terminating newline. */
  content: Buffer;
}

/** CriLogParseError is thrown by parseCriLogLine; messages are the kubelet's parseCRILog texts. */
export class CriLogParseError extends Error {
  override readonly name = "CriLogParseError";
}

/**
 * formatRfc3339Nano renders a UTC time the way Go formats time.RFC3339Nano: nine fraction
 * digits with trailing zeros trimmed (no fraction at all when it is zero) and a "Z" zone.
 * `subMsNanos` (0–999999) adds precision below the millisecond when the caller has it.
 */
export function formatRfc3339Nano(epochMs: number, subMsNanos = 0): string {
  const whole = Math.floor(epochMs);
  const iso = new Date(whole).toISOString(); // "2026-01-01T00:00:00.123Z"
  const nanos = (whole - Math.floor(whole / 1000) * 1000) * 1_000_000 + Math.max(0, Math.min(999_999, Math.floor(subMsNanos)));
  const fraction = nanos === 0 ? "" : "." + String(nanos).padStart(9, "0").replace(/0+$/, "");
  return `${iso.slice(0, 19)}${fraction}Z`;
}

const TIMESTAMP_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/** parseRfc3339Nano parses an RFC 3339 timestamp with up to nine fraction digits into epoch ms. */
export function parseRfc3339Nano(text: string): number | undefined {
  const m = TIMESTAMP_RE.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const ms = Number((frac ?? "").padEnd(3, "0").slice(0, 3));
  let time = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms);
  if (zone && zone !== "Z") {
    const sign = zone.startsWith("-") ? -1 : 1;
    time -= sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000;
  }
  return Number.isNaN(time) ? undefined : time;
}

/** criLogPrefix is the "<timestamp> <stream> <tag> " header that starts every entry. */
export function criLogPrefix(timestamp: string, stream: LogStreamType, tag: LogTag): Buffer {
  return Buffer.from(`${timestamp} ${stream} ${tag} `, "latin1");
}

/** formatCriLogLine renders one entry, terminating newline included. */
export function formatCriLogLine(timestamp: string, stream: LogStreamType, tag: LogTag, content: Buffer | string): Buffer {
  const body = typeof content === "string" ? Buffer.from(content, "utf8") : content;
  return Buffer.concat([criLogPrefix(timestamp, stream, tag), body, NEWLINE]);
}

const NEWLINE = Buffer.from("\n");
const SPACE = 0x20;

/**
 * parseCriLogLine parses one log file line (with or without its newline). Like the kubelet's
 * parseCRILog it requires a timestamp, a stream of stdout/stderr and a tag field, and keeps the
 * rest as content; unlike it, the content never includes the newline (the kubelet keeps it on
 * F entries; readers add it back, see agent/container-logs.ts).
 */
export function parseCriLogLine(line: Buffer | string): CriLogEntry {
  let rest = typeof line === "string" ? Buffer.from(line, "utf8") : line;
  if (rest.length > 0 && rest[rest.length - 1] === 0x0a) rest = rest.subarray(0, rest.length - 1);
  let idx = rest.indexOf(SPACE);
  if (idx < 0) throw new CriLogParseError("timestamp is not found");
  const timestamp = rest.subarray(0, idx).toString("latin1");
  const time = parseRfc3339Nano(timestamp);
  if (time === undefined) {
    throw new CriLogParseError(`unexpected timestamp format "${RFC3339_NANO_LAYOUT}": cannot parse "${timestamp}"`);
  }
  rest = rest.subarray(idx + 1);
  idx = rest.indexOf(SPACE);
  if (idx < 0) throw new CriLogParseError("stream type is not found");
  const stream = rest.subarray(0, idx).toString("latin1");
  if (stream !== "stdout" && stream !== "stderr") throw new CriLogParseError(`unexpected stream type "${stream}"`);
  rest = rest.subarray(idx + 1);
  idx = rest.indexOf(SPACE);
  if (idx < 0) throw new CriLogParseError("log tag is not found");
  const tags = rest.subarray(0, idx).toString("latin1").split(LOG_TAG_DELIMITER);
  const tag: LogTag = tags[0] === LOG_TAG_PARTIAL ? "P" : "F";
  return { timestamp, time, stream, tag, tags, content: rest.subarray(idx + 1) };
}
