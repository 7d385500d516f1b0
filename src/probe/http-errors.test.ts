// Tests of the Go-worded error helpers of the httpGet handler.
import assert from "node:assert/strict";
import { test } from "node:test";
import { brokenConnection, goErrorText, goQuote, goQuoteBytes, goQuoteList } from "./http-errors.js";

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
  assert.equal(goErrorText(err({ code: "ECONNRESET" }), addr), "EOF");
  assert.equal(goErrorText(err({ code: "ECONNRESET" }), addr, true), "unexpected EOF");
  assert.equal(goErrorText(err({ code: "ERR_SOMETHING" }), addr), "node text");
});
