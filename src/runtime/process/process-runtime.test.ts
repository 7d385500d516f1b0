import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { RuntimeError, type ContainerConfig } from "../runtime.js";
import { ProcessRuntime } from "./process-runtime.js";
import { readContainerLog } from "./log-reader.js";
import { isAlive, liveChildren, testContainerConfig, testSandboxConfig, waitFor, waitForContainerState } from "../../../test/process-testing.js";

const dir = await mkdtemp(join(tmpdir(), "probelet-process-runtime-"));
const runtime = new ProcessRuntime();
/** Every container leader PID this file started, checked at the end. */
const pids: number[] = [];

after(async () => {
  await runtime.close();
  await rm(dir, { recursive: true, force: true });
  assert.deepEqual(liveChildren(), [], "no child process of the test may remain");
  assert.deepEqual(pids.filter(isAlive), [], "every container process is gone");
});

let podCount = 0;
async function newPod(overrides: Parameters<typeof testSandboxConfig>[1] = {}): Promise<{ id: string; logDir: string }> {
  const logDir = join(dir, `pod-${++podCount}`);
  const config = testSandboxConfig(logDir, { podUid: `uid-${podCount}`, name: `pod-${podCount}`, ...overrides });
  return { id: await runtime.runPodSandbox(config), logDir };
}

async function run(podId: string, logDir: string, config: ContainerConfig, podName?: string): Promise<string> {
  const sandbox = await runtime.podSandboxStatus(podId);
  const id = await runtime.createContainer(podId, config, testSandboxConfig(logDir, { name: podName ?? sandbox.name, podUid: sandbox.podUid }));
  await runtime.startContainer(id);
  const pid = runtime.pidOf(id);
  if (pid !== undefined) pids.push(pid);
  return id;
}

function rejectsWith(code: RuntimeError["code"], message: string | RegExp): (err: unknown) => boolean {
  return (err) => {
    assert.ok(err instanceof RuntimeError, `expected a RuntimeError, got ${String(err)}`);
    assert.equal(err.code, code);
    if (typeof message === "string") assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  };
}

test("exit codes and reasons: 0 → Completed, 3 → Error, killed by SIGKILL → 137", async () => {
  const { id: pod, logDir } = await newPod();
  const cases: [string, string, number, string][] = [
    ["ok", "exit 0", 0, "Completed"],
    ["three", "exit 3", 3, "Error"],
    ["killed", "kill -KILL $$", 137, "Error"],
    ["termed", "kill -TERM $$", 143, "Error"],
  ];
  for (const [name, script, exitCode, reason] of cases) {
    const before = Date.now();
    const id = await run(pod, logDir, testContainerConfig(name, script));
    const info = await waitForContainerState(runtime, id, "exited");
    assert.equal(info.exitCode, exitCode, name);
    assert.equal(info.reason, reason, name);
    assert.equal(info.message, "");
    assert.ok(info.createdAt >= before - 5 && info.createdAt <= info.startedAt, name);
    assert.ok(info.startedAt <= info.finishedAt, name);
  }
});

test("create records the config; start runs it; status and list return copies", async () => {
  const { id: pod, logDir } = await newPod({ labels: { app: "web" } });
  const config = testContainerConfig("app", "sleep 300", { labels: { tier: "a" }, annotations: { note: "n" }, attempt: 2, logPath: "app/2.log" });
  const id = await runtime.createContainer(pod, config, testSandboxConfig(logDir, { name: "pod-x" }));
  assert.match(id, /^[0-9a-f]{64}$/);
  config.labels["tier"] = "changed";
  const created = await runtime.containerStatus(id);
  assert.deepEqual(
    { ...created, createdAt: 0 },
    {
      id,
      podSandboxId: pod,
      name: "app",
      attempt: 2,
      state: "created",
      image: "busybox",
      createdAt: 0,
      startedAt: 0,
      finishedAt: 0,
      exitCode: 0,
      reason: "",
      message: "",
      labels: { tier: "a" },
      annotations: { note: "n" },
      logPath: join(logDir, "app", "2.log"),
    },
  );
  assert.ok(existsSync(join(logDir, "app")), "log directory prepared at create");
  created.labels["tier"] = "mutated";
  assert.equal((await runtime.containerStatus(id)).labels["tier"], "a");

  await runtime.startContainer(id);
  pids.push(runtime.pidOf(id)!);
  const running = await runtime.containerStatus(id);
  assert.equal(running.state, "running");
  assert.ok(running.startedAt > 0);
  await assert.rejects(runtime.startContainer(id), rejectsWith("Unknown", `failed to set starting state for container "${id}": container is in CONTAINER_RUNNING state`));
  await runtime.stopContainer(id, 0);
  assert.equal((await runtime.containerStatus(id)).exitCode, 137);
});

