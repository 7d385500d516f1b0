// Volume mounts on the process runtime: the supervisor gives a container its own mount namespace
// with the bind mounts (root only), read-only ones refuse writes, nothing leaks into the host's
// mount table, and a runtime that cannot mount refuses to create such a container.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { ProcessRuntime } from "./process-runtime.js";
import { supervisorAvailable } from "./supervised-process.js";
import { isAlive, testContainerConfig, testSandboxConfig, waitFor } from "../../../test/process-testing.js";
import { RuntimeError } from "../runtime.js";

const dir = await mkdtemp(join(tmpdir(), "probelet-process-mounts-"));
const runtimes: ProcessRuntime[] = [];
const pids: number[] = [];
const isRoot = process.getuid?.() === 0;
const skip = !isRoot ? "volume mounts need root" : !(await supervisorAvailable()) ? "the supervisor helper is not built (no C compiler)" : false;

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
  await rm(dir, { recursive: true, force: true });
});

test("a supervised container sees its bind mounts at their paths, read-only ones refuse writes, and the host's mount table is untouched", { skip }, async () => {
  const stateDir = join(dir, "state");
  const runtime = new ProcessRuntime({ stateDir });
  runtimes.push(runtime);
  assert.equal(await runtime.mountsUnsupportedReason(), undefined);
  const ro = join(dir, "ro-src");
  const rw = join(dir, "rw-src");
  await mkdir(ro);
  await mkdir(rw);
  await writeFile(join(ro, "config"), "from-host");
  const at = join(dir, "mnt");
  const script = `cat ${at}/ro/config > ${at}/rw/seen; touch ${at}/ro/x 2>/dev/null && echo writable > ${at}/rw/ro-result || echo read-only > ${at}/rw/ro-result; sleep 30`;
  const sandbox = testSandboxConfig(join(stateDir, "logs"));
  const sandboxId = await runtime.runPodSandbox(sandbox);
  const mounts = [
    { hostPath: ro, containerPath: join(at, "ro"), readonly: true },
    { hostPath: rw, containerPath: join(at, "rw"), readonly: false },
  ];
  const id = await runtime.createContainer(sandboxId, testContainerConfig("app", script, { mounts }), sandbox);
  await runtime.startContainer(id);
  pids.push(runtime.pidOf(id)!);
  await waitFor("the container's report", async () => (await readFile(join(rw, "ro-result"), "utf8").catch(() => "")) !== "");
  assert.equal(await readFile(join(rw, "seen"), "utf8"), "from-host");
  assert.equal(await readFile(join(rw, "ro-result"), "utf8"), "read-only\n");
  const hostMounts = await readFile("/proc/self/mountinfo", "utf8");
  assert.ok(!hostMounts.includes(at), "the container's mounts stay in its own namespace");
  await runtime.stopContainer(id, 0);
});

test("a mount that cannot be made fails the start with the mount's errno, and nothing runs", { skip }, async () => {
  const stateDir = join(dir, "state-fail");
  const runtime = new ProcessRuntime({ stateDir });
  runtimes.push(runtime);
  const sandbox = testSandboxConfig(join(stateDir, "logs"));
  const sandboxId = await runtime.runPodSandbox(sandbox);
  const mounts = [{ hostPath: join(dir, "does-not-exist"), containerPath: join(dir, "mnt-fail"), readonly: false }];
  const id = await runtime.createContainer(sandboxId, testContainerConfig("app", "echo ran > " + join(dir, "ran"), { mounts }), sandbox);
  await assert.rejects(runtime.startContainer(id), /failed to mount volumes in the container's mount namespace: ENOENT: no such file or directory/);
  await assert.rejects(readFile(join(dir, "ran")));
});

test("a process runtime without the supervisor refuses to create a container with mounts, naming why", async () => {
  const runtime = new ProcessRuntime();
  runtimes.push(runtime);
  const reason = await runtime.mountsUnsupportedReason();
  assert.match(reason ?? "", /^volume mounts on the process runtime need (root|the supervisor helper)/);
  const sandbox = testSandboxConfig(join(dir, "plain-logs"));
  const sandboxId = await runtime.runPodSandbox(sandbox);
  const config = testContainerConfig("app", "true", { mounts: [{ hostPath: dir, containerPath: join(dir, "m"), readonly: false }] });
  await assert.rejects(runtime.createContainer(sandboxId, config, sandbox), (err: unknown) => err instanceof RuntimeError && err.code === "CreateFailed" && err.message.includes(reason ?? "?"));
});
