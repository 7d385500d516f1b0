// The sequence of statuses the kubelet 1.37 stores for a pod, on the fake runtime: Pending before
// the sandbox (kubernetes#135300), Pending with the sandbox ready (OnPodSandboxReady), Running;
// and at the end of a restartPolicy Never pod, the terminal phase only once its containers and
// sandbox are stopped (status_manager.go mergePodStatus, couldHaveRunningContainers).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Container, Pod, PodStatus } from "../api/types.js";
import { tick } from "../../test/fakes/fake-clock.js";
import { startAgentOnFakes } from "../../test/fakes/fake-agent.js";
import type { Agent } from "./agent.js";

function pod(name: string, containers: Container[], extra: Partial<Pod["spec"]> = {}): Pod {
  return { metadata: { name, namespace: "default" }, spec: { containers, ...extra } };
}

/** summary renders what kubectl and controllers read of a status: phase, conditions, container states. */
function summary(status: PodStatus | undefined): string {
  if (!status) return "";
  const conditions = (status.conditions ?? []).map((c) => `${c.type}=${c.status}${c.reason ? `/${c.reason}` : ""}${c.message && c.type === "PodReadyToStartContainers" ? `(${c.message})` : ""}`);
  const state = (c: NonNullable<PodStatus["containerStatuses"]>[number]): string =>
    c.state?.running ? "running" : c.state?.terminated ? `terminated:${c.state.terminated.exitCode}` : `waiting:${c.state?.waiting?.reason ?? ""}`;
  const containers = [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])].map((c) => `${c.name}:${state(c)}`);
  return [status.phase, conditions.join(","), containers.join(",")].join(" | ");
}

/** statusesOf records every distinct status the agent stores for the pod, in order (the created object's bare Pending left out). */
function statusesOf(agent: Agent, name: string): string[] {
  const seen: string[] = [];
  agent.watchPods((e) => {
    if (e.object.metadata.name !== name || e.type === "DELETED" || e.object.status?.conditions === undefined) return;
    const line = summary(e.object.status);
    if (line !== "" && seen.at(-1) !== line) seen.push(line);
  });
  return seen;
}

test("[case 224] TestOnPodSandboxReadyInvocation, #135300: generateAPIPodStatus before the sandbox, then OnPodSandboxReady: Pending/ContainerCreating with PodReadyToStartContainers False 'no pod sandbox exists', Pending with it True, then Running", async () => {
  const { clock, agent } = startAgentOnFakes();
  const seen = statusesOf(agent, "web");
  assert.ok(agent.admit(pod("web", [{ name: "app", image: "img", command: ["app"] }]), "api").ok);
  await tick(clock);
  await tick(clock);
  assert.deepEqual(seen.slice(0, 3), [
    "Pending | PodReadyToStartContainers=False/PodSandboxNotReady(no pod sandbox exists),Initialized=True,Ready=False/ContainersNotReady,ContainersReady=False/ContainersNotReady,PodScheduled=True | app:waiting:ContainerCreating",
    "Pending | PodReadyToStartContainers=True,Initialized=True,Ready=False/ContainersNotReady,ContainersReady=False/ContainersNotReady,PodScheduled=True | app:waiting:ContainerCreating",
    "Running | PodReadyToStartContainers=True,Initialized=True,Ready=True,ContainersReady=True,PodScheduled=True | app:running",
  ]);
  const first = agent.getPod("default", "web");
  assert.ok(first.status?.podIP, "the pod IP comes with the sandbox");
  await agent.close();
});

test("#135300 with init containers every container waits as PodInitializing before the sandbox exists", async () => {
  const { clock, agent } = startAgentOnFakes();
  const seen = statusesOf(agent, "init");
  assert.ok(agent.admit(pod("init", [{ name: "app", image: "img", command: ["app"] }], { initContainers: [{ name: "setup", image: "img", command: ["setup"] }] }), "api").ok);
  await tick(clock);
  assert.equal(seen[0], "Pending | PodReadyToStartContainers=False/PodSandboxNotReady(no pod sandbox exists),Initialized=False/ContainersNotInitialized,Ready=False/ContainersNotReady,ContainersReady=False/ContainersNotReady,PodScheduled=True | setup:waiting:PodInitializing,app:waiting:PodInitializing");
  await agent.close();
});

test("mergePodStatus couldHaveRunningContainers: a restartPolicy Never exit stores Running with the terminated container and PodFailed conditions, then Failed once the sandbox is stopped, Failed only once", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  const seen = statusesOf(agent, "job");
  assert.ok(agent.admit(pod("job", [{ name: "app", image: "img", command: ["app"] }], { restartPolicy: "Never" }), "api").ok);
  await tick(clock);
  await tick(clock);
  const before = seen.length;
  runtime.exit(runtime.current("app")!.id, 1);
  for (let i = 0; i < 3; i++) await tick(clock);
  assert.deepEqual(seen.slice(before), [
    "Running | PodReadyToStartContainers=True,Initialized=True,Ready=False/PodFailed,ContainersReady=False/PodFailed,PodScheduled=True | app:terminated:1",
    "Failed | PodReadyToStartContainers=False/PodSandboxNotReady(pod sandbox is not ready),Initialized=True,Ready=False/PodFailed,ContainersReady=False/PodFailed,PodScheduled=True | app:terminated:1",
  ]);
  assert.equal(seen.filter((s) => s.startsWith("Failed")).length, 1);
  assert.ok(runtime.calls.some((c) => c.startsWith("stopPodSandbox")));
  await agent.close();
});