test("a missing executable → StartFailed with runc's text, container exited with StartError/128", async () => {
  const { id: pod, logDir } = await newPod();
  const id = await runtime.createContainer(pod, testContainerConfig("bad", "", { command: ["nosuch-probelet-cmd"] }), testSandboxConfig(logDir));
  const message = 'unable to start container process: exec: "nosuch-probelet-cmd": executable file not found in $PATH';
  await assert.rejects(runtime.startContainer(id), rejectsWith("StartFailed", message));
  const info = await runtime.containerStatus(id);
  assert.equal(info.state, "exited");
  assert.equal(info.exitCode, 128);
  assert.equal(info.reason, "StartError");
  assert.equal(info.message, message);
  assert.ok(info.finishedAt > 0);
  assert.equal(info.startedAt, 0);
});

test("a nonexistent workingDir → StartFailed (chdir), exited with StartError", async () => {
  const { id: pod, logDir } = await newPod();
  const missing = join(dir, "no-such-dir");
  const id = await runtime.createContainer(pod, testContainerConfig("cwd", "true", { workingDir: missing }), testSandboxConfig(logDir));
  const message = `unable to start container process: chdir to cwd ("${missing}") set in config.json failed: no such file or directory`;
  await assert.rejects(runtime.startContainer(id), rejectsWith("StartFailed", message));
  const info = await runtime.containerStatus(id);
  assert.deepEqual([info.state, info.exitCode, info.reason, info.message], ["exited", 128, "StartError", message]);
});

test("env is exactly the given envs plus HOSTNAME and PATH; workingDir applies", async () => {
  const { id: pod, logDir } = await newPod();
  const script = "env | sort; pwd";
  const id = await run(pod, logDir, testContainerConfig("env", script, { envs: [{ key: "GREETING", value: "hi there" }], workingDir: dir }), "web-7");
  await waitForContainerState(runtime, id, "exited");
  const output = (await readContainerLog(join(logDir, "env", "0.log"))).toString();
  const lines = output.trim().split("\n");
  assert.equal(lines.pop(), dir);
  // sh itself may add PWD/SHLVL/_ ; everything else must come from the config.
  const vars = lines.filter((l) => !/^(PWD|SHLVL|_|OLDPWD)=/.test(l));
  assert.deepEqual(vars, ["GREETING=hi there", "HOSTNAME=web-7", `PATH=${process.env["PATH"]}`]);
});

test("createContainer validates: empty command, unknown sandbox, duplicate name", async () => {
  const { id: pod, logDir } = await newPod();
  await assert.rejects(
    runtime.createContainer(pod, testContainerConfig("empty", "", { command: [], args: [] }), testSandboxConfig(logDir)),
    rejectsWith("CreateFailed", /^failed to generate container "[0-9a-f]{64}" spec: no command specified$/),
  );
  await assert.rejects(
    runtime.createContainer("nope", testContainerConfig("x", "true"), testSandboxConfig(logDir)),
    rejectsWith("NotFound", 'failed to find sandbox id "nope": not found'),
  );
  const sandbox = testSandboxConfig(logDir, { name: "dup", podUid: "u" });
  const first = await runtime.createContainer(pod, testContainerConfig("twin", "true"), sandbox);
  await assert.rejects(
    runtime.createContainer(pod, testContainerConfig("twin", "true"), sandbox),
    rejectsWith("CreateFailed", `failed to reserve container name "twin_dup_default_u_0": name "twin_dup_default_u_0" is reserved for "${first}"`),
  );
  await runtime.removeContainer(first);
  const second = await runtime.createContainer(pod, testContainerConfig("twin", "true"), sandbox);
  await runtime.removeContainer(second);
});

