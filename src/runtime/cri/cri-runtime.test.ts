// CriRuntime against a fake CRI server: request shapes, ExecSync timeout handling, output
// caps, error codes and int64 timestamps, without containerd (these always run).
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { status } from "@grpc/grpc-js";
import { FakeCriError, startFakeCriServer, type FakeCriHandlers, type FakeCriServer } from "../../../test/cri/fake-cri-server.js";
import { CommandTimeoutError } from "../../probe/command-runner.js";
import { probeExec } from "../../probe/exec.js";
import { RuntimeError, type ContainerConfig, type PodSandboxConfig } from "../runtime.js";
import { CriRuntime } from "./cri-runtime.js";

const pod: PodSandboxConfig = {
  podUid: "uid-1",
  name: "web",
  namespace: "default",
  attempt: 0,
  hostNetwork: true,
  logDirectory: "",
  labels: {},
  annotations: {},
};

const app: ContainerConfig = {
  name: "app",
  attempt: 0,
  image: "localhost/probelet/busybox:1",
  command: ["sleep", "60"],
  args: [],
  envs: [],
  labels: {},
  annotations: {},
  logPath: "app/0.log",
};

async function setup(t: TestContext, handlers: FakeCriHandlers, callTimeoutMs = 5_000): Promise<{ fake: FakeCriServer; runtime: CriRuntime }> {
  const fake = await startFakeCriServer(handlers);
  const runtime = new CriRuntime({ socket: fake.socket, callTimeoutMs, cgroupPrefix: "/probelet-unit" });
  t.after(async () => {
    await runtime.close();
    await fake.close();
  });
  return { fake, runtime };
}

function runtimeError(code: RuntimeError["code"], message: string): (err: unknown) => boolean {
  return (err) => {
    assert.ok(err instanceof RuntimeError, String(err));
    assert.equal(err.code, code);
    assert.equal(err.message, message);
    return true;
  };
}

test("containerStatus keeps int64 nanosecond timestamps exact (ms, no float rounding)", async (t) => {
  const { runtime } = await setup(t, {
    ContainerStatus: () => ({
      status: {
        id: "c1",
        metadata: { name: "app", attempt: 4 },
        state: "CONTAINER_EXITED",
        created_at: "1763779096012736489",
        started_at: "1763779096099999999",
        finished_at: "9223372036854775807",
        exit_code: 3,
        image: { image: "img" },
        reason: "Error",
        message: "bye",
        log_path: "/logs/app/4.log",
      },
    }),
    ListContainers: (req) => ({ containers: [{ id: req.filter?.id ?? "", pod_sandbox_id: "sb1", state: "CONTAINER_EXITED", created_at: "1" }] }),
  });
  const info = await runtime.containerStatus("c1");
  assert.equal(info.createdAt, 1763779096012);
  assert.equal(info.startedAt, 1763779096099);
  assert.equal(info.finishedAt, 9223372036854);
  assert.deepEqual([info.podSandboxId, info.state, info.exitCode, info.reason, info.message, info.attempt], ["sb1", "exited", 3, "Error", "bye", 4]);
});

