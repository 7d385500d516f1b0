// An incremental HTTP/1.x response parser for the probe client, following Go's net/http
// reading rules (response.go ReadResponse, textproto ReadMIMEHeader, transfer.go readTransfer,
// internal/chunked.go): status line, header lines, 1xx interim responses skipped, bodies framed
// by Content-Length, chunked coding or the connection's end. It works on byte ranges of the
// buffers it is fed and copies only the partial lines it must carry over to the next read.
import { brokenConnection, goQuoteBytes, HEADERS_TOO_LARGE, MAX_RESPONSE_HEADER_BYTES } from "./http-errors.js";
import { bodyLength, CHUNKED, CONTENT_LENGTH, headerKind, indexIn, isHttpVersion, isSpace, isTokenByte, isValueByte } from "./http-syntax.js";
import { LOCATION, parseChunkSizeLine, parseStatusCode } from "./http-syntax.js";

/** ResponseSink receives what the parser finds; returning false stops the parse ("stopped"). */
export interface ResponseSink {
  /** onResponseHead receives the final (non-1xx, or 101) response head. */
  onResponseHead(status: number, location: string | undefined): boolean;
  /** onResponseBody receives body bytes buf[start, end), in order, chunk framing removed. */
  onResponseBody(buf: Buffer, start: number, end: number): boolean;
}

/**
 * ParseStatus is the result of feeding bytes: "more" (keep reading), "complete" (the response
 * is whole), "stopped" (a sink callback said stop), "error" (see `error`).
 */
export type ParseStatus = "more" | "complete" | "stopped" | "error";

const HEAD = 0;
const LENGTH_BODY = 1;
const EOF_BODY = 2;
const CHUNK_SIZE = 3;
const CHUNK_DATA = 4;
const CHUNK_END = 5;
const TRAILER = 6;
const DONE = 7;
const FAILED = 8;

const MAX_CHUNK_LINE = 4096; // Go internal/chunked.go maxLineLength (the size line budget)
const MAX_TRAILER_BYTES = 4096; // Go looks for the trailer's end within its 4 KiB read buffer
const MAX_CHUNK_EXCESS = 16 * 1024; // Go: "chunked encoding contains too much non-data"

/**
 * HttpResponseParser parses one connection's response. Feed it what the socket reads, call
 * eof() when the peer closed; reset() makes it ready for the next connection. `error` holds
 * Go's error text after an "error" status: head errors come wrapped as the Transport wraps
 * them (`net/http: HTTP/1.x transport connection broken: …`, bare `EOF` for a connection
 * closed before any byte), body errors bare (`unexpected EOF`, `malformed chunked encoding`).
 */
export class HttpResponseParser {
  /** error is the Go error text of the last "error" status. */
  error = "";
  private state = HEAD;
  private readonly pieces: Buffer[] = []; // copies of a line that spans reads
  private pieceBytes = 0;
  private received = 0;
  private headBytes = 0; // all head bytes, 1xx heads included (Go ≥ 1.24 limits their total)
  private lineNo = 0;
  private status = 0;
  private http11 = false;
  private location: string | undefined;
  private readonly lengths: string[] = [];
  private readonly encodings: string[] = [];
  private lastHeader = 0; // the previous header line's kind, for obs-fold continuation lines
  private remaining = 0;
  private excess = 0;
  private trailerBytes = 0;

  constructor(private readonly sink: ResponseSink) {}

  /** reset forgets everything, for a new connection. */
  reset(): void {
    this.error = "";
    this.state = HEAD;
    this.pieces.length = 0;
    this.pieceBytes = 0;
    this.received = 0;
    this.headBytes = 0;
    this.remaining = 0;
    this.excess = 0;
    this.trailerBytes = 0;
    this.startHead();
  }

