import assert from "node:assert/strict";
import { lstat, mkdtemp, readFile, readlink, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { DATA_DIR_NAME, writeAtomically, type FileProjection } from "./atomic-writer.js";

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "atomic-writer-"));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function payload(entries: Record<string, [string, number]>): Map<string, FileProjection> {
  return new Map(Object.entries(entries).map(([path, [text, mode]]) => [path, { data: Buffer.from(text), mode }]));
}

test("writeAtomically writes a timestamped directory, points ..data at it and links each top-level name through ..data", async () => {
  await withDir(async (dir) => {
    assert.equal(await writeAtomically(dir, payload({ "a.conf": ["A", 0o644], "sub/b.conf": ["B", 0o600] })), true);
    const target = await readlink(join(dir, DATA_DIR_NAME));
    assert.match(target, /^\.\.\d{4}_\d{2}_\d{2}_\d{2}_\d{2}_\d{2}\.\d+$/);
    assert.equal(await readlink(join(dir, "a.conf")), "..data/a.conf");
    assert.equal(await readlink(join(dir, "sub")), "..data/sub");
    assert.equal(await readFile(join(dir, "sub/b.conf"), "utf8"), "B");
    assert.equal((await stat(join(dir, "a.conf"))).mode & 0o777, 0o644);
    assert.equal((await stat(join(dir, "sub/b.conf"))).mode & 0o777, 0o600);
  });
});

test("an update swaps ..data to a new directory, removes the old one and names that left the payload", async () => {
  await withDir(async (dir) => {
    await writeAtomically(dir, payload({ "a.conf": ["old", 0o644], gone: ["x", 0o644] }));
    const first = await readlink(join(dir, DATA_DIR_NAME));
    assert.equal(await writeAtomically(dir, payload({ "a.conf": ["new", 0o644] })), true);
    const second = await readlink(join(dir, DATA_DIR_NAME));
    assert.notEqual(second, first);
    assert.equal(await readFile(join(dir, "a.conf"), "utf8"), "new");
    const entries = (await readdir(dir)).sort();
    assert.deepEqual(entries, [second, DATA_DIR_NAME, "a.conf"].sort());
  });
});

test("an unchanged payload is not rewritten; a changed mode alone is a change", async () => {
  await withDir(async (dir) => {
    await writeAtomically(dir, payload({ k: ["v", 0o644] }));
    const first = await readlink(join(dir, DATA_DIR_NAME));
    assert.equal(await writeAtomically(dir, payload({ k: ["v", 0o644] })), false);
    assert.equal(await readlink(join(dir, DATA_DIR_NAME)), first);
    assert.equal(await writeAtomically(dir, payload({ k: ["v", 0o400] })), true);
    assert.equal((await stat(join(dir, "k"))).mode & 0o777, 0o400);
  });
});

test("an empty payload leaves only ..data pointing at an empty directory", async () => {
  await withDir(async (dir) => {
    await writeAtomically(dir, payload({ k: ["v", 0o644] }));
    await writeAtomically(dir, new Map());
    assert.deepEqual((await readdir(dir)).filter((e) => !e.startsWith("..")), []);
    assert.ok((await lstat(join(dir, DATA_DIR_NAME))).isSymbolicLink());
  });
});

test("paths that could leave the volume are refused before anything is written", async () => {
  await withDir(async (dir) => {
    for (const bad of ["/etc/passwd", "../x", "a/../../x", "..hidden", ""]) {
      await assert.rejects(writeAtomically(dir, payload({ [bad]: ["x", 0o644] })), /invalid file path/, bad);
    }
    assert.deepEqual(await readdir(dir), []);
  });
});
