// The pod lifecycle on the fake runtime: per-container restart policies and rules, sidecars when
// the pod completes, termination order and grace, and the final status of a deleted pod.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Container, Pod, PodPhase } from "../api/types.js";
import { FakeClock, tick } from "../../test/fakes/fake-clock.js";
import { startAgentOnFakes } from "../../test/fakes/fake-agent.js";
import { FakeRuntime } from "../../test/fakes/fake-runtime.js";
import { Agent } from "./agent.js";
import type { WatchEvent } from "../apiserver/endpoints/host-interface.js";
import { startLocalApiServer } from "../apiserver/local-api-server.js";

function pod(name: string, containers: Container[], extra: Partial<Pod["spec"]> = {}): Pod {
  return { metadata: { name, namespace: "default" }, spec: { containers, ...extra } };
}

const phase = (agent: Agent, name: string): PodPhase | undefined => agent.getPod("default", name).status?.phase;
const events = (agent: Agent): string[] => agent.listEvents("default").map((e) => `${e.reason} ${e.message}`);

/** phasesSeen records every phase the pod's watch events carry, in order, without repeats. */
function phasesSeen(agent: Agent, name: string): string[] {
  const seen: string[] = [];
  agent.watchPods((e) => {
    const p = e.object.status?.phase ?? "";
    if (e.object.metadata.name === name && seen.at(-1) !== p) seen.push(p);
  });
  return seen;
}

test("pod Never with a container Always that exits 1 restarts it and stays Running", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  agent.admit(pod("c-always", [{ name: "app", image: "img", command: ["app"], restartPolicy: "Always" }], { restartPolicy: "Never" }), "api");
  const seen = phasesSeen(agent, "c-always");
  await tick(clock);
  runtime.exit(runtime.current("app")!.id, 1);
  await tick(clock);
  await tick(clock);
  assert.equal(runtime.current("app")!.attempt, 1);
  runtime.exit(runtime.current("app")!.id, 1);
  await tick(clock);
  // The second exit waits out the back-off; the sync that decides it shows the container
  // terminated (kubelet.go SyncPod stores the status before the reasonCache learns CrashLoopBackOff).
  assert.ok(agent.getPod("default", "c-always").status?.containerStatuses?.[0]?.state?.terminated, "the second exit waits out the back-off");
  assert.equal(runtime.current("app")!.attempt, 1);
  assert.equal(phase(agent, "c-always"), "Running");
  assert.ok(!seen.includes("Failed"), seen.join(","));
  await agent.close();
});

test("pod Never with a container Always that exits 0 restarts it and never shows Failed or Succeeded", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  agent.admit(pod("c-always0", [{ name: "app", image: "img", command: ["app"], restartPolicy: "Always" }], { restartPolicy: "Never" }), "api");
  const seen = phasesSeen(agent, "c-always0");
  await tick(clock);
  runtime.exit(runtime.current("app")!.id, 0);
  await tick(clock);
  await tick(clock);
  assert.equal(runtime.current("app")!.attempt, 1);
  runtime.exit(runtime.current("app")!.id, 0);
  await tick(clock);
  // The second exit waits out the back-off; the sync that decides it shows the container
  // terminated (kubelet.go SyncPod stores the status before the reasonCache learns CrashLoopBackOff).
  assert.ok(agent.getPod("default", "c-always0").status?.containerStatuses?.[0]?.state?.terminated, "the second exit waits out the back-off");
  assert.equal(runtime.current("app")!.attempt, 1);
  assert.equal(phase(agent, "c-always0"), "Running");
  assert.deepEqual(seen.filter((p) => p === "Failed" || p === "Succeeded"), []);
  await agent.close();
});

test("pod Always with a container Never that exits 1 goes Failed, is not restarted, and stays Failed", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  agent.admit(pod("c-never", [{ name: "app", image: "img", command: ["app"], restartPolicy: "Never" }], { restartPolicy: "Always" }), "api");
  await tick(clock);
  runtime.exit(runtime.current("app")!.id, 1);
  for (let i = 0; i < 3; i++) await tick(clock);
  assert.equal(phase(agent, "c-never"), "Failed");
  assert.equal(runtime.current("app")!.attempt, 0);
  await agent.close();
});

test("restartPolicyRules: exit code 42 matches the Restart rule and restarts; exit 1 falls back to Never and fails the pod", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  const app: Container = { name: "app", image: "img", command: ["app"], restartPolicy: "Never", restartPolicyRules: [{ action: "Restart", exitCodes: { operator: "In", values: [42] } }] };
  agent.admit(pod("rules", [app], { restartPolicy: "Never" }), "api");
  await tick(clock);
  runtime.exit(runtime.current("app")!.id, 42);
  await tick(clock);
  await tick(clock);
  assert.equal(runtime.current("app")!.attempt, 1, "restarted by the rule");
  assert.equal(phase(agent, "rules"), "Running");
  runtime.exit(runtime.current("app")!.id, 1);
  for (let i = 0; i < 3; i++) await tick(clock);
  assert.equal(runtime.current("app")!.attempt, 1, "exit 1 matches no rule: not restarted");
  assert.equal(phase(agent, "rules"), "Failed");
  await agent.close();
});

