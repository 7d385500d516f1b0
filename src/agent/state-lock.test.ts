import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import { StateDirectoryBusyError, StateDirectoryLock } from "./state-lock.js";

async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "probelet-lock-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

test("a second lock on a held state directory is refused with the holder's PID and the directory", async (t) => {
  const dir = await tempDir(t);
  const first = await StateDirectoryLock.acquire(dir);
  t.after(() => first.release());
  const err = await StateDirectoryLock.acquire(dir).then(
    () => assert.fail("the second lock was granted"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof StateDirectoryBusyError, String(err));
  assert.equal(err.pid, process.pid);
  assert.equal(err.message, `the state directory ${dir} is in use by another probelet agent (PID ${process.pid}): stop it, or give this agent its own --state-dir`);
});

test("a released lock can be taken again", async (t) => {
  const dir = await tempDir(t);
  const first = await StateDirectoryLock.acquire(dir);
  await first.release();
  await first.release();
  const second = await StateDirectoryLock.acquire(dir);
  await second.release();
});

test("the lock of an agent killed with SIGKILL is taken over", async (t) => {
  const dir = await tempDir(t);
  const module = fileURLToPath(new URL("./state-lock.js", import.meta.url));
  const script = `import(${JSON.stringify(module)}).then(async (m) => { await m.StateDirectoryLock.acquire(process.argv[1]); console.log("held"); setInterval(() => {}, 1000); });`;
  const holder = spawn(process.execPath, ["--input-type=module", "-e", script, dir], { stdio: ["ignore", "pipe", "inherit"] });
  t.after(() => holder.kill("SIGKILL"));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the holder did not take the lock within 10 s")), 10_000);
    holder.stdout.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("held")) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  await assert.rejects(StateDirectoryLock.acquire(dir), (e: unknown) => e instanceof StateDirectoryBusyError && e.pid === holder.pid);
  const exited = new Promise((resolve) => holder.once("exit", resolve));
  holder.kill("SIGKILL");
  await exited;
  // The kernel drops the lock with the killed process's descriptors; the takeover may race that by a few ms.
  let lock: StateDirectoryLock | undefined;
  for (let attempt = 0; attempt < 50 && lock === undefined; attempt++) {
    lock = await StateDirectoryLock.acquire(dir).catch((e: unknown) => {
      if (!(e instanceof StateDirectoryBusyError)) throw e;
      return new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 100));
    });
  }
  assert.ok(lock, "the lock of the killed agent was not released within 5 s");
  await lock.release();
});

test("a state directory that does not exist cannot be locked, with the reason", async (t) => {
  const dir = join(await tempDir(t), "missing");
  await assert.rejects(StateDirectoryLock.acquire(dir), (e: unknown) => e instanceof Error && e.message.startsWith(`cannot lock the state directory ${dir}: `) && /no such file or directory/i.test(e.message));
});
