// Tails found from the end: a few KiB read of a 42 MB log (measured with /proc/self/io), the count
// going on into rotated files, plain and gzipped, newest first.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mkdtemp, open, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { gzipSync } from "node:zlib";
import { logChunks, tailStart } from "./log-tail.js";

const dir = await mkdtemp(join(tmpdir(), "probelet-log-tail-"));
after(() => rm(dir, { recursive: true, force: true }));

/** bytesRead is this process's rchar: every byte read(2) returned so far. */
function bytesRead(): number {
  return Number(/^rchar: (\d+)$/m.exec(readFileSync("/proc/self/io", "utf8"))?.[1] ?? Number.NaN);
}

async function text(path: string, offset: number, skip: number): Promise<string> {
  let out = "";
  for await (const chunk of logChunks(path, offset, skip)) out += chunk.toString("utf8");
  return out;
}

const line = (i: number): string => `2026-01-01T00:00:00.${String(i % 1e9).padStart(9, "0")}Z stdout F line ${i} ${"x".repeat(60)}\n`;

test("the last 5 lines of a 42 MB log are found reading a few KiB from its end", async () => {
  const path = join(dir, "big.log");
  const handle = await open(path, "w");
  let i = 0;
  for (let written = 0; written < 42e6; ) {
    const block = Array.from({ length: 5000 }, () => line(i++)).join("");
    await handle.write(block);
    written += block.length;
  }
  await handle.close();
  const before = bytesRead();
  const start = await tailStart([path], 5);
  const tail = await text(path, start.offset, start.skipLines);
  const read = bytesRead() - before;
  assert.deepEqual(tail.trimEnd().split("\n").map((l) => l.split(" ")[4]), [i - 5, i - 4, i - 3, i - 2, i - 1].map(String));
  assert.ok(read < 256 * 1024, `read ${read} bytes of a 42 MB file`);
});

test("a tail longer than the live file goes on into the rotated files: the plain one, then the gzipped ones", async () => {
  const live = join(dir, "0.log");
  const lines = (from: number, to: number): string => Array.from({ length: to - from }, (_, k) => line(from + k)).join("");
  await writeFile(`${live}.20260101-000000.gz`, gzipSync(lines(0, 10)));
  await writeFile(`${live}.20260101-000100.gz`, gzipSync(lines(10, 20)));
  await writeFile(`${live}.20260101-000200`, lines(20, 30));
  await writeFile(live, lines(30, 33) + line(33).trimEnd()); // the live file may end mid-line
  const files = [`${live}.20260101-000000.gz`, `${live}.20260101-000100.gz`, `${live}.20260101-000200`, live];
  const numbers = async (n: number): Promise<number[]> => {
    const start = await tailStart(files, n);
    let all = "";
    for (let f = start.file; f < files.length; f++) all += await text(files[f]!, f === start.file ? start.offset : 0, f === start.file ? start.skipLines : 0);
    return all.split("\n").filter(Boolean).map((l) => Number(l.split(" ")[4]));
  };
  assert.deepEqual(await numbers(2), [32, 33], "the unfinished last line counts");
  assert.deepEqual(await numbers(6), [28, 29, 30, 31, 32, 33]);
  assert.deepEqual(await numbers(17), Array.from({ length: 17 }, (_, k) => 17 + k), "into a compressed file, lines skipped");
  assert.deepEqual(await numbers(100), Array.from({ length: 34 }, (_, k) => k), "everything when the tail is longer");
  assert.deepEqual(await tailStart(files, 0), { file: 3, offset: (await stat(live)).size, skipLines: 0 }, "tail 0: from the end, for follow");
});
