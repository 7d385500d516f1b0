// CriRuntime against a real containerd (scripts/containerd.sh start): container lifecycle and
// the semantics the agent relies on (exit reasons, grace periods, attempts, adoption after a
// restart). Skipped, with the reason, when not root, without containerd or without
// PROBELET_CRI_SOCKET. Every test removes its sandboxes, pass or fail.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { criSuite, SLEEPER, shContainer } from "../../../test/cri/containerd-env.js";
import { waitFor, waitForContainerState } from "../../../test/process-testing.js";
import { RuntimeError } from "../runtime.js";
import { CriRuntime } from "./cri-runtime.js";

const { skip, env, runtime, pods } = criSuite();

function rejectsWith(code: RuntimeError["code"], message: string | RegExp): (err: unknown) => boolean {
  return (err) => {
    assert.ok(err instanceof RuntimeError, `expected a RuntimeError, got ${String(err)}`);
    assert.equal(err.code, code);
    if (typeof message === "string") assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  };
}

test("version names containerd", { skip }, async () => {
  const version = await runtime.version();
  assert.equal(version.runtimeName, "containerd");
  assert.match(version.runtimeVersion, /^\d+\.\d+\./);
});

test("full lifecycle: create → start → stop (exits 0 on TERM) → remove, with labels, env, log file and ms times", { skip }, async (t) => {
  const before = Date.now();
  const pod = await pods.newPod(t, { labels: { "probelet.test/lifecycle": "yes" }, annotations: { note: "n" } });
  const sandbox = await runtime.podSandboxStatus(pod.id);
  assert.deepEqual([sandbox.state, sandbox.podIP, sandbox.name, sandbox.podUid, sandbox.annotations], ["ready", "", pod.config.name, pod.config.podUid, { note: "n" }]);
  assert.ok(sandbox.createdAt >= before - 2_000 && sandbox.createdAt <= Date.now() + 2_000, "int64 ns creation time → ms since the epoch");

  const config = shContainer("app", `echo "hello $GREETING from $(pwd)"; ${SLEEPER}`, {
    envs: [{ key: "GREETING", value: "world" }],
    workingDir: "/tmp",
    labels: { tier: "web" },
    annotations: { "io.kubernetes.container.restartCount": "0" },
  });
  const id = await runtime.createContainer(pod.id, config, pod.config);
  assert.match(id, /^[0-9a-f]{64}$/);
  const created = await runtime.containerStatus(id);
  assert.deepEqual([created.state, created.podSandboxId, created.name, created.attempt, created.startedAt], ["created", pod.id, "app", 0, 0]);
  assert.deepEqual(created.labels, { tier: "web" }, "CRI adds no labels");
  assert.equal(created.logPath, join(pod.config.logDirectory, "app/0.log"));

  await runtime.startContainer(id);
  const running = await runtime.containerStatus(id);
  assert.equal(running.state, "running");
  assert.ok(running.createdAt <= running.startedAt && running.startedAt <= Date.now() + 2_000);
  assert.deepEqual((await runtime.listContainers({ podSandboxId: pod.id })).map((c) => c.id), [id]);
  assert.deepEqual((await runtime.listContainers({ labels: { tier: "web" }, state: "running" })).map((c) => c.id), [id]);
  assert.deepEqual(await runtime.listContainers({ podSandboxId: pod.id, state: "exited" }), []);
  assert.deepEqual((await runtime.listPodSandboxes({ labels: { "probelet.test/lifecycle": "yes" } })).map((s) => s.id), [pod.id]);

  const log = await waitFor("the log line", async () => {
    const text = await readFile(created.logPath, "utf8").catch(() => "");
    return text.includes("hello") ? text : undefined;
  });
  assert.match(log, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z stdout F hello world from \/tmp\n$/);

  const stopStarted = performance.now();
  await runtime.stopContainer(id, 10);
  assert.ok(performance.now() - stopStarted < 5_000, "a TERM-aware PID 1 stops without waiting for the grace period");
  const exited = await runtime.containerStatus(id);
  assert.deepEqual([exited.state, exited.exitCode, exited.reason], ["exited", 0, "Completed"]);
  assert.ok(exited.finishedAt >= exited.startedAt);

  await runtime.removeContainer(id);
  await assert.rejects(runtime.containerStatus(id), (err: unknown) => err instanceof RuntimeError && err.code === "NotFound");
  await runtime.removeContainer(id);
  await runtime.removePodSandbox(pod.id);
  await assert.rejects(runtime.podSandboxStatus(pod.id), (err: unknown) => err instanceof RuntimeError && err.code === "NotFound");
  await runtime.removePodSandbox(pod.id);
  assert.deepEqual(await pods.leftoverCgroups(env?.cgroupPrefix ?? ""), [], "the pod cgroup is removed with the last sandbox");
});