  /** feed parses buf[start, end). The bytes are not kept past the call (partial lines are copied). */
  feed(buf: Buffer, start: number, end: number): ParseStatus {
    this.received += end - start;
    let pos = start;
    while (pos < end) {
      const state = this.state;
      if (state === LENGTH_BODY || state === CHUNK_DATA || state === EOF_BODY) {
        const take = state === EOF_BODY ? end - pos : Math.min(end - pos, this.remaining);
        const go = this.sink.onResponseBody(buf, pos, pos + take);
        pos += take;
        this.remaining -= take;
        if (!go) return "stopped";
        if (state === LENGTH_BODY && this.remaining === 0) return this.done();
        if (state === CHUNK_DATA && this.remaining === 0) this.enter(CHUNK_END, 2);
        continue;
      }
      if (state === CHUNK_END) {
        // Go reads the two bytes after a chunk's data and wants exactly CRLF.
        if (buf[pos] !== (this.remaining === 2 ? 13 : 10)) return this.fail("malformed chunked encoding");
        pos++;
        if (--this.remaining === 0) this.state = CHUNK_SIZE;
        continue;
      }
      if (state === DONE) return "complete";
      if (state === FAILED) return "error";
      const nl = buf.indexOf(10, pos);
      if (nl < 0 || nl >= end) return this.stash(buf, pos, end);
      const status = this.count(nl + 1 - pos);
      if (status !== undefined) return status;
      let line = buf;
      let from = pos;
      let to = nl;
      if (this.pieceBytes > 0) {
        this.pieces.push(buf.subarray(pos, nl));
        line = Buffer.concat(this.pieces, this.pieceBytes + nl - pos);
        this.pieces.length = 0;
        this.pieceBytes = 0;
        from = 0;
        to = line.length;
      }
      pos = nl + 1;
      const result = this.line(line, from, to);
      if (result !== undefined) return result;
    }
    return this.state === DONE ? "complete" : "more";
  }

  /** eof reports the peer's end of stream: it completes an EOF-framed body, or is an error. */
  eof(): ParseStatus {
    if (this.state === EOF_BODY || this.state === DONE) return this.done();
    if (this.state === FAILED) return "error";
    if (this.state === HEAD && this.received === 0) return this.fail("EOF"); // nothing at all: Go's bare io.EOF
    if (this.state === HEAD && this.pieceBytes > 0) {
      // Go's textproto hands over a last line that has no newline; the end comes after it.
      const line = Buffer.concat(this.pieces, this.pieceBytes);
      this.pieces.length = 0;
      this.pieceBytes = 0;
      const result = this.line(line, 0, line.length);
      return result === undefined ? this.eof() : result;
    }
    if (this.state === HEAD) return this.fail(brokenConnection("unexpected EOF"));
    if (this.state === TRAILER) return this.fail("http: unexpected EOF reading trailer");
    return this.fail("unexpected EOF");
  }

  private line(b: Buffer, from: number, to: number): ParseStatus | undefined {
    if (this.state === CHUNK_SIZE) return this.chunkSizeLine(b, from, to);
    let end = to > from && b[to - 1] === 13 ? to - 1 : to; // ReadLine drops the CR of a CRLF
    if (this.state === TRAILER) {
      if (end === from) return this.done();
      return undefined; // trailer fields are read and dropped
    }
    if (this.lineNo++ === 0) return this.statusLine(b, from, end);
    if (end === from) return this.endOfHead();
    const first = b[from];
    if (first === 32 || first === 9) {
      if (this.lineNo === 2) return this.fail(brokenConnection(`malformed MIME header initial line: ${b.toString("utf8", from, Math.min(end, from + 80))}`));
      return this.continuation(b, from, end);
    }
    while (end > from && isSpace(b[end - 1]!)) end--; // textproto trims the line
    const colon = b.indexOf(58, from);
    if (colon < 0 || colon >= end) return this.fail(brokenConnection(`malformed MIME header: missing colon: ${goQuoteBytes(b, from, end)}`));
    let canonical = true;
    for (let i = from; i < colon; i++) {
      if (isTokenByte(b[i]!)) continue;
      if (b[i] !== 32) return this.malformedLine(b, from, end);
      canonical = false; // Go accepts a space in a key but leaves the key as it is
    }
    for (let i = colon + 1; i < end; i++) if (!isValueByte(b[i]!)) return this.malformedLine(b, from, end);
    this.lastHeader = canonical ? headerKind(b, from, colon) : 0;
    if (this.lastHeader === 0) return undefined;
    let start = colon + 1;
    while (start < end && (b[start] === 32 || b[start] === 9)) start++;
    const value = b.toString(this.lastHeader === LOCATION ? "utf8" : "latin1", start, end);
    if (this.lastHeader === LOCATION) this.location ??= value;
    else (this.lastHeader === CONTENT_LENGTH ? this.lengths : this.encodings).push(value);
    return undefined;
  }

