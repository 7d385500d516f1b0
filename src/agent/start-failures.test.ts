// What a pod shows when it cannot start, as the kubelet shows it, on the fake runtime: an absent
// image with pull policy Never (ErrImageNeverPull) or one that cannot be pulled (ErrImagePull,
// then ImagePullBackOff), a sandbox that cannot be made
// (FailedCreatePodSandBox) or a runtime whose network is not ready (NetworkNotReady), and the
// default waiting reason PodInitializing for every container of a pod with init containers.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Container, Pod } from "../api/types.js";
import { RuntimeError, type ContainerConfig, type PodSandboxConfig } from "../runtime/runtime.js";
import { FakeClock, tick, tickUntil } from "../../test/fakes/fake-clock.js";
import { FakeRuntime } from "../../test/fakes/fake-runtime.js";
import { fakeStateDir } from "../../test/fakes/fake-agent.js";
import { Agent } from "./agent.js";
import { startLocalApiServer } from "../apiserver/local-api-server.js";

/** FailingRuntime fails sandboxes or container creations with a chosen RuntimeError. */
class FailingRuntime extends FakeRuntime {
  sandboxError: RuntimeError | undefined;
  createError: RuntimeError | undefined;
  override async runPodSandbox(config: PodSandboxConfig): Promise<string> {
    if (this.sandboxError) throw this.sandboxError;
    return super.runPodSandbox(config);
  }
  override async createContainer(sandboxId: string, config: ContainerConfig, sandbox: PodSandboxConfig): Promise<string> {
    if (this.createError) throw this.createError;
    return super.createContainer(sandboxId, config, sandbox);
  }
}

function start(): { clock: FakeClock; runtime: FailingRuntime; agent: Agent } {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const runtime = new FailingRuntime(clock);
  const agent = new Agent({ api: startLocalApiServer(clock), runtime, stateDir: fakeStateDir(), clock, nodeName: "node-a" });
  agent.start();
  return { clock, runtime, agent };
}

function pod(name: string, containers: Container[], extra: Partial<Pod["spec"]> = {}): Pod {
  return { metadata: { name, namespace: "default" }, spec: { containers, ...extra } };
}

const events = (agent: Agent): string[] => agent.listEvents("default").map((e) => `${e.type} ${e.reason} ${e.message}`);
const condition = (agent: Agent, name: string, type: string): string | undefined => agent.getPod("default", name).status?.conditions?.find((c) => c.type === type)?.status;

test("an absent image with pull policy Never: ErrImageNeverPull event, Failed 'Error: ErrImageNeverPull', waiting reason ErrImageNeverPull with the kubelet's text; nothing is pulled", async () => {
  const { clock, runtime, agent } = start();
  const text = 'Container image "localhost/absent:1" is not present with pull policy of Never';
  runtime.absentImages.add("localhost/absent:1");
  agent.admit(pod("noimage", [{ name: "app", image: "localhost/absent:1", imagePullPolicy: "Never", command: ["app"] }]), "api");
  await tick(clock);
  const waiting = agent.getPod("default", "noimage").status?.containerStatuses?.[0]?.state?.waiting;
  assert.deepEqual(waiting, { reason: "ErrImageNeverPull", message: text });
  assert.deepEqual(events(agent), [`Warning ErrImageNeverPull ${text}`, "Warning Failed Error: ErrImageNeverPull"]);
  assert.equal(agent.getPod("default", "noimage").status?.phase, "Pending");
  assert.deepEqual(runtime.pulls, []);
  await agent.close();
});

test("an absent image with pull policy IfNotPresent that cannot be pulled: Pulling, Failed 'Failed to pull image …', Error: ErrImagePull; the next sync backs off (BackOff, ImagePullBackOff with the last error); every failed sync is retried 10-15 s later, so pulls come 10 s, then 20 to 30 s apart", async () => {
  const { clock, runtime, agent } = start();
  const image = "127.0.0.1:9/nothing:1";
  const error = `failed to pull and unpack image "${image}": failed to resolve reference "${image}": connection refused`;
  runtime.absentImages.add(image);
  runtime.pullError = new RuntimeError("Unknown", error);
  agent.admit(pod("pullfail", [{ name: "app", image, imagePullPolicy: "IfNotPresent", command: ["app"] }]), "api");
  await tick(clock);
  // The sandbox's start syncs the pod again within the second (PLEG): the pull is backing off.
  assert.deepEqual(events(agent), [
    `Normal Pulling Pulling image "${image}"`,
    `Warning Failed Failed to pull image "${image}": ${error}`,
    "Warning Failed Error: ErrImagePull",
    `Normal BackOff Back-off pulling image "${image}"`,
    "Warning Failed Error: ImagePullBackOff",
  ]);
  const waiting = agent.getPod("default", "pullfail").status?.containerStatuses?.[0]?.state?.waiting;
  assert.deepEqual(waiting, { reason: "ImagePullBackOff", message: `Back-off pulling image "${image}": ErrImagePull: ${error}` });
  assert.equal(agent.getPod("default", "pullfail").status?.phase, "Pending");
  const pulledAt = [clock.now()];
  for (let second = 0; second < 120 && pulledAt.length < 3; second++) {
    await tick(clock);
    if (runtime.pulls.length > pulledAt.length) pulledAt.push(clock.now());
  }
  assert.equal(pulledAt.length, 3, `pulls: ${runtime.pulls.join(", ")}`);
  assert.ok(pulledAt[1]! - pulledAt[0]! >= 10_000, `second pull ${pulledAt[1]! - pulledAt[0]!} ms after the first`);
  // kubelet.go SyncPod: ImagePullBackOff fails the sync too, retried after 10-15 s, not at the resync.
  assert.ok(pulledAt[2]! - pulledAt[1]! >= 20_000 && pulledAt[2]! - pulledAt[1]! <= 31_000, `third pull ${pulledAt[2]! - pulledAt[1]!} ms after the second`);
  await agent.close();
});