test("a container that exits at once: 0 → Completed, 3 → Error; a missing command → StartFailed, 128 StartError", { skip }, async (t) => {
  const pod = await pods.newPod(t);
  const cases: [string, string, number, string][] = [
    ["zero", "exit 0", 0, "Completed"],
    ["three", "exit 3", 3, "Error"],
  ];
  for (const [name, script, exitCode, reason] of cases) {
    const id = await pods.start(pod, shContainer(name, script));
    const info = await waitForContainerState(runtime, id, "exited");
    assert.deepEqual([info.exitCode, info.reason], [exitCode, reason], name);
    // containerd stamps started_at after the start call returns and finished_at from the exit
    // event, so a process that exits at once can report finishing a few ms "before" starting.
    assert.ok(info.startedAt > 0 && info.finishedAt > 0, name);
    assert.ok(Math.abs(info.finishedAt - info.startedAt) < 5_000, `${name}: started ${info.startedAt}, finished ${info.finishedAt}`);
  }
  const id = await runtime.createContainer(pod.id, shContainer("missing", "", { command: ["/no/such/binary"] }), pod.config);
  await assert.rejects(runtime.startContainer(id), rejectsWith("StartFailed", /no such file or directory/));
  const info = await runtime.containerStatus(id);
  assert.deepEqual([info.state, info.exitCode, info.reason, info.startedAt], ["exited", 128, "StartError", 0]);
  assert.match(info.message, /no such file or directory/);
});

// containerd writes the OCI spec as JSON (Go's encoding/json turns each byte that is not UTF-8
// into U+FFFD), so bytes the agent sends raw over CRI (checked on the wire in cri-runtime.test.ts)
// reach a runc container as U+FFFD, as they do under the kubelet on the same containerd.
test("#139168 on containerd: the raw bytes sent over CRI reach the container as containerd's OCI spec has them (U+FFFD for each byte that is not UTF-8)", { skip }, async (t) => {
  const pod = await pods.newPod(t);
  const raw = Buffer.from([0xff, 0xfe, 0x41]);
  const config = shContainer("bytes", 'printf %s "$RAW" | od -An -tx1', { envs: [{ key: "RAW", value: raw.toString("utf8"), valueBase64: raw.toString("base64") }] });
  const id = await pods.start(pod, config);
  const info = await waitForContainerState(runtime, id, "exited");
  const log = await readFile(info.logPath, "utf8");
  assert.match(log, / stdout F\s+ef bf bd ef bf bd 41\n$/);
});

/** memoryCgroupSkip says why containers cannot be OOM-killed here (no memory controller), or false. */
function memoryCgroupSkip(): string | false {
  if (existsSync("/sys/fs/cgroup/memory/memory.limit_in_bytes")) return false; // cgroup v1
  try {
    if (readFileSync("/sys/fs/cgroup/cgroup.controllers", "utf8").split(/\s+/).includes("memory")) return false; // cgroup v2
  } catch {
    // neither hierarchy
  }
  return "this machine has no memory cgroup controller, so no memory limit can be enforced";
}

test("a container over its memory limit is OOM-killed: 137, reason OOMKilled", { skip: skip || memoryCgroupSkip() }, async (t) => {
  const pod = await pods.newPod(t);
  // The shell holds 64 MiB in a variable under a 16 MiB limit; the kernel's OOM killer ends it.
  const config = shContainer("hog", "x=$(head -c 67108864 /dev/zero | tr '\\0' a); sleep 600");
  const id = await pods.start(pod, { ...config, memoryLimitBytes: 16 * 1024 * 1024 });
  const info = await waitForContainerState(runtime, id, "exited", 30_000);
  assert.deepEqual([info.exitCode, info.reason], [137, "OOMKilled"]);
});

test("a container that ignores SIGTERM: stop with grace 1 s ends in 137 (SIGKILL) after about 1 s", { skip }, async (t) => {
  const pod = await pods.newPod(t);
  // busybox sleep as PID 1 has no TERM handler, and PID 1 ignores unhandled signals.
  const id = await pods.start(pod, shContainer("stubborn", "", { command: ["sleep", "600"] }));
  const started = performance.now();
  await runtime.stopContainer(id, 1);
  const elapsed = performance.now() - started;
  assert.ok(elapsed >= 900 && elapsed < 6_000, `stop took ${elapsed} ms`);
  const info = await runtime.containerStatus(id);
  assert.deepEqual([info.state, info.exitCode, info.reason], ["exited", 137, "Error"]);
});

