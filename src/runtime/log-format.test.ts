import assert from "node:assert/strict";
import { test } from "node:test";
import {
  CriLogParseError,
  formatCriLogLine,
  formatRfc3339Nano,
  MAX_CONTAINER_LOG_LINE_SIZE,
  parseCriLogLine,
  parseRfc3339Nano,
} from "./log-format.js";

test("MAX_CONTAINER_LOG_LINE_SIZE is containerd's 16 KiB default", () => {
  assert.equal(MAX_CONTAINER_LOG_LINE_SIZE, 16384);
});

test("formatRfc3339Nano trims trailing zeros like Go's RFC3339Nano", () => {
  const base = Date.UTC(2026, 0, 2, 3, 4, 5);
  const cases: [number, number, string][] = [
    [base, 0, "2026-01-02T03:04:05Z"],
    [base + 100, 0, "2026-01-02T03:04:05.1Z"],
    [base + 123, 0, "2026-01-02T03:04:05.123Z"],
    [base + 120, 0, "2026-01-02T03:04:05.12Z"],
    [base + 123, 456_789, "2026-01-02T03:04:05.123456789Z"],
    [base, 1, "2026-01-02T03:04:05.000000001Z"],
    [base + 7, 500_000, "2026-01-02T03:04:05.0075Z"],
  ];
  for (const [ms, nanos, want] of cases) assert.equal(formatRfc3339Nano(ms, nanos), want, `${ms}+${nanos}ns`);
});

test("parseRfc3339Nano accepts nine digits and zone offsets, rejects junk", () => {
  const base = Date.UTC(2016, 9, 6, 0, 17, 9);
  assert.equal(parseRfc3339Nano("2016-10-06T00:17:09.669794202Z"), base + 669);
  assert.equal(parseRfc3339Nano("2016-10-06T00:17:09Z"), base);
  assert.equal(parseRfc3339Nano("2016-10-06T02:17:09.5+02:00"), base + 500);
  assert.equal(parseRfc3339Nano("2016-10-05T23:17:09-01:00"), base);
  for (const bad of ["", "2016-10-06", "2016-10-06T00:17:09", "2016-10-06T00:17:09.Z", "yesterday"]) {
    assert.equal(parseRfc3339Nano(bad), undefined, bad);
  }
});

test("formatCriLogLine renders '<ts> <stream> <tag> <content>\\n'", () => {
  const line = formatCriLogLine("2016-10-06T00:17:09.669794202Z", "stdout", "P", "log content 1");
  assert.equal(line.toString(), "2016-10-06T00:17:09.669794202Z stdout P log content 1\n");
  assert.equal(formatCriLogLine("2016-10-06T00:17:09Z", "stderr", "F", Buffer.alloc(0)).toString(), "2016-10-06T00:17:09Z stderr F \n");
});

test("parseCriLogLine parses the kubelet's examples (content without the newline)", () => {
  const p = parseCriLogLine("2016-10-06T00:17:09.669794202Z stdout P log content 1\n");
  assert.equal(p.timestamp, "2016-10-06T00:17:09.669794202Z");
  assert.equal(p.time, Date.UTC(2016, 9, 6, 0, 17, 9, 669));
  assert.equal(p.stream, "stdout");
  assert.equal(p.tag, "P");
  assert.deepEqual(p.tags, ["P"]);
  assert.equal(p.content.toString(), "log content 1");

  const f = parseCriLogLine(Buffer.from("2016-10-06T00:17:09.669794203Z stderr F log content 2"));
  assert.equal(f.stream, "stderr");
  assert.equal(f.tag, "F");
  assert.equal(f.content.toString(), "log content 2");
});

test("parseCriLogLine keeps spaces in content, empty content and extra tags", () => {
  assert.equal(parseCriLogLine("2016-10-06T00:17:09Z stdout F  two  spaces \n").content.toString(), " two  spaces ");
  assert.equal(parseCriLogLine("2016-10-06T00:17:09Z stdout F \n").content.length, 0);
  const tagged = parseCriLogLine("2016-10-06T00:17:09Z stdout P:x:y content");
  assert.equal(tagged.tag, "P");
  assert.deepEqual(tagged.tags, ["P", "x", "y"]);
  // Any first tag other than P is a full line (kubelet: partial only when the tag is P).
  assert.equal(parseCriLogLine("2016-10-06T00:17:09Z stdout X content").tag, "F");
});

test("parseCriLogLine rejects malformed lines with the kubelet's messages", () => {
  const cases: [string, string][] = [
    ["no-spaces-at-all", "timestamp is not found"],
    ["yesterday stdout F x", 'unexpected timestamp format "2006-01-02T15:04:05.999999999Z07:00": cannot parse "yesterday"'],
    ["2016-10-06T00:17:09Z stdout", "stream type is not found"],
    ["2016-10-06T00:17:09Z stdin F x", 'unexpected stream type "stdin"'],
    ["2016-10-06T00:17:09Z stdout F", "log tag is not found"],
  ];
  for (const [line, message] of cases) {
    assert.throws(() => parseCriLogLine(line), (err: unknown) => err instanceof CriLogParseError && err.message === message, line);
  }
});

test("format and parse round-trip binary content", () => {
  const content = Buffer.from([0, 1, 2, 0xff, 0x20, 0x0d]);
  const parsed = parseCriLogLine(formatCriLogLine(formatRfc3339Nano(Date.UTC(2026, 0, 1), 5), "stderr", "F", content));
  assert.deepEqual(parsed.content, content);
  assert.equal(parsed.timestamp, "2026-01-01T00:00:00.000000005Z");
});
