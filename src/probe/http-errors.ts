// Error texts of the httpGet handler, worded as Go's net/http client words them (the kubelet
// puts err.Error() into the probe output). Exact where the spec quotes them (§B.2, §J);
// otherwise informative.
import { goDialErrorText, goErrnoText, goOpErrorText } from "./go-errors.js";

/** HEADERS_TIMEOUT is Go's Client.Timeout error before the response head arrived. */
export const HEADERS_TIMEOUT = "context deadline exceeded (Client.Timeout exceeded while awaiting headers)";

/** BODY_TIMEOUT is Go's Client.Timeout error while the body was being read. */
export const BODY_TIMEOUT = "context deadline exceeded (Client.Timeout or context cancellation while reading body)";

/** MAX_RESPONSE_HEADER_BYTES is Go Transport's default MaxResponseHeaderBytes (10 MiB). */
export const MAX_RESPONSE_HEADER_BYTES = 10 << 20;

/** HEADERS_TOO_LARGE is Go's error once a response head outgrew MAX_RESPONSE_HEADER_BYTES. */
export const HEADERS_TOO_LARGE = `net/http: server response headers exceeded ${MAX_RESPONSE_HEADER_BYTES} bytes; aborted`;

/**
 * brokenConnection wraps an error met while reading a response head, as Go's Transport does
 * (persistConn.mapRoundTripError): `net/http: HTTP/1.x transport connection broken: <err>`.
 */
export function brokenConnection(text: string): string {
  return `net/http: HTTP/1.x transport connection broken: ${text}`;
}

/**
 * goErrorText words a Node socket error like Go's net/http: dial errors as `dial tcp …`, read
 * and write errors as `read tcp <local>-><addr>: read: <errno text>` (`source` is the local
 * address once connected), a connection reset without a
 * system call (TLS closed early) as `EOF` (`unexpected EOF` inside a body).
 */
export function goErrorText(err: unknown, addr: string, inBody = false, source?: string): string {
  const e = (err ?? {}) as NodeJS.ErrnoException;
  const code = e.code ?? "";
  if (err instanceof AggregateError || e.syscall === "connect" || e.syscall === "getaddrinfo") return goDialErrorText(err, addr);
  // A connected socket's errors name both ends (net.go OpError.Error: "read tcp <local>-><remote>: …").
  if (e.syscall === "read" || e.syscall === "write") return goOpErrorText(e.syscall, "tcp", addr, `${e.syscall}: ${goErrnoText(code) ?? code}`, source);
  if (code === "ECONNRESET") return inBody ? "unexpected EOF" : "EOF";
  return err instanceof Error ? err.message : String(err);
}

/** SCHEME_MISMATCH is Go's error when an https request met an HTTP server (net/http client.go send). */
export const SCHEME_MISMATCH = "http: server gave HTTP response to HTTPS client";

const TLS_RECORD_ALERT = 21;
const TLS_RECORD_HANDSHAKE = 22;

/**
 * goFirstRecordError words a TLS handshake that received something other than a TLS record as
 * Go's client does, from the first five bytes the server sent (crypto/tls conn.go
 * readRecordOrCCS, then net/http client.go send for "HTTP/"); undefined when those bytes pass
 * Go's first-record check and the TLS library's own error stands.
 */
export function goFirstRecordError(head: Buffer): string | undefined {
  if (head.toString("latin1", 0, 5) === "HTTP/") return SCHEME_MISMATCH;
  const type = head[0]!;
  if (type === 0x80) return "tls: unsupported SSLv2 handshake received";
  const version = head.readUInt16BE(1);
  if ((type !== TLS_RECORD_ALERT && type !== TLS_RECORD_HANDSHAKE) || version >= 0x1000) {
    return "tls: first record does not look like a TLS handshake";
  }
  return undefined;
}

/** goQuote is Go's %q of a string (strconv.Quote over its UTF-8 bytes). */
export function goQuote(text: string): string {
  const bytes = Buffer.from(text, "utf8");
  return goQuoteBytes(bytes, 0, bytes.length);
}

/** goQuoteList is Go's %q of a []string: `["a" "b"]`. */
export function goQuoteList(list: readonly string[]): string {
  return `[${list.map(goQuote).join(" ")}]`;
}

const SHORT_ESCAPES: Readonly<Record<number, string>> = { 7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r", 34: '\\"', 92: "\\\\" };
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

/**
 * goQuoteBytes is Go's %q of raw bytes (strconv.Quote): printable UTF-8 is kept, the C escapes
 * are used where Go uses them, other ASCII controls and invalid UTF-8 bytes become \xNN, other
 * non-printable runes \uNNNN. It quotes the malformed lines of hostile responses.
 */
export function goQuoteBytes(buf: Uint8Array, start: number, end: number): string {
  let out = '"';
  let i = start;
  while (i < end) {
    const c = buf[i]!;
    if (c < 0x80) {
      out += SHORT_ESCAPES[c] ?? (c >= 0x20 && c < 0x7f ? String.fromCharCode(c) : `\\x${hex(c, 2)}`);
      i++;
      continue;
    }
    const n = utf8Length(buf, i, end);
    if (n === 0) {
      out += `\\x${hex(c, 2)}`;
      i++;
      continue;
    }
    const ch = Buffer.from(buf.buffer, buf.byteOffset + i, n).toString("utf8");
    const cp = ch.codePointAt(0)!;
    out += PRINTABLE.test(ch) ? ch : cp > 0xffff ? `\\U${hex(cp, 8)}` : `\\u${hex(cp, 4)}`;
    i += n;
  }
  return `${out}"`;
}

/** utf8Length is the length of the valid UTF-8 sequence at buf[i], or 0 if it is not one. */
function utf8Length(buf: Uint8Array, i: number, end: number): number {
  const c = buf[i]!;
  const n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
  if (n === 0 || i + n > end) return 0;
  // The second byte's range is narrower after E0, ED, F0 and F4 (no overlongs, surrogates, > U+10FFFF).
  const lo = c === 0xe0 ? 0xa0 : c === 0xf0 ? 0x90 : 0x80;
  const hi = c === 0xed ? 0x9f : c === 0xf4 ? 0x8f : 0xbf;
  const second = buf[i + 1]!;
  if (second < lo || second > hi) return 0;
  for (let k = 2; k < n; k++) if ((buf[i + k]! & 0xc0) !== 0x80) return 0;
  return n;
}

function hex(value: number, width: number): string {
  return value.toString(16).padStart(width, "0");
}
