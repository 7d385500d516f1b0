// The image manager on the fake runtime's images with a fake clock: each pull policy, the events
// in the kubelet's order and texts, the image pull back-off (10 s doubling to 300 s, per pod and
// image), the errors as waiting reasons, and the serial puller.
import assert from "node:assert/strict";
import { test } from "node:test";
import { RestartBackoff } from "./crash-loop-backoff.js";
import type { Pod } from "../api/types.js";
import { MemoryEventRecorder } from "../prober/event-recorder.js";
import { RuntimeError, type PodSandboxConfig } from "../runtime/runtime.js";
import { silentLogger } from "../util/logger.js";
import { FakeClock, flushMicrotasks } from "../../test/fakes/fake-clock.js";
import { FakeRuntime } from "../../test/fakes/fake-runtime.js";
import { IMAGE_BACKOFF_INITIAL_MS, IMAGE_BACKOFF_MAX_MS, ImageManager, withDefaultTag } from "./image-manager.js";

const sandbox: PodSandboxConfig = { podUid: "uid-1", name: "web", namespace: "default", attempt: 0, hostNetwork: false, logDirectory: "", labels: {}, annotations: {} };

function pod(uid = "uid-1"): Pod {
  return { metadata: { name: "web", namespace: "default", uid, annotations: { note: "n" } }, spec: { containers: [] } };
}

function setup(): { clock: FakeClock; runtime: FakeRuntime; events: MemoryEventRecorder; images: ImageManager; backOff: RestartBackoff } {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const runtime = new FakeRuntime(clock);
  const events = new MemoryEventRecorder();
  const backOff = new RestartBackoff(clock, { initialMs: IMAGE_BACKOFF_INITIAL_MS, maxMs: IMAGE_BACKOFF_MAX_MS });
  const images = new ImageManager({ images: runtime.images, backOff, events, clock, logger: silentLogger });
  return { clock, runtime, events, images, backOff };
}

test("present images: IfNotPresent and Never are Pulled 'already present on machine and can be accessed by the pod' without a pull; Always pulls", async () => {
  const { runtime, events, images } = setup();
  const target = { pod: pod(), containerName: "app" };
  assert.deepEqual(await images.ensureImageExists(target, "busybox:1.36", "IfNotPresent", sandbox), { ok: true, imageRef: "sha256:busybox:1.36" });
  assert.deepEqual(await images.ensureImageExists(target, "busybox:1.36", "Never", sandbox), { ok: true, imageRef: "sha256:busybox:1.36" });
  assert.deepEqual(runtime.pulls, []);
  assert.deepEqual(await images.ensureImageExists(target, "busybox:1.36", "Always", sandbox), { ok: true, imageRef: "sha256:busybox:1.36" });
  assert.deepEqual(runtime.pulls, ["web busybox:1.36"]);
  const present = 'Normal Pulled Container image "busybox:1.36" already present on machine and can be accessed by the pod';
  assert.deepEqual(events.strings(), [
    present,
    present,
    'Normal Pulling Pulling image "busybox:1.36"',
    'Normal Pulled Successfully pulled image "busybox:1.36" in 0s (0s including waiting). Image size: 0 bytes.',
  ]);
});

test("no pull policy: the API's default from the tag (untagged or :latest → Always, else IfNotPresent); the runtime is asked for the name with :latest added", async () => {
  const { runtime, images } = setup();
  const target = { pod: pod(), containerName: "app" };
  await images.ensureImageExists(target, "busybox", undefined, sandbox);
  await images.ensureImageExists(target, "busybox:latest", undefined, sandbox);
  await images.ensureImageExists(target, "busybox:1.36", undefined, sandbox);
  assert.deepEqual(runtime.pulls, ["web busybox:latest", "web busybox:latest"]);
  assert.equal(withDefaultTag("localhost:5000/app"), "localhost:5000/app:latest");
  assert.equal(withDefaultTag("app@sha256:0123"), "app@sha256:0123");
  assert.equal(withDefaultTag("app:1"), "app:1");
});

