// Byte-level HTTP/1 response syntax for the probe client's parser, and the body-framing rules
// of Go's net/http transfer.go (readTransfer, fixLength) for a response to a GET.
import { goQuote, goQuoteList } from "./http-errors.js";

/** CONTENT_LENGTH is headerKind's code for Content-Length (the fields the client reads). */
export const CONTENT_LENGTH = 1;
/** TRANSFER_ENCODING is headerKind's code for Transfer-Encoding. */
export const TRANSFER_ENCODING = 2;
/** LOCATION is headerKind's code for Location. */
export const LOCATION = 3;

/** CHUNKED is bodyLength's answer for a chunked body. */
export const CHUNKED = -2;
/** TO_EOF is bodyLength's answer for a body that the connection's end delimits. */
export const TO_EOF = -1;

const CONTENT_LENGTH_NAME = Buffer.from("content-length");
const TRANSFER_ENCODING_NAME = Buffer.from("transfer-encoding");
const LOCATION_NAME = Buffer.from("location");
const MAX_CONTENT_LENGTH = "9223372036854775807"; // strconv.ParseUint(cl, 10, 63)
const TOKEN_BYTES = new Uint8Array(256);
for (const c of Buffer.from("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")) TOKEN_BYTES[c] = 1;

/** isTokenByte: a byte allowed in a header name (RFC 7230 tchar). */
export function isTokenByte(c: number): boolean {
  return TOKEN_BYTES[c] === 1;
}

/** isValueByte: textproto accepts any byte in a value except controls other than HTAB. */
export function isValueByte(c: number): boolean {
  return c === 9 || (c >= 0x20 && c !== 0x7f);
}

/** isSpace is textproto's ASCII white space (space, tab, CR, LF). */
export function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 13 || c === 10;
}

/** indexIn finds `byte` in b[from, to), or -1. */
export function indexIn(b: Buffer, byte: number, from: number, to: number): number {
  const at = b.indexOf(byte, from);
  return at >= 0 && at < to ? at : -1;
}

/** hexValue is the value of a hex digit byte, or -1. */
export function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const lower = c | 0x20;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

/** parseStatusCode is strconv.Atoi on a status code (sign allowed), -1 when invalid or negative. */
export function parseStatusCode(text: string): number {
  if (!/^[+-]?[0-9]+$/.test(text)) return -1;
  const value = Number(text);
  return value < 0 ? -1 : Math.abs(value);
}

/** isHttpVersion is Go's ParseHTTPVersion: exactly "HTTP/<digit>.<digit>". */
export function isHttpVersion(text: string): boolean {
  return /^HTTP\/[0-9]\.[0-9]$/.test(text);
}

/**
 * headerKind tells the fields the client reads apart, case-insensitively, from the token bytes
 * b[from, to) (0 for any other field).
 */
export function headerKind(b: Buffer, from: number, to: number): number {
  const length = to - from;
  const kind = length === 14 ? CONTENT_LENGTH : length === 17 ? TRANSFER_ENCODING : length === 8 ? LOCATION : 0;
  const name = kind === CONTENT_LENGTH ? CONTENT_LENGTH_NAME : kind === TRANSFER_ENCODING ? TRANSFER_ENCODING_NAME : LOCATION_NAME;
  // Token bytes only here, so OR-ing 0x20 lower-cases letters and maps nothing else onto them.
  for (let i = 0; i < length && kind !== 0; i++) if ((b[from + i]! | 0x20) !== name[i]) return 0;
  return kind;
}

/**
 * bodyLength applies transfer.go to a final response head: Transfer-Encoding (HTTP/1.1 and
 * later only; "chunked" alone is supported), then Content-Length (repeats must agree), then
 * the statuses without a body (1xx, 204, 304). It returns the byte count, CHUNKED, TO_EOF,
 * or Go's error text.
 */
export function bodyLength(status: number, http11: boolean, lengths: readonly string[], encodings: readonly string[]): number | string {
  let chunked = false;
  if (encodings.length > 0 && http11) {
    if (encodings.length > 1) return `too many transfer encodings: ${goQuoteList(encodings)}`;
    if (encodings[0]!.toLowerCase() !== "chunked") return `unsupported transfer encoding: ${goQuote(encodings[0]!)}`;
    chunked = true;
  }
  const length = lengths.length > 0 ? trimSpace(lengths[0]!) : "";
  for (let i = 1; i < lengths.length; i++) {
    if (trimSpace(lengths[i]!) !== length) return `http: message cannot contain multiple Content-Length headers; got ${goQuoteList(lengths)}`;
  }
  if ((status >= 100 && status <= 199) || status === 204 || status === 304) return 0;
  if (chunked) return CHUNKED;
  if (length === "") return TO_EOF;
  const valid = /^[0-9]+$/.test(length) && (length.length < 19 || (length.length === 19 && length <= MAX_CONTENT_LENGTH));
  return valid ? Number(length) : `bad Content-Length ${goQuote(length)}`;
}

/**
 * parseChunkSizeLine reads a chunk-size line b[from, to), `to` at its LF, like Go's
 * readChunkLine and parseHexUint: CRLF required, at most 4095 bytes, extensions after ";"
 * ignored, at most 16 hex digits. It returns the size or Go's error text.
 */
export function parseChunkSizeLine(b: Buffer, from: number, to: number): number | string {
  const cr = indexIn(b, 13, from, to);
  if (cr < 0) return "chunked line ends with bare LF";
  if (cr !== to - 1) return "invalid CR in chunked line";
  let end = to - 1;
  if (end - from >= 4096) return "header line too long";
  while (end > from && isSpace(b[end - 1]!)) end--;
  const semi = indexIn(b, 59, from, end);
  if (semi >= 0) end = semi;
  if (end === from) return "empty hex number for chunk length";
  let size = 0;
  for (let i = from; i < end; i++) {
    const digit = hexValue(b[i]!);
    if (digit < 0) return "invalid byte in chunk length";
    if (i - from === 16) return "http chunk length too large";
    size = size * 16 + digit;
  }
  return size;
}

function trimSpace(s: string): string {
  return s.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, "");
}
