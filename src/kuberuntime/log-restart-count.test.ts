import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { restartCountFromLogDir } from "./log-restart-count.js";

test("restartCountFromLogDir goes on from the highest <n>.log (rotated names count, others do not); 0 without a directory", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "probelet-logcount-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  assert.equal(await restartCountFromLogDir(join(dir, "missing")), 0);
  const logs = join(dir, "app");
  await mkdir(logs);
  for (const name of ["0.log", "1.log", "3.log.20261125-130000", "9x.log", "notes.txt", "12.logs"]) await writeFile(join(logs, name), "");
  assert.equal(await restartCountFromLogDir(logs), 4);
});