test("images: ImageStatus and PullImage carry the pod's annotations and the sandbox config; an absent image is undefined, a pulled one its imageRef", async (t) => {
  const { fake, runtime } = await setup(t, {
    ImageStatus: (req) => ({ image: req.image.image === "localhost/here:1" ? { id: "sha256:1", repo_tags: ["localhost/here:1"], size: "2000000" } : null }),
    PullImage: () => ({ image_ref: "sha256:2" }),
    CreateContainer: () => ({ container_id: "x" }),
  });
  const images = runtime.images;
  assert.deepEqual(await images.imageStatus({ image: "localhost/here:1", annotations: { a: "b" } }), { id: "sha256:1", size: 2000000 });
  assert.equal(await images.imageStatus({ image: "localhost/nope:1", annotations: {} }), undefined);
  assert.equal(await images.pullImage({ image: "localhost/nope:1", annotations: { a: "b" } }, { ...pod, annotations: { a: "b" } }), "sha256:2");
  // As the kubelet's toRuntimeAPIImageSpec: no user_specified_image (it reads as proto3's empty default).
  assert.deepEqual(fake.requests("ImageStatus")[0]?.["image"], { image: "localhost/here:1", annotations: { a: "b" }, user_specified_image: "" });
  const pull = fake.requests("PullImage")[0] as { image: unknown; sandbox_config: { metadata: unknown; annotations: unknown } };
  assert.deepEqual(pull.image, { image: "localhost/nope:1", annotations: { a: "b" }, user_specified_image: "" });
  assert.deepEqual(pull.sandbox_config.metadata, { name: "web", uid: "uid-1", namespace: "default", attempt: 0 });
  assert.deepEqual(pull.sandbox_config.annotations, { a: "b" });
  // The kubelet's CreateContainer does not look at the image: EnsureImageExists did, and its
  // imageRef is the image the container is created of.
  await runtime.createContainer("sb", { ...app, image: "localhost/nope:1", imageRef: "sha256:2" }, pod);
  assert.equal(fake.requests("ImageStatus").length, 2);
  const created = fake.requests("CreateContainer")[0] as { config: { image: unknown } };
  assert.deepEqual(created.config.image, { image: "sha256:2", annotations: {}, user_specified_image: "localhost/nope:1" });
});

test("a failed PullImage is worded as the kubelet's CRI client words it: UNKNOWN as its message, other codes as grpc-go's 'rpc error: code = … desc = …'", async (t) => {
  const refused = 'failed to pull and unpack image "127.0.0.1:9/x:1": failed to resolve reference "127.0.0.1:9/x:1": connect: connection refused';
  let answer: FakeCriError | { image_ref: string } = new FakeCriError(status.UNKNOWN, refused);
  const { runtime } = await setup(t, { PullImage: () => answer });
  const image = { image: "127.0.0.1:9/x:1", annotations: {} };
  await assert.rejects(runtime.images.pullImage(image, pod), runtimeError("Unknown", refused));
  answer = new FakeCriError(status.NOT_FOUND, "failed to pull and unpack image: not found");
  await assert.rejects(runtime.images.pullImage(image, pod), runtimeError("NotFound", "rpc error: code = NotFound desc = failed to pull and unpack image: not found"));
  answer = { image_ref: "" };
  await assert.rejects(runtime.images.pullImage(image, pod), runtimeError("Unknown", 'imageRef of image "127.0.0.1:9/x:1" is not set'));
});

test("create/start failures keep containerd's text and become CreateFailed/StartFailed", async (t) => {
  const reserved = 'failed to reserve container name "app_web_default_uid-1_0": name "app_web_default_uid-1_0" is reserved for "abc"';
  const { fake, runtime } = await setup(t, {
    ImageStatus: () => ({ image: { id: "sha256:1", repo_tags: ["img"], size: "2000000" } }),
    CreateContainer: () => new FakeCriError(status.UNKNOWN, reserved),
    StartContainer: () => new FakeCriError(status.UNKNOWN, "failed to create containerd task: exec: \"nope\": executable file not found in $PATH"),
    RunPodSandbox: () => new FakeCriError(status.UNKNOWN, "failed to setup network for sandbox"),
    ListPodSandbox: () => ({ items: [] }),
  });
  await assert.rejects(runtime.createContainer("sb", app, pod), runtimeError("CreateFailed", reserved));
  const sent = fake.requests("CreateContainer")[0] as { config: { linux: unknown; command: string[] }; sandbox_config: { linux: unknown } };
  assert.deepEqual(sent.config.command, ["sleep", "60"]);
  const namespaces = { namespace_options: { network: "NODE", pid: "CONTAINER", ipc: "POD", target_id: "" } };
  assert.deepEqual((sent.config.linux as { security_context: unknown }).security_context, { ...namespaces, privileged: false, run_as_user: null, readonly_rootfs: false, capabilities: null, supplemental_groups: [], no_new_privs: false, run_as_group: null });
  assert.equal((sent.sandbox_config.linux as { cgroup_parent: string }).cgroup_parent, "/probelet-unit/poduid-1");
  await assert.rejects(runtime.startContainer("c"), runtimeError("StartFailed", 'failed to create containerd task: exec: "nope": executable file not found in $PATH'));
  await assert.rejects(runtime.runPodSandbox(pod), runtimeError("CreateFailed", "failed to setup network for sandbox"));
});