test("an absent image with Never: ErrImageNeverPull event and result with the kubelet's text, no pull", async () => {
  const { runtime, events, images } = setup();
  runtime.absentImages.add("localhost/absent:1");
  const text = 'Container image "localhost/absent:1" is not present with pull policy of Never';
  assert.deepEqual(await images.ensureImageExists({ pod: pod(), containerName: "app" }, "localhost/absent:1", "Never", sandbox), { ok: false, reason: "ErrImageNeverPull", message: text });
  assert.deepEqual(events.strings(), [`Warning ErrImageNeverPull ${text}`]);
  assert.deepEqual(runtime.pulls, []);
});

test("an image name that is no reference: InspectFailed 'Failed to apply default image tag …' and InvalidImageName, nothing asked of the runtime", async () => {
  const { runtime, events, images } = setup();
  runtime.unavailable = true;
  const text = 'Failed to apply default image tag "Busybox:1": couldn\'t parse image name "Busybox:1": invalid reference format: repository name (library/Busybox) must be lowercase';
  assert.deepEqual(await images.ensureImageExists({ pod: pod(), containerName: "app" }, "Busybox:1", "Always", sandbox), { ok: false, reason: "InvalidImageName", message: text });
  assert.deepEqual(events.strings(), [`Warning InspectFailed ${text}`]);
  assert.deepEqual(runtime.pulls, []);
});

test("an image the runtime cannot look up: InspectFailed 'Failed to inspect image \"\": …' and ImageInspectError (the ref is empty when the lookup fails)", async () => {
  const { runtime, events, images } = setup();
  runtime.unavailable = true;
  const result = await images.ensureImageExists({ pod: pod(), containerName: "app" }, "app:1", "IfNotPresent", sandbox);
  assert.equal(result.ok, false);
  assert.ok(!result.ok && result.reason === "ImageInspectError" && result.message.startsWith('Failed to inspect image "": connection error'), JSON.stringify(result));
  assert.equal(events.events[0]?.reason, "InspectFailed");
});

test("a failed pull: Pulling, Failed 'Failed to pull image …: <error>', ErrImagePull; within the back-off BackOff 'Back-off pulling image …' and ImagePullBackOff with the last error", async () => {
  const { clock, runtime, events, images } = setup();
  const error = 'failed to pull and unpack image "127.0.0.1:9/x:1": connection refused';
  runtime.absentImages.add("127.0.0.1:9/x:1");
  runtime.pullError = new RuntimeError("Unknown", error);
  const target = { pod: pod(), containerName: "app" };
  assert.deepEqual(await images.ensureImageExists(target, "127.0.0.1:9/x:1", "IfNotPresent", sandbox), { ok: false, reason: "ErrImagePull", message: error });
  await clock.advance(IMAGE_BACKOFF_INITIAL_MS - 1);
  assert.deepEqual(await images.ensureImageExists(target, "127.0.0.1:9/x:1", "IfNotPresent", sandbox), {
    ok: false,
    reason: "ImagePullBackOff",
    message: `Back-off pulling image "127.0.0.1:9/x:1": ErrImagePull: ${error}`,
  });
  assert.deepEqual(events.strings(), [
    'Normal Pulling Pulling image "127.0.0.1:9/x:1"',
    `Warning Failed Failed to pull image "127.0.0.1:9/x:1": ${error}`,
    'Normal BackOff Back-off pulling image "127.0.0.1:9/x:1"',
  ]);
  assert.equal(runtime.pulls.length, 1);
  // Another pod's pull of the same image has a back-off of its own.
  assert.equal((await images.ensureImageExists({ pod: pod("uid-2"), containerName: "app" }, "127.0.0.1:9/x:1", "IfNotPresent", sandbox)).ok, false);
  assert.equal(runtime.pulls.length, 2);
});