test("a pull that succeeds after failing: Pulled 'Successfully pulled image … in 1.5s (1.5s including waiting). Image size: N bytes.', then Created and Started", async () => {
  const { clock, runtime, agent } = start();
  const image = "registry.example/app:2";
  runtime.absentImages.add(image);
  runtime.pullError = new RuntimeError("Unknown", "not yet");
  runtime.imageSize = 4_000_000;
  agent.admit(pod("pullok", [{ name: "app", image, imagePullPolicy: "IfNotPresent", command: ["app"] }]), "api");
  await tick(clock);
  runtime.pullError = undefined;
  runtime.pullDelayMs = 1_500;
  await tickUntil(clock, () => runtime.current("app") !== undefined, { maxTicks: 120 });
  await tick(clock);
  assert.deepEqual(events(agent).slice(-4), [
    `Normal Pulling Pulling image "${image}"`,
    `Normal Pulled Successfully pulled image "${image}" in 1.5s (1.5s including waiting). Image size: 4000000 bytes.`,
    "Normal Created Container created",
    "Normal Started Container started",
  ]);
  assert.ok(agent.getPod("default", "pullok").status?.containerStatuses?.[0]?.state?.running);
  await agent.close();
});

test("a sandbox that cannot be made: FailedCreatePodSandBox 'Failed to create pod sandbox: …', containers ContainerCreating, PodReadyToStartContainers False", async () => {
  const { clock, runtime, agent } = start();
  runtime.sandboxError = new RuntimeError("CreateFailed", "rpc error: code = Unknown desc = failed to setup network for sandbox \"x\": plugin type=\"bridge\" failed (add): no IP addresses available");
  agent.admit(pod("nonet", [{ name: "app", image: "img", command: ["app"] }]), "api");
  await tick(clock);
  const status = agent.getPod("default", "nonet").status!;
  assert.equal(status.phase, "Pending");
  assert.equal(status.containerStatuses?.[0]?.state?.waiting?.reason, "ContainerCreating");
  assert.equal(condition(agent, "nonet", "PodReadyToStartContainers"), "False");
  assert.deepEqual(events(agent), [`Warning FailedCreatePodSandBox Failed to create pod sandbox: ${runtime.sandboxError.message}`]);
  runtime.sandboxError = undefined;
  await tick(clock, 60_000);
  await tick(clock);
  assert.equal(condition(agent, "nonet", "PodReadyToStartContainers"), "True", "a later sync makes the sandbox");
  assert.ok(agent.getPod("default", "nonet").status?.containerStatuses?.[0]?.state?.running);
  await agent.close();
});

test("a runtime whose network is not ready: NetworkNotReady with the runtime's text (kubelet SyncPod), not FailedCreatePodSandBox", async () => {
  const { clock, runtime, agent } = start();
  const text = "network is not ready: container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized";
  runtime.sandboxError = new RuntimeError("NetworkNotReady", text);
  agent.admit(pod("netdown", [{ name: "app", image: "img", command: ["app"] }]), "api");
  await tick(clock);
  assert.deepEqual(events(agent), [`Warning NetworkNotReady ${text}`]);
  assert.equal(agent.getPod("default", "netdown").status?.containerStatuses?.[0]?.state?.waiting?.reason, "ContainerCreating");
  await agent.close();
});

test("PodInitializing is the default waiting reason of every container of a pod with init containers; ContainerCreating without", async () => {
  const { clock, runtime, agent } = start();
  agent.admit(pod("init", [{ name: "app", image: "img", command: ["app"] }], { initContainers: [{ name: "first", image: "img", command: ["first"] }, { name: "second", image: "img", command: ["second"] }] }), "api");
  runtime.sandboxError = new RuntimeError("CreateFailed", "no sandbox yet");
  await tick(clock);
  const reasons = (): string[] => {
    const s = agent.getPod("default", "init").status!;
    return [...(s.initContainerStatuses ?? []), ...(s.containerStatuses ?? [])].map((c) => `${c.name}=${c.state?.waiting?.reason ?? Object.keys(c.state ?? {})[0] ?? ""}`);
  };
  assert.deepEqual(reasons(), ["first=PodInitializing", "second=PodInitializing", "app=PodInitializing"]);
  runtime.sandboxError = undefined;
  await tick(clock, 60_000);
  await tick(clock);
  assert.deepEqual(reasons(), ["first=running", "second=PodInitializing", "app=PodInitializing"], "while init containers run");
  await agent.close();
});