test("runInContainer: ExecSync timeout in whole seconds (rounded up), stdout/stderr capped at 10240 bytes each", async (t) => {
  const { fake, runtime } = await setup(t, {
    ExecSync: () => ({ stdout: Buffer.alloc(20_000, "o"), stderr: Buffer.from("err\n"), exit_code: 7 }),
  });
  const result = await runtime.runInContainer("c1", ["sh", "-c", "x"], { timeoutMs: 1_500 });
  assert.equal(result.exitCode, 7);
  assert.equal(result.stdout.length, 10_240);
  assert.equal(result.stderr.toString(), "err\n");
  assert.deepEqual(fake.requests("ExecSync")[0], { container_id: "c1", cmd: ["sh", "-c", "x"], timeout: "2" });
  const outcome = await probeExec(runtime, "c1", ["sh", "-c", "x"], { timeoutMs: 1_000 });
  assert.deepEqual(outcome, { result: "failure", output: "o".repeat(10_240) });
});

test("runInContainer: the runtime's DEADLINE_EXCEEDED → CommandTimeoutError with the kubelet's text", async (t) => {
  const { runtime } = await setup(t, {
    ExecSync: () => new FakeCriError(status.DEADLINE_EXCEEDED, "failed to exec in container: timeout 1s exceeded: context deadline exceeded"),
  });
  await assert.rejects(runtime.runInContainer("c1", ["/bin/sh", "-c", "sleep 10"], { timeoutMs: 1_000 }), (err: unknown) => {
    assert.ok(err instanceof CommandTimeoutError, String(err));
    assert.equal(err.message, 'command timed out: "/bin/sh -c sleep 10" timed out after 1s');
    assert.equal(err.timeoutMs, 1_000);
    assert.deepEqual(err.argv, ["/bin/sh", "-c", "sleep 10"]);
    return true;
  });
  const outcome = await probeExec(runtime, "c1", ["/bin/sh", "-c", "sleep 10"], { timeoutMs: 1_000 });
  assert.deepEqual(outcome, { result: "failure", output: 'command timed out: "/bin/sh -c sleep 10" timed out after 1s' });
});

test("runInContainer: an ExecSync that never returns → CommandTimeoutError at timeout + 2 s", async (t) => {
  const { runtime } = await setup(t, { ExecSync: () => new Promise(() => undefined) });
  const started = performance.now();
  await assert.rejects(runtime.runInContainer("c1", ["sleep", "30"], { timeoutMs: 1_000 }), {
    name: "CommandTimeoutError",
    message: 'command timed out: "sleep 30" timed out after 1s',
  });
  const elapsed = performance.now() - started;
  assert.ok(elapsed >= 2_900 && elapsed < 6_000, `took ${elapsed} ms`);
});

test("runInContainer: unknown container → NotFound (the prober's 'unknown' + error)", async (t) => {
  const { runtime } = await setup(t, { ExecSync: () => new FakeCriError(status.NOT_FOUND, 'failed to find exec "x": not found') });
  const outcome = await probeExec(runtime, "gone", ["true"], { timeoutMs: 1_000 });
  assert.equal(outcome.result, "unknown");
  assert.ok(outcome.error instanceof RuntimeError);
  assert.equal((outcome.error as RuntimeError).code, "NotFound");
});

test("stopContainer sends the grace period in seconds; removeContainer ignores unknown IDs", async (t) => {
  const { fake, runtime } = await setup(t, {
    StopContainer: () => ({}),
    RemoveContainer: () => new FakeCriError(status.NOT_FOUND, "not found"),
  });
  await runtime.stopContainer("c1", 0.2);
  await runtime.stopContainer("c1", 30);
  assert.deepEqual(fake.requests("StopContainer").map((r) => r["timeout"]), ["1", "30"]);
  await runtime.removeContainer("c1");
});

