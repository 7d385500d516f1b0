import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "../../util/logger.js";
import { GroupRecords, procStat } from "./group-records.js";

/** alive: the process exists and is not a zombie (an orphan's zombie waits for init to reap it). */
const alive = async (pid: number): Promise<boolean> => {
  const stat = await procStat(pid);
  return stat !== undefined && stat.state !== "Z";
};

test("GroupRecords reaps a recorded group left running, including its background children", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "probelet-groups-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const leader = spawn("sh", ["-c", "sleep 60 & echo $!; wait"], { detached: true, stdio: ["ignore", "pipe", "ignore"] });
  t.after(() => {
    try {
      process.kill(-leader.pid!, "SIGKILL");
    } catch {
      // gone
    }
  });
  const child = Number(await new Promise<string>((r) => leader.stdout!.once("data", (d: Buffer) => r(d.toString().trim()))));
  const records = new GroupRecords(dir, silentLogger);
  await records.record("c1", leader.pid!);
  assert.equal((await procStat(child))?.pgid, leader.pid);
  const exited = new Promise((r) => leader.once("exit", r));
  assert.equal(await records.reapOrphans(), 1);
  await exited;
  for (let i = 0; i < 50 && (await alive(child)); i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(await alive(child), false, "the background child was killed with its group");
  assert.equal(await records.reapOrphans(), 0, "records are dropped after reaping");
});

test("GroupRecords never kills a group whose recorded leader is gone and whose PGID nobody uses", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "probelet-groups-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const short = spawn("sleep", ["0.2"], { detached: true, stdio: "ignore" });
  const exited = new Promise((r) => short.once("exit", r));
  const records = new GroupRecords(dir, silentLogger);
  await new Promise((r) => short.once("spawn", r));
  await records.record("c2", short.pid!);
  await exited;
  assert.equal(await records.reapOrphans(), 0);
});