test("the image back-off doubles from 10 s up to 300 s: a pull is tried again exactly when the delay since the last failure is over", async () => {
  const { clock, runtime, images } = setup();
  runtime.absentImages.add("x:1");
  runtime.pullError = new RuntimeError("Unknown", "refused");
  const target = { pod: pod(), containerName: "app" };
  const reasons = async (): Promise<string> => {
    const result = await images.ensureImageExists(target, "x:1", "IfNotPresent", sandbox);
    return result.ok ? "ok" : result.reason;
  };
  assert.equal(await reasons(), "ErrImagePull");
  for (const delay of [10, 20, 40, 80, 160, 300, 300]) {
    await clock.advance(delay * 1000 - 1);
    assert.equal(await reasons(), "ImagePullBackOff", `1 ms before ${delay} s`);
    await clock.advance(1);
    assert.equal(await reasons(), "ErrImagePull", `at ${delay} s`);
  }
  assert.equal(runtime.pulls.length, 8);
});

test("a success after failures keeps the back-off entry, as the kubelet's does (GC drops only stale ones): a new failure within 10 minutes doubles on; a stale one starts again at 10 s", async () => {
  const { clock, runtime, images, backOff } = setup();
  runtime.absentImages.add("x:1");
  runtime.pullError = new RuntimeError("Unknown", "refused");
  const target = { pod: pod(), containerName: "app" };
  await images.ensureImageExists(target, "x:1", "Always", sandbox);
  await clock.advance(10_000);
  await images.ensureImageExists(target, "x:1", "Always", sandbox);
  assert.equal(backOff.delayMs("uid-1_x:1"), 20_000);
  await clock.advance(20_000);
  runtime.pullError = undefined;
  assert.deepEqual(await images.ensureImageExists(target, "x:1", "Always", sandbox), { ok: true, imageRef: "sha256:x:1" });
  runtime.pullError = new RuntimeError("Unknown", "refused again");
  await images.ensureImageExists(target, "x:1", "Always", sandbox);
  assert.equal(backOff.delayMs("uid-1_x:1"), 40_000);
  await clock.advance(2 * IMAGE_BACKOFF_MAX_MS + 1);
  images.gc();
  assert.equal(backOff.delayMs("uid-1_x:1"), 0, "a stale entry is collected");
  const result = await images.ensureImageExists(target, "x:1", "Always", sandbox);
  assert.deepEqual(result, { ok: false, reason: "ErrImagePull", message: "refused again" });
  assert.equal(backOff.delayMs("uid-1_x:1"), 10_000);
});

test("a pull failure that starts with a CRI error name keeps it as the reason (evalCRIPullErr): RegistryUnavailable", async () => {
  const { runtime, images } = setup();
  runtime.absentImages.add("x:1");
  runtime.pullError = new RuntimeError("Unknown", "RegistryUnavailable: dial tcp: connection refused");
  const result = await images.ensureImageExists({ pod: pod(), containerName: "app" }, "x:1", "IfNotPresent", sandbox);
  assert.deepEqual(result, { ok: false, reason: "RegistryUnavailable", message: "image pull failed for x:1 because the registry is unavailable: dial tcp: connection refused" });
});

test("pulls run one at a time (serializeImagePulls): the second waits for the first, and its Pulled event counts the wait", async () => {
  const { clock, runtime, events, images } = setup();
  runtime.absentImages.add("a:1");
  runtime.absentImages.add("b:1");
  runtime.pullDelayMs = 1_000;
  runtime.imageSize = 42;
  const first = images.ensureImageExists({ pod: pod(), containerName: "a" }, "a:1", "IfNotPresent", sandbox);
  const second = images.ensureImageExists({ pod: pod(), containerName: "b" }, "b:1", "IfNotPresent", sandbox);
  await flushMicrotasks();
  assert.deepEqual(runtime.pulls, ["web a:1"], "the second pull waits");
  await clock.advance(1_000);
  await first;
  await flushMicrotasks();
  assert.deepEqual(runtime.pulls, ["web a:1", "web b:1"]);
  await clock.advance(1_000);
  await second;
  assert.deepEqual(events.strings().filter((e) => e.startsWith("Normal Pulled")), [
    'Normal Pulled Successfully pulled image "a:1" in 1s (1s including waiting). Image size: 42 bytes.',
    'Normal Pulled Successfully pulled image "b:1" in 1s (2s including waiting). Image size: 42 bytes.',
  ]);
});