test("an init container whose own restartPolicy is Never fails the pod Always on exit 1; nothing else starts", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  agent.admit(pod("init-never", [{ name: "app", image: "img", command: ["app"] }], { restartPolicy: "Always", initContainers: [{ name: "setup", image: "img", command: ["setup"], restartPolicy: "Never" }] }), "api");
  await tick(clock);
  runtime.exit(runtime.current("setup")!.id, 1);
  for (let i = 0; i < 3; i++) await tick(clock);
  assert.equal(phase(agent, "init-never"), "Failed");
  assert.equal(runtime.current("setup")!.attempt, 0);
  assert.equal(runtime.current("app"), undefined);
  await agent.close();
});

test("a liveness kill of a container that will not restart says so (no \", will be restarted\") and the pod fails", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  runtime.execExit.set("app", 1);
  const livenessProbe = { exec: { command: ["check"] }, periodSeconds: 1, failureThreshold: 1 };
  agent.admit(pod("probe-never", [{ name: "app", image: "img", command: ["app"], restartPolicy: "Never", livenessProbe }], { restartPolicy: "Always", terminationGracePeriodSeconds: 3 }), "api");
  for (let i = 0; i < 5; i++) await tick(clock);
  assert.ok(events(agent).includes("Killing Container app failed liveness probe"), events(agent).join("\n"));
  assert.equal(runtime.current("app")!.attempt, 0);
  assert.equal(phase(agent, "probe-never"), "Failed");
  await agent.close();
});

test("sidecars stop in the same sync once no regular container will run again, in reverse order; the pod stays Running until they have stopped", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  const sidecars: Container[] = [
    { name: "side-a", image: "img", command: ["a"], restartPolicy: "Always" },
    { name: "side-b", image: "img", command: ["b"], restartPolicy: "Always" },
  ];
  agent.admit(pod("done", [{ name: "app", image: "img", command: ["app"] }], { restartPolicy: "Never", initContainers: sidecars, terminationGracePeriodSeconds: 30 }), "api");
  for (let i = 0; i < 3; i++) await tick(clock);
  assert.equal(runtime.current("app")?.state, "running");
  runtime.stopDelayMs = 4000;
  const stopsBefore = runtime.calls.length;
  runtime.exit(runtime.current("app")!.id, 0);
  await tick(clock);
  assert.deepEqual(runtime.calls.slice(stopsBefore).filter((c) => c.startsWith("stop ")), ["stop side-b#0 grace=30"], "side-b first; side-a waits for it");
  assert.equal(phase(agent, "done"), "Running", "a sidecar still runs");
  for (let i = 0; i < 9; i++) await tick(clock);
  assert.deepEqual(runtime.calls.slice(stopsBefore).filter((c) => c.startsWith("stop ")), ["stop side-b#0 grace=30", "stop side-a#0 grace=26"]);
  assert.equal(runtime.current("side-a")!.state, "exited");
  assert.equal(phase(agent, "done"), "Succeeded");
  assert.equal(runtime.current("side-a")!.attempt, 0, "sidecars are not restarted once the pod is done");
  await agent.close();
});

test("deleting a pod with a sidecar takes one grace period: the sidecar waits for the regular container and gets what is left, at least 2 s", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  agent.admit(pod("graceful", [{ name: "app", image: "img", command: ["app"] }], { initContainers: [{ name: "side", image: "img", command: ["s"], restartPolicy: "Always" }], terminationGracePeriodSeconds: 10 }), "api");
  for (let i = 0; i < 3; i++) await tick(clock);
  runtime.stopDelayMs = 60_000; // every container ignores SIGTERM: each stop lasts its whole grace period
  const started = clock.now();
  let goneAt: number | undefined;
  void agent.deletePodAndWait("default", "graceful").then(() => (goneAt = clock.now()));
  // Small steps, each after a few real milliseconds: a step taken before the deletion's file I/O
  // settled would count against the grace period (a loaded machine took 12.8 s of fake time).
  for (let i = 0; i < 300 && goneAt === undefined; i++) {
    await tick(clock, 100);
    await new Promise((resolve) => setTimeout(resolve, 3));
  }
  assert.ok(goneAt !== undefined, "the pod was not deleted within 30 s of fake time");
  assert.ok(runtime.calls.includes("stop app#0 grace=10"), runtime.calls.join(", "));
  assert.ok(runtime.calls.includes("stop side#0 grace=2"), runtime.calls.join(", "));
  // One grace period (10 s) and the sidecar's floor (2 s), with a step's slack; two would be 20 s.
  assert.ok(goneAt - started <= 13_000, `deletion took ${goneAt - started} ms`);
  await agent.close();
});

