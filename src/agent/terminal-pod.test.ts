// A pod in a terminal phase on the fake runtime: its sandbox is stopped but kept with its
// containers (kubelet SyncTerminatingPod → killPodWithSyncResult), PodReadyToStartContainers
// turns False, and the terminated statuses stay as they were until the pod is deleted.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "../api/types.js";
import { FakeClock, tick } from "../../test/fakes/fake-clock.js";
import { startAgentOnFakes } from "../../test/fakes/fake-agent.js";
import { FakeRuntime } from "../../test/fakes/fake-runtime.js";
import { Agent } from "./agent.js";
import { startLocalApiServer } from "../apiserver/local-api-server.js";

function pod(name: string, restartPolicy: "Always" | "OnFailure" | "Never"): Pod {
  return { metadata: { name, namespace: "default" }, spec: { restartPolicy, containers: [{ name: "app", image: "img", command: ["app"] }] } };
}

for (const [restartPolicy, exitCode, phase] of [["Never", 0, "Succeeded"], ["Never", 1, "Failed"], ["OnFailure", 0, "Succeeded"]] as const) {
  test(`terminal pod (${restartPolicy}, exit ${exitCode} → ${phase}): the sandbox is stopped once and kept, PodReadyToStartContainers turns False`, async () => {
    const { clock, runtime, agent } = startAgentOnFakes();
    agent.admit(pod("done", restartPolicy), "api");
    await tick(clock);
    const sandboxId = runtime.current("app")!.podSandboxId;
    const ready = (): string | undefined => agent.getPod("default", "done").status?.conditions?.find((c) => c.type === "PodReadyToStartContainers")?.status;
    assert.equal(ready(), "True");
    runtime.exit(runtime.current("app")!.id, exitCode);
    await tick(clock);
    await tick(clock);
    await tick(clock);
    const status = agent.getPod("default", "done").status!;
    assert.equal(status.phase, phase);
    assert.equal(ready(), "False");
    assert.equal(runtime.sandboxes.get(sandboxId)?.state, "notready", "the sandbox is stopped");
    assert.equal(runtime.calls.filter((c) => c === `stopPodSandbox ${sandboxId}`).length, 1, "and stopped once");
    assert.ok(!runtime.calls.some((c) => c.startsWith("removePodSandbox")), "but kept until the pod is deleted");
    assert.equal(runtime.calls.filter((c) => c.startsWith("runPodSandbox")).length, 1, "no new sandbox for a terminal pod");
    assert.equal(status.containerStatuses?.[0]?.state?.terminated?.exitCode, exitCode, "the container status is kept");
    await agent.close();
  });
}

test("a running pod keeps its sandbox and PodReadyToStartContainers True", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  agent.admit(pod("up", "Always"), "api");
  await tick(clock);
  runtime.exit(runtime.current("app")!.id, 0);
  await tick(clock);
  await tick(clock);
  assert.equal(agent.getPod("default", "up").status?.phase, "Running");
  assert.ok(!runtime.calls.some((c) => c.startsWith("stopPodSandbox")));
  assert.equal(agent.getPod("default", "up").status?.conditions?.find((c) => c.type === "PodReadyToStartContainers")?.status, "True");
  await agent.close();
});

test("a finished pod restored by the next agent on an empty runtime keeps its final status and gets no new sandbox", async () => {
  const stateDir = await mkdtemp(join(tmpdir(), "probelet-terminal-"));
  try {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const firstRuntime = new FakeRuntime(clock);
    const first = new Agent({ api: startLocalApiServer(clock), runtime: firstRuntime, stateDir, clock });
    first.start();
    first.admit(pod("job", "Never"), "api");
    await tick(clock);
    firstRuntime.exit(firstRuntime.current("app")!.id, 3);
    await tick(clock);
    await tick(clock);
    const final = first.getPod("default", "job").status!;
    assert.equal(final.phase, "Failed");
    await first.close();
    const runtime = new FakeRuntime(clock);
    const second = new Agent({ api: startLocalApiServer(clock), runtime, stateDir, clock });
    await second.restore();
    second.start();
    await tick(clock);
    await tick(clock);
    const status = second.getPod("default", "job").status!;
    assert.equal(status.phase, "Failed");
    assert.equal(status.containerStatuses?.[0]?.state?.terminated?.exitCode, 3, "the terminated state is kept, not rebuilt as waiting");
    assert.ok(!runtime.calls.some((c) => c.startsWith("runPodSandbox")), runtime.calls.join("\n"));
    await second.close();
  } finally {
    await rm(stateDir, { recursive: true, force: true });
  }
});
