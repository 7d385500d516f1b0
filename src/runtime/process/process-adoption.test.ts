import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { ProcessRuntime } from "./process-runtime.js";
import { ADOPTED_POLL_MS, defaultSupervisorPath, supervisorAvailable } from "./supervised-process.js";
import { createLogger } from "../../util/logger.js";
import { setTimeout as delay } from "node:timers/promises";
import { parseCriLogLine } from "../log-format.js";
import type { ContainerRecord } from "./runtime-records.js";
import { groupMembers, isAlive, liveChildren, testContainerConfig, testSandboxConfig, waitFor, waitForContainerState } from "../../../test/process-testing.js";

const dir = await mkdtemp(join(tmpdir(), "probelet-process-adopt-"));
const runtimes: ProcessRuntime[] = [];
/** Every container leader this file started; all are killed at the end whatever happened. */
const pids: number[] = [];
const haveSupervisor = await supervisorAvailable();

after(async () => {
  await Promise.all(runtimes.map((r) => r.close()));
  for (const pid of pids) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  await waitFor("every container to be gone", () => pids.every((p) => !isAlive(p)));
  // Their supervisors (children of this process) record the exits, then end.
  await waitFor("every supervisor to be gone", () => liveChildren().length === 0);
  await rm(dir, { recursive: true, force: true });
});

function open(stateDir: string, supervisorPath?: string): ProcessRuntime {
  const runtime = new ProcessRuntime({ stateDir, ...(supervisorPath ? { supervisorPath } : {}) });
  runtimes.push(runtime);
  return runtime;
}

async function startIn(runtime: ProcessRuntime, stateDir: string, name: string, script: string): Promise<{ sandboxId: string; id: string; pid: number; logFile: string }> {
  const sandbox = testSandboxConfig(join(stateDir, "logs"), { labels: { app: name } });
  const sandboxId = await runtime.runPodSandbox(sandbox);
  const id = await runtime.createContainer(sandboxId, testContainerConfig(name, script, { labels: { c: name }, envs: [{ key: "GREETING", value: "hi" }] }), sandbox);
  await runtime.startContainer(id);
  const pid = runtime.pidOf(id)!;
  pids.push(pid);
  return { sandboxId, id, pid, logFile: join(stateDir, "logs", name, "0.log") };
}

async function logLines(file: string): Promise<string[]> {
  const text = await readFile(file, "utf8").catch(() => "");
  return text.split("\n").filter((l) => l !== "").map((l) => {
    const e = parseCriLogLine(l);
    return `${e.stream} ${e.tag} ${e.content.toString()}`;
  });
}

const skip = haveSupervisor ? false : "the supervisor helper is not built (no C compiler)";

test("a supervised container outlives its runtime: a new runtime over the same state dir adopts it running, same PID, exec and stop work", { skip }, async () => {
  const stateDir = join(dir, "outlive");
  const first = open(stateDir);
  assert.equal(await first.outlivesAgent(), true);
  const c = await startIn(first, stateDir, "web", "echo up; while :; do sleep 1; done");
  await waitFor("the first line in the log", async () => (await logLines(c.logFile)).includes("stdout F up"));
  await first.close();
  assert.ok(isAlive(c.pid), "close() leaves a supervised container running");

  const second = open(stateDir);
  const [sandbox] = await second.listPodSandboxes({ labels: { app: "web" } });
  assert.equal(sandbox?.id, c.sandboxId);
  assert.equal(sandbox?.state, "ready");
  const info = await second.containerStatus(c.id);
  assert.equal(info.state, "running");
  assert.equal(second.pidOf(c.id), c.pid);
  assert.deepEqual(info.labels, { c: "web" });
  const exec = await second.runInContainer(c.id, ["sh", "-c", 'echo "$GREETING"'], { timeoutMs: 5000 });
  assert.equal(exec.stdout.toString(), "hi\n");

  await second.stopContainer(c.id, 5);
  const stopped = await second.containerStatus(c.id);
  assert.equal(stopped.state, "exited");
  assert.equal(stopped.exitCode, 143, "the shell dies of SIGTERM");
  assert.equal(stopped.reason, "Error");
  assert.ok(!isAlive(c.pid));
});

