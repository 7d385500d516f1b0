// Unit tests of the probe client's response parser: framing (Content-Length, chunked, end of
// connection), 1xx interim responses, Go's error texts for malformed responses, and
// incremental parsing (every response is also fed one byte at a time from a reused buffer).
import assert from "node:assert/strict";
import { test } from "node:test";
import { HEADERS_TOO_LARGE } from "./http-errors.js";
import { HttpResponseParser, type ParseStatus, type ResponseSink } from "./http-response-parser.js";

const BROKEN = "net/http: HTTP/1.x transport connection broken: ";

interface Parsed {
  status: ParseStatus;
  heads: string[];
  body: string;
  error: string;
}

class Recorder implements ResponseSink {
  heads: string[] = [];
  body: Buffer[] = [];
  stopAfterBodyBytes = Infinity;
  private bodyBytes = 0;
  onResponseHead(status: number, location: string | undefined): boolean {
    this.heads.push(location === undefined ? String(status) : `${status} ${location}`);
    return true;
  }
  onResponseBody(buf: Buffer, start: number, end: number): boolean {
    this.body.push(Buffer.from(buf.subarray(start, end))); // copy: the test reuses its buffer
    this.bodyBytes += end - start;
    return this.bodyBytes < this.stopAfterBodyBytes;
  }
}

/**
 * parse feeds `input` in pieces of `step` bytes (Infinity = all at once) through one reused
 * buffer that is scribbled over after every feed, then reports EOF if `eof` and still "more".
 */
function parse(input: string | Buffer, step: number, eof: boolean, stopAfterBodyBytes = Infinity): Parsed {
  const bytes = typeof input === "string" ? Buffer.from(input, "latin1") : input;
  const recorder = new Recorder();
  recorder.stopAfterBodyBytes = stopAfterBodyBytes;
  const parser = new HttpResponseParser(recorder);
  parser.reset();
  const scratch = Buffer.alloc(Math.max(bytes.length, 1) + 8);
  let status: ParseStatus = "more";
  for (let pos = 0; pos < bytes.length && status === "more"; pos += Math.min(step, bytes.length)) {
    const piece = bytes.subarray(pos, Math.min(bytes.length, pos + step));
    piece.copy(scratch, 3);
    status = parser.feed(scratch, 3, 3 + piece.length);
    scratch.fill(0x5a); // what the parser kept must not alias the read buffer
  }
  if (status === "more" && eof) status = parser.eof();
  return { status, heads: recorder.heads, body: Buffer.concat(recorder.body).toString("latin1"), error: parser.error };
}

/** check parses whole and byte by byte and expects the same result both ways. */
function check(name: string, input: string | Buffer, eof: boolean, expected: Partial<Parsed>): void {
  for (const step of [Infinity, 1, 7]) {
    const got = parse(input, step, eof);
    const picked = Object.fromEntries(Object.keys(expected).map((k) => [k, got[k as keyof Parsed]]));
    assert.deepEqual(picked, expected, `${name} (step ${step})`);
  }
}

