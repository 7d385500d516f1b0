import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { iterateCriLog, MAX_LOG_FILE_LINE, readContainerLog, readCriLog } from "./log-reader.js";

const dir = await mkdtemp(join(tmpdir(), "probelet-log-reader-"));
after(() => rm(dir, { recursive: true, force: true }));

const FILE = [
  "2026-01-01T00:00:01Z stdout F one",
  "not a log line",
  "2026-01-01T00:00:02Z stderr P tw",
  "2026-01-01T00:00:02.5Z stderr F o",
  "2026-01-01T00:00:03Z stdout F ",
  "2026-01-01T00:00:04Z stdout P four-no-newline",
].join("\n"); // no newline after the last line

const path = join(dir, "0.log");
await writeFile(path, FILE);

test("readContainerLog joins P chunks and ends F entries with a newline, skipping bad lines", async () => {
  assert.equal((await readContainerLog(path)).toString(), "one\ntwo\n\nfour-no-newline");
});

test("readCriLog filters by stream, since and tail (tail counts file lines)", async () => {
  const contents = (entries: { content: Buffer }[]): string[] => entries.map((e) => e.content.toString());
  assert.deepEqual(contents(await readCriLog(path)), ["one", "tw", "o", "", "four-no-newline"]);
  assert.deepEqual(contents(await readCriLog(path, { stream: "stderr" })), ["tw", "o"]);
  assert.deepEqual(contents(await readCriLog(path, { since: Date.UTC(2026, 0, 1, 0, 0, 2, 100) })), ["o", "", "four-no-newline"]);
  assert.deepEqual(contents(await readCriLog(path, { tail: 2 })), ["", "four-no-newline"]);
  assert.deepEqual(contents(await readCriLog(path, { tail: 0 })), []);
  assert.deepEqual(contents(await readCriLog(path, { tail: -1 })).length, 5);
});

test("readContainerLog stops at limitBytes", async () => {
  assert.equal((await readContainerLog(path, { limitBytes: 6 })).toString(), "one\ntw");
  assert.equal((await readContainerLog(path, { limitBytes: 0 })).toString(), "");
});

test("entries carry stream, tag and parsed time", async () => {
  const entries = [];
  for await (const entry of iterateCriLog(path)) entries.push(entry);
  assert.deepEqual(
    entries.map((e) => [e.stream, e.tag, e.time]),
    [
      ["stdout", "F", Date.UTC(2026, 0, 1, 0, 0, 1)],
      ["stderr", "P", Date.UTC(2026, 0, 1, 0, 0, 2)],
      ["stderr", "F", Date.UTC(2026, 0, 1, 0, 0, 2, 500)],
      ["stdout", "F", Date.UTC(2026, 0, 1, 0, 0, 3)],
      ["stdout", "P", Date.UTC(2026, 0, 1, 0, 0, 4)],
    ],
  );
});

test("an overlong garbage line is skipped without buffering it whole", async () => {
  const big = join(dir, "big.log");
  await writeFile(big, `${"z".repeat(MAX_LOG_FILE_LINE + 10)}\n2026-01-01T00:00:01Z stdout F after\n`);
  assert.equal((await readContainerLog(big)).toString(), "after\n");
});

test("a missing file rejects", async () => {
  await assert.rejects(readContainerLog(join(dir, "nope.log")), { code: "ENOENT" });
});