  private statusLine(b: Buffer, from: number, end: number): ParseStatus | undefined {
    const space = indexIn(b, 32, from, end);
    if (space < 0) return this.fail(brokenConnection(`malformed HTTP response ${goQuoteBytes(b, from, end)}`));
    let codeStart = space + 1;
    while (codeStart < end && b[codeStart] === 32) codeStart++;
    let codeEnd = indexIn(b, 32, codeStart, end);
    if (codeEnd < 0) codeEnd = end;
    const code = codeEnd - codeStart === 3 ? parseStatusCode(b.toString("latin1", codeStart, codeEnd)) : -1;
    if (code < 0) return this.fail(brokenConnection(`malformed HTTP status code ${goQuoteBytes(b, codeStart, codeEnd)}`));
    const version = b.toString("latin1", from, space);
    if (!isHttpVersion(version)) return this.fail(brokenConnection(`malformed HTTP version ${goQuoteBytes(b, from, space)}`));
    this.status = code;
    this.http11 = version >= "HTTP/1.1";
    return undefined;
  }

  /** continuation folds an obs-fold line into the previous field, as textproto does. */
  private continuation(b: Buffer, from: number, end: number): ParseStatus | undefined {
    let start = from;
    while (start < end && isSpace(b[start]!)) start++;
    while (end > start && isSpace(b[end - 1]!)) end--;
    for (let i = start; i < end; i++) if (!isValueByte(b[i]!)) return this.malformedLine(b, from, end);
    if (this.lastHeader === 0 || start === end) return undefined;
    const more = ` ${b.toString(this.lastHeader === LOCATION ? "utf8" : "latin1", start, end)}`;
    if (this.lastHeader === LOCATION) this.location += more;
    else {
      const list = this.lastHeader === CONTENT_LENGTH ? this.lengths : this.encodings;
      list[list.length - 1] += more;
    }
    return undefined;
  }

  /** endOfHead skips an interim (1xx) response or picks the final one's body framing. */
  private endOfHead(): ParseStatus | undefined {
    const status = this.status;
    if (status >= 100 && status <= 199 && status !== 101) {
      this.startHead(); // an interim response: the real one follows
      return undefined;
    }
    const length = bodyLength(status, this.http11, this.lengths, this.encodings);
    if (typeof length === "string") return this.fail(brokenConnection(length));
    if (!this.sink.onResponseHead(status, this.location)) return "stopped";
    if (length === 0) return this.done();
    if (length === CHUNKED) this.state = CHUNK_SIZE;
    else this.enter(length > 0 ? LENGTH_BODY : EOF_BODY, length);
    return undefined;
  }

  /** chunkSizeLine starts a chunk (Go beginChunk), with Go's cap on framing overhead. */
  private chunkSizeLine(b: Buffer, from: number, to: number): ParseStatus | undefined {
    const size = parseChunkSizeLine(b, from, to);
    if (typeof size === "string") return this.fail(size);
    this.excess = Math.max(0, this.excess + (to - 1 - from) + 2 - 16 - 2 * size);
    if (this.excess > MAX_CHUNK_EXCESS) return this.fail("chunked encoding contains too much non-data");
    if (size === 0) this.enter(TRAILER, 0);
    else this.enter(CHUNK_DATA, size);
    return undefined;
  }

  /** count adds a line's bytes to the head or trailer budget. */
  private count(bytes: number): ParseStatus | undefined {
    if (this.state === HEAD) {
      this.headBytes += bytes;
      if (this.headBytes > MAX_RESPONSE_HEADER_BYTES) return this.fail(HEADERS_TOO_LARGE);
    } else if (this.state === TRAILER) {
      this.trailerBytes += bytes;
      if (this.trailerBytes > MAX_TRAILER_BYTES) return this.fail("http: suspiciously long trailer after chunked body");
    } else if (this.pieceBytes + bytes > MAX_CHUNK_LINE + 2) {
      return this.fail("header line too long");
    }
    return undefined;
  }

  /** stash keeps (a copy of) the start of a line whose end has not arrived yet. */
  private stash(buf: Buffer, pos: number, end: number): ParseStatus {
    const status = this.count(end - pos);
    if (status !== undefined) return status;
    this.pieces.push(Buffer.from(buf.subarray(pos, end))); // the caller may reuse `buf`
    this.pieceBytes += end - pos;
    return "more";
  }

  private startHead(): void {
    this.lineNo = 0;
    this.status = 0;
    this.location = undefined;
    this.lengths.length = 0;
    this.encodings.length = 0;
    this.lastHeader = 0;
  }

  private enter(state: number, remaining: number): void {
    this.state = state;
    this.remaining = remaining;
  }

  private done(): ParseStatus {
    this.state = DONE;
    return "complete";
  }

  private malformedLine(b: Buffer, from: number, end: number): ParseStatus {
    return this.fail(brokenConnection(`malformed MIME header line: ${b.toString("utf8", from, end)}`));
  }

  private fail(text: string): ParseStatus {
    this.error = text;
    this.state = FAILED;
    return "error";
  }
}