test("listContainers sends CRI filters and returns full statuses, skipping containers gone meanwhile", async (t) => {
  const { fake, runtime } = await setup(t, {
    ListContainers: () => ({
      containers: [
        { id: "a", pod_sandbox_id: "sb", state: "CONTAINER_RUNNING", created_at: "1000000" },
        { id: "gone", pod_sandbox_id: "sb", state: "CONTAINER_RUNNING", created_at: "1000000" },
      ],
    }),
    ContainerStatus: (req) =>
      req.container_id === "a"
        ? { status: { id: "a", metadata: { name: "app", attempt: 0 }, state: "CONTAINER_RUNNING", created_at: "2000000", started_at: "3000000" } }
        : new FakeCriError(status.NOT_FOUND, "not found"),
  });
  const infos = await runtime.listContainers({ podSandboxId: "sb", state: "running", labels: { app: "web" } });
  assert.deepEqual(infos.map((i) => [i.id, i.podSandboxId, i.state, i.createdAt, i.startedAt]), [["a", "sb", "running", 2, 3]]);
  assert.deepEqual(fake.requests("ListContainers")[0]?.["filter"], {
    id: "",
    pod_sandbox_id: "sb",
    state: { state: "CONTAINER_RUNNING" },
    label_selector: { app: "web" },
  });
});

test("relistContainers is one ListContainers call with no ContainerStatus (the PLEG's relist)", async (t) => {
  const { fake, runtime } = await setup(t, {
    ListContainers: () => ({
      containers: [
        { id: "a", pod_sandbox_id: "sb1", state: "CONTAINER_RUNNING", created_at: "1000000" },
        { id: "b", pod_sandbox_id: "sb2", state: "CONTAINER_EXITED", created_at: "1000000" },
        { id: "c", pod_sandbox_id: "sb2", state: "CONTAINER_CREATED", created_at: "1000000" },
      ],
    }),
  });
  assert.deepEqual(await runtime.relistContainers(), [
    { id: "a", podSandboxId: "sb1", state: "running" },
    { id: "b", podSandboxId: "sb2", state: "exited" },
    { id: "c", podSandboxId: "sb2", state: "created" },
  ]);
  assert.equal(fake.requests("ListContainers").length, 1);
  assert.equal(fake.requests("ContainerStatus").length, 0);
});

test("#139168 CreateContainer carries an env value that is not UTF-8 as its exact bytes (KeyValue.value is bytes)", async (t) => {
  const { fake, runtime } = await setup(t, { ImageStatus: () => ({ image: { id: "sha256:1", repo_tags: ["img"], size: "1" } }), CreateContainer: () => ({ container_id: "c1" }) });
  const raw = Buffer.from([0xff, 0xfe, 0x41]);
  await runtime.createContainer("sb", { ...app, envs: [{ key: "RAW", value: raw.toString("utf8"), valueBase64: raw.toString("base64") }] }, pod);
  const sent = fake.requests("CreateContainer")[0] as { config: { envs: { key: string; value: Buffer }[] } };
  assert.deepEqual(sent.config.envs.map((e) => [e.key, Buffer.from(e.value)]), [["RAW", raw]]);
});

test("cri-client remote_runtime.go: RunPodSandbox waits twice runtimeRequestTimeout and CreateContainer/StartContainer runtimeRequestTimeout, not the 10 s of queries (a sandbox given up halfway keeps its name reserved in containerd)", async (t) => {
  const slow = <T>(answer: T) => () => new Promise<T>((resolve) => setTimeout(() => resolve(answer), 400));
  const { runtime } = await setup(t, {
    RunPodSandbox: slow({ pod_sandbox_id: "sb-1" }),
    CreateContainer: slow({ container_id: "c-1" }),
    StartContainer: slow({}),
    ContainerStatus: slow({}),
  }, 100);
  assert.equal(await runtime.runPodSandbox(pod), "sb-1");
  assert.equal(await runtime.createContainer("sb-1", app, pod), "c-1");
  await runtime.startContainer("c-1");
  await assert.rejects(runtime.containerStatus("c-1"), (err: unknown) => err instanceof RuntimeError && err.code === "DeadlineExceeded");
});
