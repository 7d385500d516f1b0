import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { systemClock, type Clock } from "../../util/clock.js";
import { silentLogger } from "../../util/logger.js";
import { parseCgroupMounts, removePodCgroup } from "./pod-cgroups.js";

const dir = await mkdtemp(join(tmpdir(), "probelet-pod-cgroups-"));
after(() => rm(dir, { recursive: true, force: true }));

test("parseCgroupMounts lists cgroup and cgroup2 mount points only, unescaped and once each", () => {
  const mountinfo = [
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755",
    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu",
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime shared:9 - cgroup cgroup rw,memory",
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw",
    "42 31 0:38 / /mnt/odd\\040name rw,relatime - cgroup2 cgroup2 rw",
    "43 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw",
    "50 23 0:40 / /proc rw - proc proc rw",
    "",
  ].join("\n");
  assert.deepEqual(parseCgroupMounts(mountinfo), ["/mnt/odd name", "/sys/fs/cgroup/cpu", "/sys/fs/cgroup/memory", "/sys/fs/cgroup/unified"]);
});

test("removePodCgroup removes the pod directory and empty children in every hierarchy; missing ones are fine", async () => {
  const mounts = [join(dir, "cpu"), join(dir, "memory"), join(dir, "absent")];
  for (const mount of mounts.slice(0, 2)) await mkdir(join(mount, "probelet", "podu1", "container1"), { recursive: true });
  await mkdir(join(dir, "cpu", "probelet", "podu2"), { recursive: true });
  const left = await removePodCgroup("/probelet/podu1", { clock: systemClock, logger: silentLogger, mounts });
  assert.deepEqual(left, []);
  assert.equal(existsSync(join(dir, "cpu", "probelet", "podu1")), false);
  assert.equal(existsSync(join(dir, "memory", "probelet", "podu1")), false);
  assert.equal(existsSync(join(dir, "cpu", "probelet", "podu2")), true, "other pods stay");
});

test("removePodCgroup gives up after its attempts and reports what is left", async () => {
  const mount = join(dir, "busy");
  await mkdir(join(mount, "probelet", "podu3"), { recursive: true });
  // A regular file makes rmdir fail with ENOTEMPTY, as a cgroup with live processes fails with EBUSY.
  await writeFile(join(mount, "probelet", "podu3", "pinned"), "");
  const warnings: string[] = [];
  const logger = { ...silentLogger, warn: (msg: string) => void warnings.push(msg) };
  const sleeps: number[] = [];
  const clock: Clock = {
    now: () => systemClock.now(),
    monotonic: () => systemClock.monotonic(),
    sleep: async (ms) => void sleeps.push(ms),
  };
  const left = await removePodCgroup("/probelet/podu3", { clock, logger, mounts: [mount], attempts: 3 });
  assert.deepEqual(left, [join(mount, "probelet", "podu3")]);
  assert.deepEqual(sleeps, [50, 50], "three attempts, 50 ms apart");
  assert.deepEqual(warnings, ["could not remove pod cgroup"]);
});
