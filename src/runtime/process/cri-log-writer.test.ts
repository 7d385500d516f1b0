import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { after, test } from "node:test";
import { FakeClock } from "../../../test/fakes/fake-clock.js";
import { CriLogWriter } from "./cri-log-writer.js";

const dir = await mkdtemp(join(tmpdir(), "probelet-cri-log-"));
after(() => rm(dir, { recursive: true, force: true }));

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0, 250);

test("stdout and stderr go to one file as CRI entries stamped by the clock", async () => {
  const clock = new FakeClock(T0);
  const path = join(dir, "mixed.log");
  const writer = await CriLogWriter.open(path, { clock });
  const out = new PassThrough();
  const err = new PassThrough();
  writer.attach(out, "stdout");
  writer.attach(err, "stderr");
  out.write("hello\nwor");
  await new Promise((r) => setImmediate(r));
  err.write("oops\r\n");
  await new Promise((r) => setImmediate(r));
  await clock.advance(1);
  out.end("ld\nno newline");
  err.end();
  await writer.close();
  assert.equal(
    await readFile(path, "utf8"),
    [
      "2026-01-01T12:00:00.25Z stdout F hello",
      "2026-01-01T12:00:00.25Z stderr F oops",
      "2026-01-01T12:00:00.251Z stdout F world",
      "2026-01-01T12:00:00.251Z stdout P no newline",
      "",
    ].join("\n"),
  );
});

test("an existing file is appended to, and a 16 KiB+ line is split P…F", async () => {
  const clock = new FakeClock(T0);
  const path = join(dir, "append.log");
  for (const text of ["first\n", `${"x".repeat(16384)}yz\n`]) {
    const writer = await CriLogWriter.open(path, { clock });
    const out = new PassThrough();
    writer.attach(out, "stdout");
    out.end(text);
    await writer.close();
  }
  const lines = (await readFile(path, "utf8")).split("\n");
  assert.deepEqual(lines, [
    "2026-01-01T12:00:00.25Z stdout F first",
    `2026-01-01T12:00:00.25Z stdout P ${"x".repeat(16384)}`,
    "2026-01-01T12:00:00.25Z stdout F yz",
    "",
  ]);
});

test("maxLineSize overrides the split size", async () => {
  const path = join(dir, "small.log");
  const writer = await CriLogWriter.open(path, { clock: new FakeClock(T0), maxLineSize: 4 });
  const out = new PassThrough();
  writer.attach(out, "stderr");
  out.end("abcdefghij\n");
  await writer.close();
  assert.deepEqual(
    (await readFile(path, "utf8")).split("\n").map((l) => l.slice(24)),
    ["stderr P abcd", "stderr P efgh", "stderr F ij", ""],
  );
});

test("close() waits for the streams to end and is idempotent; destroyStreams() cuts them", async () => {
  const path = join(dir, "wait.log");
  const writer = await CriLogWriter.open(path, { clock: new FakeClock(T0) });
  const out = new PassThrough();
  writer.attach(out, "stdout");
  let closed = false;
  const closing = writer.close().then(() => (closed = true));
  out.write("partial");
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(closed, false);
  writer.destroyStreams();
  await closing;
  await writer.close();
  assert.equal(await readFile(path, "utf8"), "2026-01-01T12:00:00.25Z stdout P partial\n");
  assert.throws(() => writer.attach(new PassThrough(), "stdout"), /closing/);
});

test("an empty path discards output but still drains the streams", async () => {
  const writer = await CriLogWriter.open("", { clock: new FakeClock(T0) });
  const out = new PassThrough();
  writer.attach(out, "stdout");
  out.end(Buffer.alloc(1 << 20, "a"));
  await writer.close();
  assert.equal(out.readableEnded, true);
});

test("open() rejects when the file cannot be opened", async () => {
  await assert.rejects(CriLogWriter.open(dir, { clock: new FakeClock(T0) }), { code: "EISDIR" });
  await assert.rejects(CriLogWriter.open(join(dir, "missing", "x.log"), { clock: new FakeClock(T0) }), { code: "ENOENT" });
  assert.equal(existsSync(join(dir, "missing")), false);
});