test("unknown IDs: NotFound for status/start/stop, removes are idempotent", async () => {
  await assert.rejects(runtime.containerStatus("nope"), rejectsWith("NotFound", 'an error occurred when try to find container "nope": not found'));
  await assert.rejects(runtime.startContainer("nope"), rejectsWith("NotFound", /not found$/));
  await assert.rejects(runtime.stopContainer("nope", 1), rejectsWith("NotFound", /not found$/));
  await assert.rejects(runtime.podSandboxStatus("nope"), rejectsWith("NotFound", 'an error occurred when try to find sandbox "nope": not found'));
  await assert.rejects(runtime.stopPodSandbox("nope"), rejectsWith("NotFound", /not found$/));
  await runtime.removeContainer("nope");
  await runtime.removePodSandbox("nope");
});

test("listContainers filters by sandbox, state and labels; relistContainers lists ID, sandbox and state", async () => {
  const a = await newPod();
  const b = await newPod();
  const runningA = await run(a.id, a.logDir, testContainerConfig("run", "sleep 300", { labels: { role: "server", tier: "1" } }));
  const exitedA = await run(a.id, a.logDir, testContainerConfig("done", "exit 0", { labels: { role: "job" } }));
  const createdB = await runtime.createContainer(b.id, testContainerConfig("idle", "true", { labels: { role: "server" } }), testSandboxConfig(b.logDir));
  await waitForContainerState(runtime, exitedA, "exited");
  const ids = async (filter: Parameters<typeof runtime.listContainers>[0]): Promise<string[]> =>
    (await runtime.listContainers(filter)).map((c) => c.id).sort();
  assert.deepEqual(await ids({ podSandboxId: a.id }), [runningA, exitedA].sort());
  assert.deepEqual(await ids({ podSandboxId: b.id }), [createdB]);
  assert.deepEqual(await ids({ podSandboxId: a.id, state: "running" }), [runningA]);
  assert.deepEqual(await ids({ podSandboxId: a.id, state: "exited" }), [exitedA]);
  assert.deepEqual(await ids({ state: "created", labels: { role: "server" } }), [createdB]);
  assert.deepEqual(await ids({ labels: { role: "server", tier: "1" } }), [runningA]);
  assert.deepEqual(await ids({ labels: { role: "nobody" } }), []);
  const summaries = (await runtime.relistContainers()).filter((c) => c.podSandboxId === a.id || c.podSandboxId === b.id);
  assert.deepEqual(
    summaries.sort((x, y) => x.id.localeCompare(y.id)),
    [
      { id: runningA, podSandboxId: a.id, state: "running" },
      { id: exitedA, podSandboxId: a.id, state: "exited" },
      { id: createdB, podSandboxId: b.id, state: "created" },
    ].sort((x, y) => x.id.localeCompare(y.id)),
  );
  await runtime.removePodSandbox(a.id);
  await runtime.removePodSandbox(b.id);
  assert.deepEqual(await ids({ podSandboxId: a.id }), []);
});

test("without pod networks pods share the host's network: their container ports are host ports (podsShareHostNetwork)", async () => {
  assert.equal(await runtime.podsShareHostNetwork(), true);
});

