// Tests of the Go-worded error helpers of the httpGet handler.
import assert from "node:assert/strict";
import { test } from "node:test";
import { brokenConnection, goErrorText, goFirstRecordError, goQuote, goQuoteBytes, goQuoteList, SCHEME_MISMATCH } from "./http-errors.js";

test("goQuoteBytes quotes like Go's %q (strconv.Quote)", () => {
  const rows: [number[] | string, string][] = [
    [[0x83, 0x00, 0x00, 0x01, 0x8f], '"\\x83\\x00\\x00\\x01\\x8f"'],
    ["plain text", '"plain text"'],
    ['q"b\\', '"q\\"b\\\\"'],
    ["\t\n\r\u0007\u000b\u000c\u0008", '"\\t\\n\\r\\a\\v\\f\\b"'],
    ["\u007f", '"\\x7f"'],
    ["héllo €", '"héllo €"'],
    ["\u00ad", '"\\u00ad"'], // soft hyphen: a format character, not printable
    ["\u{1F600}", '"\u{1F600}"'],
    [[0xc3], '"\\xc3"'], // truncated sequence
    [[0xed, 0xa0, 0x80], '"\\xed\\xa0\\x80"'], // an encoded surrogate is invalid UTF-8
    [[0xe2, 0x82, 0xac, 0xff], '"€\\xff"'],
  ];
  for (const [input, quoted] of rows) {
    const bytes = typeof input === "string" ? Buffer.from(input, "utf8") : Buffer.from(input);
    assert.equal(goQuoteBytes(bytes, 0, bytes.length), quoted, JSON.stringify(input));
  }
  const framed = Buffer.from("xxHTTP/1.1yy");
  assert.equal(goQuoteBytes(framed, 2, 10), '"HTTP/1.1"');
});

test("goQuote, goQuoteList, brokenConnection", () => {
  assert.equal(goQuote("http://10.0.0.5:81/"), '"http://10.0.0.5:81/"');
  assert.equal(goQuoteList(["1", "2"]), '["1" "2"]');
  assert.equal(goQuoteList([]), "[]");
  assert.equal(brokenConnection("unexpected EOF"), "net/http: HTTP/1.x transport connection broken: unexpected EOF");
});

test("goErrorText words Node socket errors as Go's net/http", () => {
  const err = (fields: Record<string, string>): Error => Object.assign(new Error("node text"), fields);
  const addr = "127.0.0.1:8080";
  assert.equal(goErrorText(err({ code: "ECONNREFUSED", syscall: "connect" }), addr), "dial tcp 127.0.0.1:8080: connect: connection refused");
  assert.equal(goErrorText(err({ code: "ECONNRESET", syscall: "read" }), addr), "read tcp 127.0.0.1:8080: read: connection reset by peer");
  assert.equal(goErrorText(err({ code: "EPIPE", syscall: "write" }), addr), "write tcp 127.0.0.1:8080: write: broken pipe");
  const local = "127.0.0.1:40112";
  assert.equal(goErrorText(err({ code: "ECONNRESET", syscall: "read" }), addr, false, local), "read tcp 127.0.0.1:40112->127.0.0.1:8080: read: connection reset by peer");
  assert.equal(goErrorText(err({ code: "EPIPE", syscall: "write" }), addr, false, local), "write tcp 127.0.0.1:40112->127.0.0.1:8080: write: broken pipe");
  assert.equal(goErrorText(err({ code: "ECONNRESET", syscall: "write" }), addr, false, local), "write tcp 127.0.0.1:40112->127.0.0.1:8080: write: connection reset by peer");
  assert.equal(goErrorText(err({ code: "ECONNREFUSED", syscall: "connect" }), addr, false, local), "dial tcp 127.0.0.1:8080: connect: connection refused", "a dial names no source");
  assert.equal(goErrorText(err({ code: "ECONNRESET" }), addr), "EOF");
  assert.equal(goErrorText(err({ code: "ECONNRESET" }), addr, true), "unexpected EOF");
  assert.equal(goErrorText(err({ code: "ERR_SOMETHING" }), addr), "node text");
});

test("goFirstRecordError words a non-TLS answer to a ClientHello as Go's client does", () => {
  const head = (bytes: number[] | string): Buffer => (typeof bytes === "string" ? Buffer.from(bytes, "latin1") : Buffer.from(bytes));
  assert.equal(goFirstRecordError(head("HTTP/")), SCHEME_MISMATCH);
  assert.equal(SCHEME_MISMATCH, "http: server gave HTTP response to HTTPS client");
  assert.equal(goFirstRecordError(head("SSH-2")), "tls: first record does not look like a TLS handshake");
  assert.equal(goFirstRecordError(head([0x80, 0x2e, 0x01, 0x03, 0x01])), "tls: unsupported SSLv2 handshake received");
  assert.equal(goFirstRecordError(head([0x16, 0x10, 0x00, 0x00, 0x10])), "tls: first record does not look like a TLS handshake", "version >= 0x1000");
  assert.equal(goFirstRecordError(head([0x17, 0x03, 0x03, 0x00, 0x10])), "tls: first record does not look like a TLS handshake", "application data first");
  assert.equal(goFirstRecordError(head([0x16, 0x03, 0x03, 0x00, 0x7a])), undefined, "a handshake record passes");
  assert.equal(goFirstRecordError(head([0x15, 0x03, 0x01, 0x00, 0x02])), undefined, "an alert record passes");
});
