import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { FakeClock } from "../../../test/fakes/fake-clock.js";
import type { ContainerConfig } from "../runtime.js";
import { ProcessRuntime } from "./process-runtime.js";
import { containerLogText, groupMembers, isAlive, liveChildren, testContainerConfig, testSandboxConfig, waitFor, waitForContainerState } from "../../../test/process-testing.js";

const dir = await mkdtemp(join(tmpdir(), "probelet-process-stop-"));
const runtimes: ProcessRuntime[] = [];
/** Every PID this file started (leaders and forked children), checked at the end. */
const pids: number[] = [];

after(async () => {
  await Promise.all(runtimes.map((r) => r.close()));
  await rm(dir, { recursive: true, force: true });
  assert.deepEqual(liveChildren(), [], "no child process of the test may remain");
  assert.deepEqual(pids.filter(isAlive), [], "every started process is gone");
});

interface Started {
  runtime: ProcessRuntime;
  id: string;
  pid: number;
  logFile: string;
}

async function start(name: string, script: string, runtime?: ProcessRuntime, overrides: Partial<ContainerConfig> = {}): Promise<Started> {
  const rt = runtime ?? new ProcessRuntime();
  if (!runtimes.includes(rt)) runtimes.push(rt);
  const sandbox = testSandboxConfig(join(dir, name));
  const pod = await rt.runPodSandbox(sandbox);
  const id = await rt.createContainer(pod, testContainerConfig(name, script, overrides), sandbox);
  await rt.startContainer(id);
  const pid = rt.pidOf(id)!;
  pids.push(pid);
  return { runtime: rt, id, pid, logFile: join(dir, name, name, "0.log") };
}

async function logText(logFile: string): Promise<string> {
  return await containerLogText(logFile).catch(() => "");
}

async function waitForLog(logFile: string, pattern: RegExp): Promise<string> {
  return waitFor(`log ${logFile} to match ${pattern}`, async () => {
    const text = await logText(logFile);
    return pattern.test(text) ? text : undefined;
  });
}

test("a process that ignores SIGTERM is SIGKILLed after the grace period (1 s → 137)", async () => {
  const c = await start("ignores-term", "trap '' TERM; echo ready; while :; do sleep 1; done");
  await waitForLog(c.logFile, /^ready$/m);
  const began = performance.now();
  await c.runtime.stopContainer(c.id, 1);
  const elapsed = performance.now() - began;
  const info = await c.runtime.containerStatus(c.id);
  assert.deepEqual([info.state, info.exitCode, info.reason], ["exited", 137, "Error"]);
  assert.ok(elapsed >= 900 && elapsed < 10_000, `stop took ${elapsed.toFixed(0)} ms`);
  assert.deepEqual(groupMembers(c.pid), []);
});

test("a process that handles SIGTERM exits within the grace period with its own status", async () => {
  const c = await start("handles-term", "trap 'echo bye; exit 0' TERM; echo ready; while :; do sleep 0.1; done");
  await waitForLog(c.logFile, /^ready$/m);
  const began = performance.now();
  await c.runtime.stopContainer(c.id, 30);
  assert.ok(performance.now() - began < 10_000);
  const info = await c.runtime.containerStatus(c.id);
  assert.deepEqual([info.state, info.exitCode, info.reason], ["exited", 0, "Completed"]);
  assert.match(await logText(c.logFile), /^bye$/m);
});

test("stop kills a forked child that survives SIGTERM once the leader is gone", async () => {
  const pidFile = join(dir, "forked.pid");
  const c = await start("forks", `(trap '' TERM; exec sleep 300) & echo $! > ${pidFile}; exec sleep 300`);
  const child = await waitFor("the child's PID", async () => Number((await readFile(pidFile, "utf8").catch(() => "")).trim()) || undefined);
  pids.push(child);
  assert.equal(isAlive(child), true);
  const began = performance.now();
  await c.runtime.stopContainer(c.id, 30);
  assert.ok(performance.now() - began < 10_000, "the leader died on SIGTERM; no need to wait out the grace");
  const info = await c.runtime.containerStatus(c.id);
  assert.deepEqual([info.state, info.exitCode], ["exited", 143]);
  // The group was SIGKILLed and the child's hold on the log pipes is gone; it is at most a few
  // scheduler ticks away from being a zombie (it is not our child, so it cannot be reaped here).
  await waitFor("the background child to be gone", () => !isAlive(child), { timeoutMs: 2000 });
  assert.deepEqual(groupMembers(c.pid), []);
});

test("a leader that exits on its own takes its background children with it; stop is then a no-op", async () => {
  const pidFile = join(dir, "bg.pid");
  const c = await start("exits", `sleep 300 & echo $! > ${pidFile}; exit 0`);
  const info = await waitForContainerState(c.runtime, c.id, "exited");
  assert.deepEqual([info.exitCode, info.reason], [0, "Completed"]);
  const child = Number((await readFile(pidFile, "utf8")).trim());
  pids.push(child);
  await waitFor("the background child to be gone", () => !isAlive(child), { timeoutMs: 2000 });
  const began = performance.now();
  await c.runtime.stopContainer(c.id, 30);
  assert.ok(performance.now() - began < 100, "already exited: resolves at once");
  assert.deepEqual(await c.runtime.containerStatus(c.id), info);
});

test("the grace period runs on the injected clock; concurrent stops share one SIGTERM", async () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const runtime = new ProcessRuntime({ clock });
  const c = await start("fake-clock", "trap 'echo term' TERM; echo ready; while :; do sleep 0.05; done", runtime);
  await waitForLog(c.logFile, /^ready$/m);
  let settled = 0;
  const first = c.runtime.stopContainer(c.id, 30).then(() => settled++);
  const second = c.runtime.stopContainer(c.id, 10).then(() => settled++);
  await waitForLog(c.logFile, /^term$/m);
  await new Promise((r) => setTimeout(r, 300)); // real time passes; the fake clock does not
  assert.equal((await c.runtime.containerStatus(c.id)).state, "running");
  assert.equal(settled, 0);
  await clock.advance(10_000); // the second call's deadline: SIGKILL
  await Promise.all([first, second]);
  assert.equal(settled, 2);
  const info = await c.runtime.containerStatus(c.id);
  assert.deepEqual([info.exitCode, info.finishedAt], [137, Date.UTC(2026, 0, 1) + 10_000]);
  assert.equal((await logText(c.logFile)).match(/^term$/gm)?.length, 1, "SIGTERM was sent once");
});

test("stop with a zero grace period sends SIGKILL only", async () => {
  const c = await start("no-grace", "trap 'echo term' TERM; echo ready; while :; do sleep 0.05; done");
  await waitForLog(c.logFile, /^ready$/m);
  await c.runtime.stopContainer(c.id, 0);
  assert.equal((await c.runtime.containerStatus(c.id)).exitCode, 137);
  assert.doesNotMatch(await logText(c.logFile), /term/);
});

test("stopping a created (never started) container changes nothing", async () => {
  const runtime = new ProcessRuntime();
  runtimes.push(runtime);
  const sandbox = testSandboxConfig(join(dir, "created"));
  const pod = await runtime.runPodSandbox(sandbox);
  const id = await runtime.createContainer(pod, testContainerConfig("idle", "true"), sandbox);
  await runtime.stopContainer(id, 5);
  assert.equal((await runtime.containerStatus(id)).state, "created");
});
