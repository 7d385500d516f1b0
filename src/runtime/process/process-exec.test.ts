import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { probeExec } from "../../probe/exec.js";
import { CommandTimeoutError } from "../../probe/command-runner.js";
import { HostCommandRunner } from "../../probe/host-runner.js";
import { RuntimeError } from "../runtime.js";
import { ProcessRuntime } from "./process-runtime.js";
import { isAlive, liveChildren, testContainerConfig, testSandboxConfig, waitForContainerState } from "../../../test/process-testing.js";

const dir = await mkdtemp(join(tmpdir(), "probelet-process-exec-"));
const runtime = new ProcessRuntime();
const pids: number[] = [];

after(async () => {
  await runtime.close();
  await rm(dir, { recursive: true, force: true });
  assert.deepEqual(liveChildren(), [], "no child process of the test may remain");
  assert.deepEqual(pids.filter(isAlive), [], "every container process is gone");
});

const sandbox = testSandboxConfig(join(dir, "logs"), { name: "exec-pod" });
const pod = await runtime.runPodSandbox(sandbox);

async function startContainer(name: string, script: string, rt: ProcessRuntime = runtime, podId = pod): Promise<string> {
  const id = await rt.createContainer(podId, testContainerConfig(name, script, { envs: [{ key: "SECRET", value: "s3cr3t" }], workingDir: dir }), sandbox);
  await rt.startContainer(id);
  pids.push(rt.pidOf(id)!);
  return id;
}

function notFound(message: string): (err: unknown) => boolean {
  return (err) => err instanceof RuntimeError && err.code === "NotFound" && err.message === message;
}

test("runInContainer runs on the host with the container's env and working dir", async () => {
  const id = await startContainer("target", "sleep 300");
  const result = await runtime.runInContainer(id, ["sh", "-c", 'echo "$SECRET $HOSTNAME $(pwd)"; echo warn >&2; exit 3'], { timeoutMs: 5000 });
  assert.equal(result.stdout.toString(), `s3cr3t exec-pod ${dir}\n`);
  assert.equal(result.stderr.toString(), "warn\n");
  assert.equal(result.exitCode, 3);
});

test("an exec probe through the runtime maps exit codes and timeouts like the kubelet", async () => {
  const id = await startContainer("probed", "sleep 300");
  // The verdict only: the command's CPU is there too when the spawner helper ran it.
  const verdict = async (argv: string[]) => {
    const { result, output } = await probeExec(runtime, id, argv, { timeoutMs: 5000 });
    return { result, output };
  };
  assert.deepEqual(await verdict(["sh", "-c", "printf ok"]), { result: "success", output: "ok" });
  assert.deepEqual(await verdict(["sh", "-c", "printf bad; exit 1"]), { result: "failure", output: "bad" });
  await assert.rejects(runtime.runInContainer(id, ["sleep", "10"], { timeoutMs: 200 }), (err: unknown) => err instanceof CommandTimeoutError);
});

test("runInContainer into an exited, a created or an unknown container is refused with CRI's texts", async () => {
  const exited = await startContainer("gone", "exit 0");
  await waitForContainerState(runtime, exited, "exited");
  await assert.rejects(
    runtime.runInContainer(exited, ["true"], { timeoutMs: 1000 }),
    notFound("failed to exec in container: container is in CONTAINER_EXITED state"),
  );
  const created = await runtime.createContainer(pod, testContainerConfig("idle", "true"), sandbox);
  await assert.rejects(
    runtime.runInContainer(created, ["true"], { timeoutMs: 1000 }),
    notFound("failed to exec in container: container is in CONTAINER_CREATED state"),
  );
  await assert.rejects(
    runtime.runInContainer("nope", ["true"], { timeoutMs: 1000 }),
    notFound('failed to exec in container: failed to find container "nope" in store: not found'),
  );
  const outcome = await probeExec(runtime, exited, ["true"], { timeoutMs: 1000 });
  assert.equal(outcome.result, "unknown", "an exec into a stopped container is a probe error, not a failure");
});

test("a runner passed in is used and left open by close()", async () => {
  const runner = new HostCommandRunner({ spawner: "node" });
  const own = new ProcessRuntime({ runner });
  try {
    const ownPod = await own.runPodSandbox(sandbox);
    const id = await startContainer("shared", "sleep 300", own, ownPod);
    const result = await own.runInContainer(id, ["sh", "-c", "echo $SECRET"], { timeoutMs: 5000 });
    assert.equal(result.stdout.toString(), "s3cr3t\n");
    await own.close();
    const after = await runner.run(["sh", "-c", "echo still open"], { timeoutMs: 5000 });
    assert.equal(after.stdout.toString(), "still open\n");
  } finally {
    await own.close();
    await runner.close();
  }
});
