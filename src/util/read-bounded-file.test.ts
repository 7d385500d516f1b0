import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { readFileBounded } from "./read-bounded-file.js";

test("readFileBounded reads a file of up to the limit and refuses a larger one", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "probelet-bounded-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const exact = join(dir, "exact");
  const over = join(dir, "over");
  await writeFile(exact, "é".repeat(50_000));
  await writeFile(over, "x".repeat(100_001));
  assert.deepEqual(await readFileBounded(exact, 100_000), { ok: true, text: "é".repeat(50_000) });
  assert.deepEqual(await readFileBounded(over, 100_000), { ok: false, tooLarge: true });
  await assert.rejects(readFileBounded(join(dir, "missing"), 10), { code: "ENOENT" });
  await assert.rejects(readFileBounded(dir, 10), { code: "EISDIR" });
});

test("readFileBounded stops at the limit on an endless file", async () => {
  assert.deepEqual(await readFileBounded("/dev/zero", 1_000_000), { ok: false, tooLarge: true });
});