test("a deleted pod's final status is published before it goes: MODIFIED with terminated containers, a terminal phase and Ready False, then DELETED", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  runtime.stopExitCode = 143;
  agent.admit(pod("final", [{ name: "app", image: "img", command: ["app"] }, { name: "done", image: "img", command: ["d"] }], { terminationGracePeriodSeconds: 5 }), "api");
  await tick(clock);
  const seen: WatchEvent<Pod>[] = [];
  agent.watchPods((e) => seen.push(e));
  await agent.deletePodAndWait("default", "final");
  const last = seen.at(-1)!;
  const final = seen.at(-2)!;
  assert.equal(last.type, "DELETED");
  assert.equal(final.type, "MODIFIED");
  const status = final.object.status!;
  assert.equal(status.phase, "Failed");
  assert.deepEqual(status.containerStatuses?.map((c) => [c.name, c.state?.terminated?.exitCode, c.state?.terminated?.reason, c.ready]), [
    ["app", 143, "Error", false],
    ["done", 143, "Error", false],
  ]);
  assert.equal(status.conditions?.find((c) => c.type === "Ready")?.status, "False");
  assert.equal(status.conditions?.find((c) => c.type === "Ready")?.reason, "PodFailed");
  assert.ok(final.object.metadata.deletionTimestamp);
  await agent.close();
});

test("a deleted pod whose containers all exit 0 on SIGTERM ends Succeeded", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  runtime.stopExitCode = 0;
  agent.admit(pod("clean", [{ name: "app", image: "img", command: ["app"] }]), "api");
  await tick(clock);
  const seen: WatchEvent<Pod>[] = [];
  agent.watchPods((e) => seen.push(e));
  await agent.deletePodAndWait("default", "clean", 1);
  assert.equal(seen.at(-2)?.object.status?.phase, "Succeeded");
  assert.equal(seen.at(-1)?.type, "DELETED");
  await agent.close();
});

test("an agent shutdown does not save the final status of the pods it stops: the next agent runs the API pod again", async () => {
  const stateDir = await mkdtemp(join(tmpdir(), "probelet-lifecycle-"));
  try {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const first = new Agent({ api: startLocalApiServer(clock), runtime: new FakeRuntime(clock), stateDir, clock });
    first.start();
    first.admit(pod("kept", [{ name: "app", image: "img", command: ["app"] }]), "api");
    await tick(clock);
    assert.equal(phase(first, "kept"), "Running");
    await first.close();
    const runtime = new FakeRuntime(clock);
    const second = new Agent({ api: startLocalApiServer(clock), runtime, stateDir, clock });
    await second.restore();
    second.start();
    // The restore reads the state directory with real I/O: give it a bounded number of ticks.
    for (let i = 0; i < 20 && runtime.current("app")?.state !== "running"; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      await tick(clock);
    }
    assert.equal(runtime.current("app")?.state, "running");
    assert.equal(phase(second, "kept"), "Running");
    await second.close();
  } finally {
    await rm(stateDir, { recursive: true, force: true });
  }
});

test("a liveness kill announced \", will be restarted\" (a Restart rule makes the container restartable) restarts it even though the kill's exit code matches no rule", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  runtime.execExit.set("app", 1);
  const livenessProbe = { exec: { command: ["check"] }, periodSeconds: 1, failureThreshold: 1 };
  const app: Container = { name: "app", image: "img", command: ["app"], restartPolicy: "Never", restartPolicyRules: [{ action: "Restart", exitCodes: { operator: "In", values: [42] } }], livenessProbe };
  agent.admit(pod("probe-rule", [app], { restartPolicy: "Never", terminationGracePeriodSeconds: 3 }), "api");
  for (let i = 0; i < 5; i++) await tick(clock);
  assert.ok(events(agent).includes("Killing Container app failed liveness probe, will be restarted"), events(agent).join("\n"));
  assert.ok(runtime.current("app")!.attempt >= 1, "started again after the kill (exit 137)");
  await agent.close();
});