test("a container that exits while no runtime watches is adopted as exited with its exit code and finish time", { skip }, async () => {
  const stateDir = join(dir, "exited-meanwhile");
  const first = open(stateDir);
  const c = await startIn(first, stateDir, "job", "sleep 0.5; echo done; exit 7");
  await first.close();
  await waitFor("the container to exit on its own", () => !isAlive(c.pid));
  await waitFor("the supervisor to record the exit", async () => (await readFile(join(stateDir, "process-runtime", "containers", `${c.id}.exit`), "utf8").catch(() => "")) !== "");

  const second = open(stateDir);
  const info = await second.containerStatus(c.id);
  assert.equal(info.state, "exited");
  assert.equal(info.exitCode, 7);
  assert.equal(info.reason, "Error");
  assert.ok(info.finishedAt >= info.startedAt && info.startedAt > 0);
  assert.deepEqual(await logLines(c.logFile), ["stdout F done"]);
});

test("an adopted container's exit is seen while the new runtime follows it", { skip }, async () => {
  const stateDir = join(dir, "exit-followed");
  const first = open(stateDir);
  const c = await startIn(first, stateDir, "short", "sleep 1; exit 3");
  await first.close();
  const second = open(stateDir);
  assert.equal((await second.containerStatus(c.id)).state, "running");
  const info = await waitForContainerState(second, c.id, "exited", 10_000);
  assert.equal(info.exitCode, 3);
});

test("the supervisor writes the CRI log itself: full lines as F, long lines split into P chunks, an unfinished last line as P", { skip }, async () => {
  const stateDir = join(dir, "log-format");
  const runtime = open(stateDir);
  const c = await startIn(runtime, stateDir, "printer", "printf 'one\\r\\n\\n'; head -c 20000 /dev/zero | tr '\\0' x; echo; echo err >&2; printf tail");
  await waitForContainerState(runtime, c.id, "exited");
  const lines = await logLines(c.logFile);
  assert.deepEqual(lines.filter((l) => l.startsWith("stderr")), ["stderr F err"]);
  assert.deepEqual(
    lines.filter((l) => l.startsWith("stdout")),
    ["stdout F one", "stdout F ", `stdout P ${"x".repeat(16 * 1024)}`, `stdout F ${"x".repeat(20000 - 16 * 1024)}`, "stdout P tail"],
  );
});

test("a recorded PID that now names another process is never adopted nor signalled: the container reads as exited Unknown (255)", { skip }, async () => {
  const stateDir = join(dir, "recycled");
  const first = open(stateDir);
  const c = await startIn(first, stateDir, "gone", "exec sleep 300");
  await first.close();
  // Pretend the recorded processes started at another time: their PIDs now name strangers.
  const recordPath = join(stateDir, "process-runtime", "containers", `${c.id}.json`);
  const record = JSON.parse(await readFile(recordPath, "utf8")) as ContainerRecord;
  record.leader = { pid: c.pid, startTicks: (record.leader?.startTicks ?? 0) + 1 };
  record.supervisor = { pid: record.supervisor?.pid ?? 0, startTicks: (record.supervisor?.startTicks ?? 0) + 1 };
  await writeFile(recordPath, JSON.stringify(record));

  const second = open(stateDir);
  const info = await second.containerStatus(c.id);
  assert.equal(info.state, "exited");
  assert.equal(info.exitCode, 255);
  assert.equal(info.reason, "Unknown");
  await second.stopContainer(c.id, 0);
  await second.removeContainer(c.id);
  assert.ok(isAlive(c.pid), "the stranger was left alone");
  assert.deepEqual(groupMembers(c.pid), [c.pid]);
});

test("a container whose start the killed agent did not see end (record still 'created') is adopted running from its supervisor", { skip }, async () => {
  const stateDir = join(dir, "mid-start");
  const first = open(stateDir);
  const c = await startIn(first, stateDir, "midstart", "exec sleep 300");
  await first.close();
  // What the record holds when the agent dies between starting the supervisor and its answer.
  const recordPath = join(stateDir, "process-runtime", "containers", `${c.id}.json`);
  const record = JSON.parse(await readFile(recordPath, "utf8")) as ContainerRecord;
  delete record.leader;
  record.snapshot = { state: "created", startedAt: 0, finishedAt: 0, exitCode: 0, reason: "", message: "" };
  await writeFile(recordPath, JSON.stringify(record));

  const second = open(stateDir);
  const info = await second.containerStatus(c.id);
  assert.equal(info.state, "running");
  assert.equal(second.pidOf(c.id), c.pid);
  await second.stopContainer(c.id, 0);
  assert.equal((await second.containerStatus(c.id)).exitCode, 137);
  assert.ok(!isAlive(c.pid));
});

