// Which container's log `logs` and `logs --previous` read, as the kubelet picks it from the pod
// status (validateContainerLogStatus), on a fake runtime with real log files in CRI format.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { FakeClock, flushMicrotasks } from "../../test/fakes/fake-clock.js";
import { admitRunning } from "../../test/fakes/fake-agent.js";
import { FakeRuntime } from "../../test/fakes/fake-runtime.js";
import { ApiError, type LogRequest } from "./agent-api.js";
import { Agent } from "./agent.js";

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

test("logs and logs --previous follow the status: first instance, restarted, in CrashLoopBackOff", async (t) => {
  const stateDir = await mkdtemp(join(tmpdir(), "probelet-logs-"));
  t.after(() => rm(stateDir, { recursive: true, force: true }));
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const runtime = new FakeRuntime(clock);
  const agent = new Agent({ runtime, stateDir, clock, nodeName: "node-a" });
  agent.start();
  t.after(() => agent.close(0));
  await admitRunning(agent, clock, { metadata: { name: "web", namespace: "default" }, spec: { containers: [{ name: "app", image: "img", command: ["app"] }] } });
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

  // The second waits out the back-off: lastState is the instance that just died, and both read it.
  await crash(runtime, clock);
  assert.equal(agent.getPod("default", "web").status?.containerStatuses?.[0]?.state?.waiting?.reason, "CrashLoopBackOff");
  assert.equal(await read(agent), "attempt-1\n");
  assert.equal(await read(agent, { previous: true }), "attempt-1\n");
});

/** crash makes the running "app" exit 1 and lets the agent react for one second. */
async function crash(runtime: FakeRuntime, clock: FakeClock): Promise<void> {
  runtime.exit(runtime.current("app")!.id, 1);
  await clock.advance(1000);
  await flushMicrotasks(50);
}