test("kubernetes#137146: after an agent restart, a crashed main container of a pod whose started sidecar has a startupProbe is restarted", async () => {
  const stateDir = await mkdtemp(join(tmpdir(), "probelet-sidecar-restart-"));
  try {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const runtime = new FakeRuntime(clock);
    const first = new Agent({ api: startLocalApiServer(clock), runtime, stateDir, clock });
    first.start();
    const sidecar: Container = { name: "proxy", image: "img", command: ["proxy"], restartPolicy: "Always", startupProbe: { exec: { command: ["ok"] }, periodSeconds: 1 } };
    first.admit(pod("with-sidecar", [{ name: "app", image: "img", command: ["app"] }], { initContainers: [sidecar] }), "api");
    for (let i = 0; i < 5; i++) await tick(clock);
    assert.equal(runtime.current("app")?.state, "running", "the main container started after the sidecar's startup probe");
    await first.detach();
    // The sidecar started more than 10 s before the next agent: its probe state survives the restart.
    await clock.advance(60_000);
    const second = new Agent({ api: startLocalApiServer(clock), runtime, stateDir, clock });
    await second.restore();
    second.start();
    await tick(clock);
    runtime.exit(runtime.current("app")!.id, 1);
    for (let i = 0; i < 5; i++) await tick(clock);
    assert.equal(runtime.current("app")!.attempt, 1, runtime.calls.join("\n"));
    assert.equal(second.getPod("default", "with-sidecar").status?.containerStatuses?.[0]?.restartCount, 1);
    await second.close(0);
  } finally {
    await rm(stateDir, { recursive: true, force: true });
  }
});

test("[case 226] TestSyncPodWithRestartAllContainers (KEP-5532): an exit matching the rule resets the pod in place — AllContainersRestarting True, running containers killed without grace, every container removed, the init container run again, then all containers", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  const conditions: string[] = [];
  const states: string[] = [];
  agent.watchPods((e) => {
    if (e.object.metadata.name !== "reset") return;
    const c = e.object.status?.conditions?.find((x) => x.type === "AllContainersRestarting");
    const line = c ? `${c.status}${c.reason ? `/${c.reason}` : ""}${c.message ? `: ${c.message}` : ""}` : "";
    if (line !== "" && conditions.at(-1) !== line) conditions.push(line);
    const app = e.object.status?.containerStatuses?.find((x) => x.name === "app");
    const state = app?.state?.waiting ? `waiting:${app.state.waiting.reason}` : app?.state?.running ? "running" : app?.state?.terminated ? "terminated" : "";
    const initialized = e.object.status?.conditions?.find((x) => x.type === "Initialized")?.status ?? "";
    const line2 = `${e.object.status?.phase} init=${initialized} app=${state} restarts=${app?.restartCount ?? 0}`;
    if (states.at(-1) !== line2) states.push(line2);
  });
  const trigger: Container = { name: "trigger", image: "img", command: ["t"], restartPolicy: "Never", restartPolicyRules: [{ action: "RestartAllContainers", exitCodes: { operator: "In", values: [42] } }] };
  agent.admit(pod("reset", [{ name: "app", image: "img", command: ["app"] }, trigger], { initContainers: [{ name: "setup", image: "img", command: ["setup"] }] }), "api");
  await tick(clock);
  runtime.exit(runtime.current("setup")!.id, 0);
  for (let i = 0; i < 3; i++) await tick(clock);
  assert.equal(runtime.current("app")?.state, "running");
  const before = runtime.calls.length;
  runtime.exit(runtime.current("trigger")!.id, 42);
  for (let i = 0; i < 5; i++) await tick(clock);
  const calls = runtime.calls.slice(before);
  // The running app is killed without grace and removed first, then the init container, then the trigger (removed last).
  assert.deepEqual(calls.filter((c) => /^(stop|remove) /.test(c)), ["stop app#0 grace=0", "remove app#0", "remove setup#0", "remove trigger#0"]);
  // (The new instance's attempt comes from the log directory, which the fake runtime does not write.)
  assert.ok(calls.findIndex((c) => c.startsWith("start setup#")) > calls.indexOf("remove trigger#0"), calls.join("\n"));
  assert.ok(events(agent).includes("Killing killing"), events(agent).join("\n"));
  assert.deepEqual(conditions, ["False", "True/RestartAllContainersStarted: container exited with restart policy rule", "False"]);
  assert.ok(states.includes("Running init=True app=waiting:RestartingAllContainers restarts=1"), states.join("\n"));
  assert.ok(states.every((s) => !s.includes("init=False") || states.indexOf(s) < 2), `Initialized stays True once the pod was initialized:\n${states.join("\n")}`);
  const last = agent.getPod("default", "reset").status!.containerStatuses!.find((c) => c.name === "app")!;
  assert.deepEqual(last.lastState?.terminated?.reason, "RestartingAllContainers");
  runtime.exit(runtime.current("setup")!.id, 0);
  for (let i = 0; i < 3; i++) await tick(clock);
  assert.deepEqual([runtime.current("app")?.state, runtime.current("trigger")?.state], ["running", "running"]);
  assert.equal(agent.getPod("default", "reset").status?.phase, "Running");
  await agent.close();
});