test("sandboxes: ready with pod IP 127.0.0.1, stopPodSandbox kills every container at once, remove forgets", async () => {
  const { id: pod, logDir } = await newPod({ labels: { app: "db" }, annotations: { a: "1" } });
  const status = await runtime.podSandboxStatus(pod);
  assert.deepEqual({ ...status, createdAt: 0 }, {
    id: pod,
    podUid: `uid-${podCount}`,
    name: `pod-${podCount}`,
    namespace: "default",
    attempt: 0,
    state: "ready",
    podIP: "127.0.0.1",
    createdAt: 0,
    labels: { app: "db" },
    annotations: { a: "1" },
  });
  assert.deepEqual((await runtime.listPodSandboxes({ labels: { app: "db" } })).map((s) => s.id), [pod]);
  const ignoresTerm = "trap '' TERM; while :; do sleep 1; done";
  const ids = [await run(pod, logDir, testContainerConfig("one", ignoresTerm)), await run(pod, logDir, testContainerConfig("two", "sleep 300"))];
  const started = Date.now();
  await runtime.stopPodSandbox(pod);
  assert.ok(Date.now() - started < 5000, "no grace period");
  for (const id of ids) {
    const info = await runtime.containerStatus(id);
    assert.deepEqual([info.state, info.exitCode], ["exited", 137]);
  }
  assert.equal((await runtime.podSandboxStatus(pod)).state, "notready");
  assert.deepEqual((await runtime.listPodSandboxes({ state: "notready" })).map((s) => s.id).includes(pod), true);
  await runtime.stopPodSandbox(pod); // idempotent
  const late = await runtime.createContainer(pod, testContainerConfig("late", "true"), testSandboxConfig(logDir));
  await assert.rejects(runtime.startContainer(late), rejectsWith("StartFailed", `sandbox container "${pod}" is not running`));
  await runtime.removePodSandbox(pod);
  await assert.rejects(runtime.podSandboxStatus(pod), rejectsWith("NotFound", /not found$/));
  await assert.rejects(runtime.containerStatus(ids[0]!), rejectsWith("NotFound", /not found$/));
  assert.ok(existsSync(join(logDir, "one", "0.log")), "logs stay after removal");
});

test("removeContainer stops a running container without grace first", async () => {
  const { id: pod, logDir } = await newPod();
  const id = await run(pod, logDir, testContainerConfig("rm", "trap '' TERM; while :; do sleep 1; done"));
  const pid = runtime.pidOf(id)!;
  await runtime.removeContainer(id);
  assert.equal(isAlive(pid), false);
  await assert.rejects(runtime.containerStatus(id), rejectsWith("NotFound", /not found$/));
});

test("version() names the runtime and the package version", async () => {
  const pkg = JSON.parse(await readFile(new URL("../../../../package.json", import.meta.url), "utf8")) as { version: string };
  assert.deepEqual(await runtime.version(), { runtimeName: "probelet-process", runtimeVersion: pkg.version });
});

test("close() kills everything, reaps it, is idempotent, and refuses new work", async () => {
  const own = new ProcessRuntime();
  const pod = await own.runPodSandbox(testSandboxConfig(join(dir, "closing")));
  const sandbox = testSandboxConfig(join(dir, "closing"));
  const mine: number[] = [];
  for (const name of ["a", "b"]) {
    const id = await own.createContainer(pod, testContainerConfig(name, "trap '' TERM; sleep 300 & wait"), sandbox);
    await own.startContainer(id);
    mine.push(own.pidOf(id)!);
  }
  pids.push(...mine);
  await Promise.all([own.close(), own.close()]);
  await own.close();
  assert.deepEqual(mine.filter(isAlive), []);
  for (const c of await own.listContainers()) assert.equal(c.state, "exited");
  await assert.rejects(own.runPodSandbox(sandbox), rejectsWith("Unavailable", "process runtime is closed"));
  await assert.rejects(own.createContainer(pod, testContainerConfig("c", "true"), sandbox), rejectsWith("Unavailable", "process runtime is closed"));
  await waitFor("children of the closed runtime to be reaped", () => liveChildren().every((p) => !mine.includes(p)));
});