test("stopPodSandbox kills every container at once, without their grace", { skip }, async (t) => {
  const pod = await pods.newPod(t);
  const ids = [await pods.start(pod, shContainer("a", "", { command: ["sleep", "600"] })), await pods.start(pod, shContainer("b", SLEEPER))];
  const started = performance.now();
  await runtime.stopPodSandbox(pod.id);
  assert.ok(performance.now() - started < 5_000);
  for (const id of ids) assert.equal((await runtime.containerStatus(id)).state, "exited");
  assert.equal((await runtime.podSandboxStatus(pod.id)).state, "notready");
});

test("same name and attempt while the old container exists → CreateFailed (name reserved); the next attempt works", { skip }, async (t) => {
  const pod = await pods.newPod(t);
  const first = await pods.start(pod, shContainer("restarter", "exit 1"));
  await waitForContainerState(runtime, first, "exited");
  await assert.rejects(
    runtime.createContainer(pod.id, shContainer("restarter", "exit 1"), pod.config),
    rejectsWith("CreateFailed", /^failed to reserve container name "restarter_cri-test-\d+_default_[^"]+_0": name ".*" is reserved for "[0-9a-f]{64}"$/),
  );
  const second = await runtime.createContainer(pod.id, shContainer("restarter", "exit 1", { attempt: 1, logPath: "restarter/1.log" }), pod.config);
  const attempts = (await runtime.listContainers({ podSandboxId: pod.id })).map((c) => [c.id, c.attempt]).sort((a, b) => Number(a[1]) - Number(b[1]));
  assert.deepEqual(attempts, [
    [first, 0],
    [second, 1],
  ]);
});

test("images: an absent image has no status; pulling it from a closed loopback port fails at once with containerd's text", { skip }, async (t) => {
  const pod = await pods.newPod(t);
  const image = { image: "127.0.0.1:9/probelet/absent:1", annotations: {} };
  assert.equal(await runtime.images.imageStatus(image), undefined);
  const started = performance.now();
  await assert.rejects(runtime.images.pullImage(image, pod.config), rejectsWith("Unknown", /^failed to pull and unpack image "127\.0\.0\.1:9\/probelet\/absent:1": .*connection refused/));
  assert.ok(performance.now() - started < 5_000);
});

test("close() leaves containers running; a new CriRuntime on the same socket adopts them", { skip }, async (t) => {
  const pod = await pods.newPod(t);
  const first = new CriRuntime({ socket: env?.socket ?? "", cgroupPrefix: env?.cgroupPrefix ?? "" });
  const id = await first.createContainer(pod.id, shContainer("survivor", SLEEPER), pod.config);
  await first.startContainer(id);
  await first.close();
  const second = new CriRuntime({ socket: env?.socket ?? "", cgroupPrefix: env?.cgroupPrefix ?? "" });
  t.after(() => second.close());
  assert.equal((await second.containerStatus(id)).state, "running");
  const result = await second.runInContainer(id, ["echo", "still here"], { timeoutMs: 5_000 });
  assert.equal(result.stdout.toString(), "still here\n");
});

test("pod network: a pod IP from the CNI subnet, or without a CNI config \"network is not ready\" and nothing left behind", { skip }, async (t) => {
  if (env?.cni) {
    const pod = await pods.newPod(t, { hostNetwork: false });
    const { podIP } = await runtime.podSandboxStatus(pod.id);
    const prefix = (env.subnet.split("/")[0] ?? "").split(".").slice(0, 3).join(".");
    assert.ok(podIP.startsWith(`${prefix}.`), `pod IP ${podIP} in ${env.subnet}`);
    const id = await pods.start(pod, shContainer("hostname", SLEEPER));
    const result = await runtime.runInContainer(id, ["hostname"], { timeoutMs: 5_000 });
    assert.equal(result.stdout.toString(), `${pod.config.name}\n`);
    return;
  }
  const started = performance.now();
  await assert.rejects(
    pods.newPod(t, { hostNetwork: false }),
    rejectsWith("NetworkNotReady", /^network is not ready: container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:.*cni/),
  );
  assert.ok(performance.now() - started < 5_000);
  assert.deepEqual(await pods.leftoverCgroups(env?.cgroupPrefix ?? ""), [], "a failed sandbox leaves no pod cgroup");
});
