// subPath safety against symlinks a container plants in a shared volume (issue 22.8): nothing is
// ever created or opened outside the volume, a component swapped for a symlink after the check
// fails the open, and the bind mount (root) holds the directory that was opened, whatever the
// path names later; unmounting comes before any removal.
import assert from "node:assert/strict";
import { closeSync, fstatSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rename, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { bindSubPath, cleanSubPaths, mountsBelow, safeMakeDir, safeOpen, subPathTarget } from "./subpath.js";

const dir = await mkdtemp(join(tmpdir(), "probelet-subpath-"));
after(async () => {
  await cleanSubPaths(join(dir, "pod")).catch(() => undefined);
  if (mountsBelow(dir).length === 0) await rm(dir, { recursive: true, force: true });
});

let n = 0;
async function volume(): Promise<{ base: string; outside: string }> {
  const case_ = join(dir, `case-${n++}`);
  const base = join(case_, "volume");
  const outside = join(case_, "outside");
  await mkdir(base, { recursive: true });
  await mkdir(outside);
  return { base, outside };
}

test("safeMakeDir creates the missing directories with the given mode, through a symlink that stays inside the volume", async () => {
  const { base } = await volume();
  safeMakeDir("a/b/c", base, 0o751);
  assert.equal((await stat(join(base, "a/b/c"))).mode & 0o777, 0o751);
  await symlink("a/b", join(base, "inner"));
  safeMakeDir("inner/d", base, 0o700);
  assert.ok((await stat(join(base, "a/b/d"))).isDirectory());
});

test("safeMakeDir never creates anything through a planted symlink that leads out of the volume, dangling or not", async () => {
  const { base, outside } = await volume();
  await symlink(outside, join(base, "link"));
  assert.throws(() => safeMakeDir("link/made/deeper", base, 0o755), /outside of allowed base/);
  await symlink(join(outside, "missing"), join(base, "dangling"));
  assert.throws(() => safeMakeDir("dangling/made", base, 0o755));
  await symlink("../outside", join(base, "relative"));
  assert.throws(() => safeMakeDir("relative/made", base, 0o755), /outside of allowed base/);
  await assert.rejects(stat(join(outside, "made")));
  await assert.rejects(stat(join(outside, "missing")));
});

test("safeOpen opens a path inside the volume; a component swapped for a symlink after it was resolved fails the open (no check/use race)", async () => {
  const { base, outside } = await volume();
  await mkdir(join(base, "data/sub"), { recursive: true });
  const fd = safeOpen(join(base, "data/sub"), base);
  assert.ok(fstatSync(fd).isDirectory());
  closeSync(fd);
  const resolved = join(base, "data/sub"); // what a realpath before the swap gave
  await rename(join(base, "data"), join(base, "data.old"));
  await symlink(outside, join(base, "data"));
  assert.throws(() => safeOpen(resolved, base), /unexpected symlink found .*data$/);
  assert.throws(() => safeOpen(outside, base), /outside of allowed base/);
});

const noRoot = process.getuid?.() === 0 ? false : "bind mounts need root";

test("bindSubPath binds the opened directory: swapping the subPath for a symlink afterwards changes nothing the bind shows; cleanSubPaths unmounts, then removes", { skip: noRoot }, async () => {
  const { base, outside } = await volume();
  await mkdir(join(base, "data"));
  await writeFile(join(base, "data/inside"), "in");
  await writeFile(join(outside, "secret"), "out");
  const podDir = join(dir, "pod");
  const m = { volumePath: base, subPath: "data", podDir, volumeName: "vol", containerName: "app", mountIndex: 2 };
  const target = await bindSubPath(m);
  assert.equal(target, subPathTarget(m));
  assert.equal(target, join(podDir, "volume-subpaths", "vol", "app", "2"));
  await rename(join(base, "data"), join(base, "data.old"));
  await symlink(outside, join(base, "data"));
  assert.equal(await readFile(join(target, "inside"), "utf8"), "in");
  await assert.rejects(readFile(join(target, "secret")));
  assert.equal(await bindSubPath({ ...m, subPath: "data.old" }), target, "the same directory again: the bind is kept");
  await assert.rejects(bindSubPath({ ...m, mountIndex: 3 }), /outside of allowed base/, "the planted symlink is refused");
  await cleanSubPaths(podDir);
  assert.deepEqual(mountsBelow(podDir), []);
  await assert.rejects(stat(join(podDir, "volume-subpaths")));
  assert.equal(await readFile(join(base, "data.old/inside"), "utf8"), "in", "the volume's files survive the cleanup");
});
