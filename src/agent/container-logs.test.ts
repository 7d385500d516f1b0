// Which container's log `logs` and `logs --previous` read, as the kubelet picks it from the pod
// status (validateContainerLogStatus), on a fake runtime with real log files in CRI format.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test, type TestContext } from "node:test";
import { gzipSync } from "node:zlib";
import { FakeClock, flushMicrotasks } from "../../test/fakes/fake-clock.js";
import { admitRunning } from "../../test/fakes/fake-agent.js";
import { FakeRuntime } from "../../test/fakes/fake-runtime.js";
import { ApiError, type LogRequest } from "../apiserver/endpoints/host-interface.js";
import { Agent } from "./agent.js";
import { startLocalApiServer } from "../apiserver/local-api-server.js";

async function read(agent: Agent, request: Partial<LogRequest> = {}): Promise<string> {
  let text = "";
  for await (const line of agent.readLogs({ namespace: "default", name: "web", ...request })) text += line;
  return text;
}

/** writeLog gives the newest instance of "app" a one-line CRI log naming its attempt. */
async function writeLog(runtime: FakeRuntime): Promise<void> {
  const c = runtime.current("app")!;
  await mkdir(dirname(c.logPath), { recursive: true });
  await writeFile(c.logPath, `2026-01-01T00:00:00.000000000Z stdout F attempt-${c.attempt}\n`);
}

/** startWithWeb starts an agent on the fake runtime with the running one-container pod "web"; cleaned up after the test. */
async function startWithWeb(t: TestContext): Promise<{ clock: FakeClock; runtime: FakeRuntime; agent: Agent }> {
  const stateDir = await mkdtemp(join(tmpdir(), "probelet-logs-"));
  t.after(() => rm(stateDir, { recursive: true, force: true }));
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const runtime = new FakeRuntime(clock);
  const agent = new Agent({ api: startLocalApiServer(clock), runtime, stateDir, clock, nodeName: "node-a" });
  agent.start();
  t.after(() => agent.close(0));
  await admitRunning(agent, clock, { metadata: { name: "web", namespace: "default" }, spec: { containers: [{ name: "app", image: "img", command: ["app"] }] } });
  return { clock, runtime, agent };
}

test("logs and logs --previous follow the status: first instance, restarted, held back by the back-off", async (t) => {
  const { clock, runtime, agent } = await startWithWeb(t);
  await writeLog(runtime);

  // Running, first instance: there is no previous one.
  assert.equal(await read(agent), "attempt-0\n");
  await assert.rejects(read(agent, { previous: true }), new ApiError("BadRequest", 'previous terminated container "app" in pod "web" not found'));
  await assert.rejects(read(agent, { container: "nope" }), new ApiError("BadRequest", "container nope is not valid for pod web"));

  // The first crash restarts at once (no back-off entry yet): the running instance, and the dead one as previous.
  await crash(runtime, clock);
  assert.equal(runtime.current("app")!.attempt, 1);
  await writeLog(runtime);
  assert.equal(await read(agent), "attempt-1\n");
  assert.equal(await read(agent, { previous: true }), "attempt-0\n");

  // The second waits out the back-off. The sync that decides it shows the instance that just died
  // as terminated and the one before as lastState (the CrashLoopBackOff reason shows from the next
  // sync on, kubelet.go SyncPod), so logs reads the dead instance and logs -p the one before
  // (kubelet_pods.go validateContainerLogStatus).
  await crash(runtime, clock);
  assert.ok(agent.getPod("default", "web").status?.containerStatuses?.[0]?.state?.terminated, "held back: terminated until the next sync");
  assert.equal(runtime.current("app")!.attempt, 1);
  assert.equal(await read(agent), "attempt-1\n");
  assert.equal(await read(agent, { previous: true }), "attempt-0\n");
});

/** crash makes the running "app" exit 1 and lets the agent react for one second. */
async function crash(runtime: FakeRuntime, clock: FakeClock): Promise<void> {
  runtime.exit(runtime.current("app")!.id, 1);
  await clock.advance(1000);
  await flushMicrotasks(50);
}

/** bytesRead is this process's rchar: every byte read(2) returned so far. */
function bytesRead(): number {
  return Number(/^rchar: (\d+)$/m.exec(readFileSync("/proc/self/io", "utf8"))?.[1] ?? Number.NaN);
}

test("logs --tail 5 of a 42 MB log, 16 at once, read a few KiB each, not the file; logs span the rotated files, gzipped ones too", async (t) => {
  const { runtime, agent } = await startWithWeb(t);
  const log = runtime.current("app")!.logPath;
  await mkdir(dirname(log), { recursive: true });
  const entry = (i: number): string => `2026-01-01T00:00:00.000000000Z stdout F line ${i} ${"x".repeat(90)}\n`;
  const handle = await open(log, "w");
  let n = 0;
  for (let size = 0; size < 42e6; n += 4000) {
    const block = Array.from({ length: 4000 }, (_, k) => entry(n + k)).join("");
    await handle.write(block);
    size += block.length;
  }
  await handle.close();
  const before = bytesRead();
  const tails = await Promise.all(Array.from({ length: 16 }, () => read(agent, { tailLines: 5 })));
  const used = bytesRead() - before;
  for (const tail of tails) assert.deepEqual(tail.split("\n").filter(Boolean).map((l) => Number(l.split(" ")[1])), [n - 5, n - 4, n - 3, n - 2, n - 1]);
  assert.ok(used < 16 * 256 * 1024, `16 tails read ${used} bytes`);

  // Rotated: two gzipped files and a plain one before the live file; `logs` reads them in order.
  const lines = (from: number, to: number): string => Array.from({ length: to - from }, (_, k) => entry(from + k)).join("");
  await writeFile(`${log}.20260101-000001.gz`, gzipSync(lines(0, 3)));
  await writeFile(`${log}.20260101-000002.gz`, gzipSync(lines(3, 6)));
  await writeFile(`${log}.20260101-000003`, lines(6, 9));
  await writeFile(`${log}.20260101-000003.tmp`, "left over from a failed compression: not read");
  await writeFile(log, lines(9, 11));
  const all = (await read(agent)).split("\n").filter(Boolean).map((l) => Number(l.split(" ")[1]));
  assert.deepEqual(all, Array.from({ length: 11 }, (_, k) => k));
  const last4 = (await read(agent, { tailLines: 4 })).split("\n").filter(Boolean).map((l) => Number(l.split(" ")[1]));
  assert.deepEqual(last4, [7, 8, 9, 10]);
});