test("a directory where the supervisor should be does not count as the supervisor", async () => {
  assert.equal(await supervisorAvailable(dir), false);
});

test("without the supervisor binary the runtime falls back to pipes: containers stop with it and nothing is recorded for adoption", async () => {
  const stateDir = join(dir, "fallback");
  const runtime = open(stateDir, join(dir, "no-such-supervisor"));
  assert.equal(await runtime.outlivesAgent(), false);
  const c = await startIn(runtime, stateDir, "piped", "echo piped; while :; do sleep 1; done");
  await waitFor("the log line", async () => (await logLines(c.logFile)).includes("stdout F piped"));
  await runtime.close();
  assert.ok(!isAlive(c.pid), "close() stops piped containers");
  const next = open(stateDir, join(dir, "no-such-supervisor"));
  assert.deepEqual(await next.listContainers(), []);
  assert.deepEqual(await next.listPodSandboxes(), []);
});

test("a supervisor that cannot exec the command reports runc's error and leaves nothing running", { skip }, async () => {
  const stateDir = join(dir, "exec-error");
  const runtime = open(stateDir);
  const sandbox = testSandboxConfig(join(stateDir, "logs"));
  const sandboxId = await runtime.runPodSandbox(sandbox);
  const script = join(dir, "not-executable.sh");
  await writeFile(script, "#!/no/such/interpreter\n", { mode: 0o755 });
  const id = await runtime.createContainer(sandboxId, testContainerConfig("bad", "", { command: [script], args: [] }), sandbox);
  await assert.rejects(runtime.startContainer(id), /unable to start container process: exec .*not-executable\.sh: no such file or directory/);
  const info = await runtime.containerStatus(id);
  assert.equal(info.state, "exited");
  assert.equal(info.reason, "StartError");
  assert.equal(info.exitCode, 128);
});

test("the container inherits only stdin, stdout and stderr from its supervisor, and SIGTERM sent to the supervisor reaches the container's group", { skip }, async () => {
  const stateDir = join(dir, "fds-and-term");
  const runtime = open(stateDir);
  const c = await startIn(runtime, stateDir, "fds", "sleep 300 & wait");
  const fds = await waitFor("the container's descriptors", () => readdir(`/proc/${c.pid}/fd`).catch(() => undefined));
  assert.deepEqual(fds.sort(), ["0", "1", "2"]);
  const record = JSON.parse(await readFile(join(stateDir, "process-runtime", "containers", `${c.id}.json`), "utf8")) as ContainerRecord;
  const supervisorPid = record.supervisor?.pid ?? 0;
  assert.ok(supervisorPid > 0 && isAlive(supervisorPid));
  process.kill(supervisorPid, "SIGTERM");
  const info = await waitForContainerState(runtime, c.id, "exited");
  assert.equal(info.exitCode, 143, "the shell died of the forwarded SIGTERM");
  await waitFor("the supervisor to exit", () => !isAlive(supervisorPid));
  assert.deepEqual(groupMembers(c.pid), [], "the rest of the group went with its leader");
});

test("the supervisor refuses a spec of another protocol and says so", { skip }, async () => {
  const child = spawn(defaultSupervisorPath(), [], { stdio: ["pipe", "pipe", "ignore"] });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stdin.end("probelet-supervisor/0\0");
  const code = await new Promise<number | null>((r) => child.once("exit", r));
  assert.equal(out, "invalid protocol\n");
  assert.equal(code, 2);
});

test("removing an adopted container once it stopped logs no 'supervisor ended without recording the exit' (its exit was seen)", { skip }, async () => {
  const stateDir = join(dir, "adopted-removal");
  const first = open(stateDir);
  const { id } = await startIn(first, stateDir, "removed", "sleep 60");
  await first.close();
  const warnings: string[] = [];
  const logger = createLogger({ level: "warn", write: (line) => void warnings.push(line) });
  const second = new ProcessRuntime({ stateDir, logger });
  runtimes.push(second);
  assert.equal((await second.containerStatus(id)).state, "running");
  await second.stopContainer(id, 0);
  await second.removeContainer(id);
  await delay(ADOPTED_POLL_MS + 500); // one more poll of the adopted container's exit
  assert.deepEqual(warnings, []);
});