test("framing: Content-Length, chunked, end of connection, no-body statuses", () => {
  const rows: [string, string, boolean, Partial<Parsed>][] = [
    ["content-length", "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok", false, { status: "complete", heads: ["200"], body: "ok" }],
    ["bytes after the body are left alone", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA", false, { status: "complete", body: "ok" }],
    ["chunked with extension and trailer", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n3;ext=1\r\n!!!\r\nA \r\n0123456789\r\n0\r\nX-Trailer: 1\r\n\r\n", false, { status: "complete", body: "ok!!!0123456789" }],
    ["chunked, upper-case coding name", "HTTP/1.1 200 OK\r\ntransfer-encoding: Chunked\r\n\r\n0\r\n\r\n", false, { status: "complete", body: "" }],
    ["end of connection", "HTTP/1.0 200 OK\r\n\r\nabc", true, { status: "complete", body: "abc" }],
    ["HTTP/1.0 ignores Transfer-Encoding", "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok", true, { status: "complete", body: "2\r\nok" }],
    ["bare LF line ends", "HTTP/1.1 200 OK\nContent-Length: 1\n\nx", false, { status: "complete", body: "x" }],
    ["204 ignores Content-Length", "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n", false, { status: "complete", heads: ["204"], body: "" }],
    ["304 has no body", "HTTP/1.1 304 Not Modified\r\n\r\n", false, { status: "complete", heads: ["304"] }],
    ["101 is final", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\nraw", false, { status: "complete", heads: ["101"] }],
    ["1xx interim responses are skipped", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n!", false, { heads: ["200"], body: "!" }],
    ["repeated equal Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\ncontent-length:  2 \r\n\r\nok", false, { status: "complete", body: "ok" }],
    ["empty Content-Length reads to the end", "HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\nabc", true, { status: "complete", body: "abc" }],
    ["Location: first value, any case", "HTTP/1.1 302 Found\r\nlocation: /a\r\nLocation: /b\r\nContent-Length: 0\r\n\r\n", false, { heads: ["302 /a"] }],
    ["Location folded over two lines", "HTTP/1.1 302 Found\r\nLocation: /a\r\n \t b\r\nContent-Length: 0\r\n\r\n", false, { heads: ["302 /a b"] }],
    ["space in a key: accepted, not a known field", "HTTP/1.1 200 OK\r\nContent-Length : 9\r\n\r\nabc", true, { status: "complete", body: "abc" }],
    ["reason phrase optional, extra spaces", "HTTP/1.1  404\r\nContent-Length: 0\r\n\r\n", false, { status: "complete", heads: ["404"] }],
    ["a response with nothing more than a head", "HTTP/1.1 200 OK\r\n\r\n", true, { status: "complete", body: "" }],
    ["a last head line without newline at EOF", "HTTP/1.1 200 OK\r\n\r", true, { status: "complete", heads: ["200"] }],
  ];
  for (const [name, input, eof, expected] of rows) check(name, input, eof, expected);
});

test("malformed heads fail with Go's wrapped transport errors", () => {
  const rows: [string, string | Buffer, boolean, string][] = [
    ["binary garbage", Buffer.from([0x83, 0x00, 0x00, 0x01, 0x8f]), true, `${BROKEN}malformed HTTP response "\\x83\\x00\\x00\\x01\\x8f"`],
    ["no space in the status line", "HTTP/1.1\r\n\r\n", false, `${BROKEN}malformed HTTP response "HTTP/1.1"`],
    ["four-digit status", "HTTP/1.1 2000 OK\r\n\r\n", false, `${BROKEN}malformed HTTP status code "2000"`],
    ["negative status", "HTTP/1.1 -12 X\r\n\r\n", false, `${BROKEN}malformed HTTP status code "-12"`],
    ["bad version", "HTTQ/1.1 200 OK\r\n\r\n", false, `${BROKEN}malformed HTTP version "HTTQ/1.1"`],
    ["two-digit version", "HTTP/1.10 200 OK\r\n\r\n", false, `${BROKEN}malformed HTTP version "HTTP/1.10"`],
    ["header without colon", "HTTP/1.1 200 OK\r\nNoColon\r\n\r\n", false, `${BROKEN}malformed MIME header: missing colon: "NoColon"`],
    ["bad key byte", "HTTP/1.1 200 OK\r\nBad@Key: x\r\n\r\n", false, `${BROKEN}malformed MIME header line: Bad@Key: x`],
    ["control byte in a value", "HTTP/1.1 200 OK\r\nX: a\u0001b\r\n\r\n", false, `${BROKEN}malformed MIME header line: X: a\u0001b`],
    ["first header line indented", "HTTP/1.1 200 OK\r\n lead: x\r\n\r\n", false, `${BROKEN}malformed MIME header initial line:  lead: x`],
    ["unsupported coding", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", false, `${BROKEN}unsupported transfer encoding: "gzip"`],
    ["two codings", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", false, `${BROKEN}too many transfer encodings: ["chunked" "chunked"]`],
    ["bad Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 1e3\r\n\r\n", false, `${BROKEN}bad Content-Length "1e3"`],
    ["Content-Length beyond int63", "HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775808\r\n\r\n", false, `${BROKEN}bad Content-Length "9223372036854775808"`],
    ["conflicting Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", false, `${BROKEN}http: message cannot contain multiple Content-Length headers; got ["1" "2"]`],
    ["closed before any byte", "", true, "EOF"],
    ["closed inside the head", "HTTP/1.1 200 OK\r\nContent-Length: 5", true, `${BROKEN}unexpected EOF`],
    // Go's bufio hands over a last line without newline, so textproto checks it first.
    ["closed inside a header name", "HTTP/1.1 200 OK\r\nContent-Le", true, `${BROKEN}malformed MIME header: missing colon: "Content-Le"`],
    ["closed after an interim response", "HTTP/1.1 100 Continue\r\n\r\n", true, `${BROKEN}unexpected EOF`],
  ];
  for (const [name, input, eof, error] of rows) check(name, input, eof, { status: "error", heads: [], error });
});

test("malformed bodies fail with Go's bare body-read errors", () => {
  const chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
  const rows: [string, string, boolean, string][] = [
    ["short Content-Length body", "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort", true, "unexpected EOF"],
    ["bad hex", `${chunked}zz\r\n`, false, "invalid byte in chunk length"],
    ["empty size", `${chunked}\r\n`, false, "empty hex number for chunk length"],
    ["17 hex digits", `${chunked}00000000000000001\r\n`, false, "http chunk length too large"],
    ["bare LF size line", `${chunked}2\nok\r\n`, false, "chunked line ends with bare LF"],
    ["CR inside a size line", `${chunked}2\r;x\r\nok\r\n`, false, "invalid CR in chunked line"],
    ["data not followed by CRLF", `${chunked}2\r\nokXX`, false, "malformed chunked encoding"],
    ["size line too long", `${chunked}1;${"x".repeat(5000)}\r\n`, false, "header line too long"],
    ["closed inside a chunk", `${chunked}5\r\nab`, true, "unexpected EOF"],
    ["closed before the last chunk", `${chunked}2\r\nok\r\n`, true, "unexpected EOF"],
    ["closed inside the trailer", `${chunked}0\r\nX-T: 1\r\n`, true, "http: unexpected EOF reading trailer"],
    ["endless trailer", `${chunked}0\r\n${"X-T: 1\r\n".repeat(600)}`, false, "http: suspiciously long trailer after chunked body"],
    ["tiny chunks with big extensions", `${chunked}${"1;aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\nx\r\n".repeat(500)}`, false, "chunked encoding contains too much non-data"],
  ];
  for (const [name, input, eof, error] of rows) check(name, input, eof, { status: "error", heads: ["200"], error });
});

test("a head larger than 10 MiB is refused with Go's text, 1xx heads included", () => {
  const line = `X-Filler: ${"f".repeat(1000)}\r\n`;
  const huge = `HTTP/1.1 200 OK\r\n${line.repeat(10_500)}\r\n`;
  const parsed = parse(huge, 64 * 1024, true);
  assert.deepEqual(parsed, { status: "error", heads: [], body: "", error: HEADERS_TOO_LARGE });
  const interim = `HTTP/1.1 100 Continue\r\n${line.repeat(900)}\r\n`.repeat(12);
  assert.equal(parse(`${interim}HTTP/1.1 200 OK\r\n\r\n`, 64 * 1024, true).error, HEADERS_TOO_LARGE);
  const single = parse(`HTTP/1.1 200 OK\r\nX: ${"y".repeat(11 << 20)}`, 16 * 1024, true);
  assert.equal(single.error, HEADERS_TOO_LARGE);
});

test("a sink can stop the parse, and reset() starts over", () => {
  const body = "HTTP/1.1 200 OK\r\n\r\n" + "a".repeat(100);
  assert.deepEqual(parse(body, Infinity, false, 10), { status: "stopped", heads: ["200"], body: "a".repeat(100), error: "" });
  const recorder = new Recorder();
  const parser = new HttpResponseParser(recorder);
  parser.reset();
  assert.equal(parser.feed(Buffer.from("garbage\r\n"), 0, 9), "error");
  assert.equal(parser.feed(Buffer.from("more"), 0, 4), "error");
  parser.reset();
  assert.equal(parser.error, "");
  const ok = Buffer.from("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
  assert.equal(parser.feed(ok, 0, ok.length), "complete");
  assert.equal(parser.eof(), "complete");
  assert.deepEqual(recorder.heads, ["200"]);
});
