// What a pod shows when it cannot start, as the kubelet shows it, on the fake runtime: an absent
// image with pull policy Never (ErrImageNeverPull), a sandbox that cannot be made
// (FailedCreatePodSandBox) or a runtime whose network is not ready (NetworkNotReady), and the
// default waiting reason PodInitializing for every container of a pod with init containers.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Container, Pod } from "../api/types.js";
import { RuntimeError, type ContainerConfig, type PodSandboxConfig } from "../runtime/runtime.js";
import { FakeClock, tick } from "../../test/fakes/fake-clock.js";
import { FakeRuntime } from "../../test/fakes/fake-runtime.js";
import { fakeStateDir } from "../../test/fakes/fake-agent.js";
import { Agent } from "./agent.js";

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
  const agent = new Agent({ runtime, stateDir: fakeStateDir(), clock, nodeName: "node-a" });
  agent.start();
  return { clock, runtime, agent };
}

function pod(name: string, containers: Container[], extra: Partial<Pod["spec"]> = {}): Pod {
  return { metadata: { name, namespace: "default" }, spec: { containers, ...extra } };
}

const events = (agent: Agent): string[] => agent.listEvents("default").map((e) => `${e.type} ${e.reason} ${e.message}`);
const condition = (agent: Agent, name: string, type: string): string | undefined => agent.getPod("default", name).status?.conditions?.find((c) => c.type === type)?.status;

test("an absent image: ErrImageNeverPull event, Failed 'Error: ErrImageNeverPull', waiting reason ErrImageNeverPull with the kubelet's text", async () => {
  const { clock, runtime, agent } = start();
  const text = 'Container image "localhost/absent:1" is not present with pull policy of Never';
  runtime.createError = new RuntimeError("ImageNotPresent", text);
  agent.admit(pod("noimage", [{ name: "app", image: "localhost/absent:1", command: ["app"] }]), "api");
  await tick(clock);
  const waiting = agent.getPod("default", "noimage").status?.containerStatuses?.[0]?.state?.waiting;
  assert.deepEqual(waiting, { reason: "ErrImageNeverPull", message: text });
  assert.deepEqual(events(agent), [`Warning ErrImageNeverPull ${text}`, "Warning Failed Error: ErrImageNeverPull"]);
  assert.equal(agent.getPod("default", "noimage").status?.phase, "Pending");
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
