import { test } from "node:test";
import assert from "node:assert/strict";
import type { Container, Pod } from "../api/types.js";
import { tick } from "../../test/fakes/fake-clock.js";
import { startAgentOnFakes } from "../../test/fakes/fake-agent.js";
import { Agent } from "./agent.js";


function pod(name: string, containers: Container[], extra: Partial<Pod["spec"]> = {}): Pod {
  return { metadata: { name, namespace: "default" }, spec: { containers, ...extra } };
}

/** settle runs pending syncs: a few rounds of microtasks and one resync tick. */
const status = (agent: Agent, name: string) => agent.getPod("default", name).status!;
const eventStrings = (agent: Agent) => agent.listEvents("default").map((e) => `${e.type} ${e.reason} ${e.message}`);

test("agent starts a pod: sandbox, Pulling and Pulled (an untagged image defaults to pull policy Always), Created and Started events, Running and Ready", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  const admitted = agent.admit(pod("web", [{ name: "app", image: "img", command: ["app"] }]), "file:/m/web.yaml");
  assert.ok(admitted.ok);
  await tick(clock);
  const s = status(agent, "web");
  assert.equal(s.phase, "Running");
  assert.equal(s.containerStatuses?.[0]?.ready, true);
  assert.equal(s.containerStatuses?.[0]?.containerID, `fake://${runtime.current("app")!.id}`);
  assert.deepEqual(s.conditions?.map((c) => `${c.type}=${c.status}`), ["PodReadyToStartContainers=True", "Initialized=True", "Ready=True", "ContainersReady=True", "PodScheduled=True"]);
  // images/image_manager.go pullImage, kuberuntime_container.go startContainer, 1.37 texts.
  assert.deepEqual(eventStrings(agent), [
    'Normal Pulling Pulling image "img"',
    'Normal Pulled Successfully pulled image "img" in 0s (0s including waiting). Image size: 0 bytes.',
    "Normal Created Container created",
    "Normal Started Container started",
  ]);
  assert.deepEqual(runtime.pulls, ["web img:latest"]);
  await agent.close();
});

test("startContainer creates the container of the imageRef EnsureImageExists returned (pulled or present), with the spec's image beside it (kubelet generateContainerConfig)", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  runtime.absentImages.add("pulled:1");
  const containers = [
    { name: "pulled", image: "pulled:1", command: ["app"] },
    { name: "present", image: "present:1", command: ["app"] },
  ];
  assert.ok(agent.admit(pod("refs", containers), "api").ok);
  await tick(clock);
  assert.deepEqual(runtime.pulls, ["refs pulled:1"]);
  for (const name of ["pulled", "present"]) {
    const config = runtime.configs.get(name);
    assert.equal(config?.image, `${name}:1`);
    assert.equal(config?.imageRef, `sha256:${name}:1`);
  }
  await agent.close();
});

test("EnsureImageExists: a present image is Pulled 'already present on machine and can be accessed by the pod' before Created, with pull policy IfNotPresent or Never; with Always it is pulled", async () => {
  const { clock, agent } = startAgentOnFakes();
  const containers = [
    { name: "tagged", image: "busybox:1.36", command: ["app"] },
    { name: "never", image: "busybox:1.36", imagePullPolicy: "Never", command: ["app"] },
    { name: "always", image: "busybox:1.36", imagePullPolicy: "Always", command: ["app"] },
  ];
  assert.ok(agent.admit(pod("images", containers), "api").ok);
  await tick(clock);
  const byContainer = (name: string) =>
    agent.listEvents("default").filter((e) => e.involvedObject.fieldPath === `spec.containers{${name}}`).map((e) => `${e.reason} ${e.message}`);
  const pulled = 'Pulled Container image "busybox:1.36" already present on machine and can be accessed by the pod';
  assert.deepEqual(byContainer("tagged"), [pulled, "Created Container created", "Started Container started"]);
  assert.deepEqual(byContainer("never"), [pulled, "Created Container created", "Started Container started"]);
  assert.deepEqual(byContainer("always"), [
    'Pulling Pulling image "busybox:1.36"',
    'Pulled Successfully pulled image "busybox:1.36" in 0s (0s including waiting). Image size: 0 bytes.',
    "Created Container created",
    "Started Container started",
  ]);
  await agent.close();
});

test("agent rejects an invalid manifest with field-path errors and starts nothing", async () => {
  const { runtime, agent } = startAgentOnFakes();
  const result = agent.admit(pod("bad", [{ name: "app", image: "img", command: ["x"], livenessProbe: { exec: { command: ["true"] }, successThreshold: 2 } }]), "file:/m/bad.yaml");
  assert.equal(result.ok, false);
  assert.ok(!result.ok && result.errors.includes("spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1"));
  assert.equal(runtime.calls.length, 0);
  await agent.close();
});

test("restartPolicy Always: first restart at once, then a 10 s back-off with the kubelet's messages; CrashLoopBackOff shows from the next sync on (reasonCache after SyncPod)", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  agent.admit(pod("crash", [{ name: "app", image: "img", command: ["app"] }, { name: "other", image: "img", command: ["other"] }]), "api");
  await tick(clock);
  runtime.exit(runtime.current("app")!.id, 1);
  await tick(clock);
  assert.equal(runtime.current("app")!.attempt, 1, "first restart is immediate");
  assert.equal(status(agent, "crash").containerStatuses?.[0]?.restartCount, 1);
  runtime.exit(runtime.current("app")!.id, 1);
  await tick(clock);
  const uid = agent.getPod("default", "crash").metadata.uid;
  // kubelet.go SyncPod stores the status (generateAPIPodStatus) before kuberuntime's SyncPod
  // decides the back-off: the sync that holds the container back shows it terminated.
  let s = status(agent, "crash").containerStatuses![0]!;
  assert.equal(s.state?.terminated?.reason, "Error");
  assert.equal(s.lastState?.terminated?.exitCode, 1);
  assert.ok(eventStrings(agent).includes(`Warning BackOff Back-off restarting failed container app in pod crash_default(${uid})`));
  // Any later sync (here: the other container exits and is restarted) shows the reason cache's entry.
  runtime.exit(runtime.current("other")!.id, 0);
  await tick(clock);
  s = status(agent, "crash").containerStatuses![0]!;
  assert.equal(s.state?.waiting?.reason, "CrashLoopBackOff");
  assert.equal(s.state?.waiting?.message, `back-off 10s restarting failed container=app pod=crash_default(${uid})`);
  assert.equal(s.lastState?.terminated?.reason, "Error");
  for (let i = 0; i < 7; i++) await tick(clock);
  assert.equal(runtime.current("app")!.attempt, 1, "still backing off after 9 s");
  await tick(clock, 2000);
  assert.equal(runtime.current("app")!.attempt, 2, "restarted after the 10 s back-off");
  await agent.close();
});

test("pod_workers.go completeWork: the periodic resync leaves a pod held back by its back-off alone (its requeue syncs it), so it shows terminated, not CrashLoopBackOff, until the restart", async () => {
  const { clock, runtime, agent } = startAgentOnFakes({ fullResyncIntervalMs: 30_000 });
  agent.admit(pod("crash", [{ name: "app", image: "img", command: ["app"] }]), "api");
  await tick(clock);
  runtime.exit(runtime.current("app")!.id, 1);
  await tick(clock);
  runtime.exit(runtime.current("app")!.id, 1);
  for (let i = 0; i < 30 && runtime.current("app")!.attempt < 2; i++) await tick(clock);
  assert.equal(runtime.current("app")!.attempt, 2, "restarted after the 10 s back-off");
  // The third crash is held back 20 s, past the periodic resync at 30 s, which must not sync it.
  runtime.exit(runtime.current("app")!.id, 1);
  const crashedAt = clock.now();
  for (let i = 0; i < 30 && runtime.current("app")!.attempt < 3 && clock.now() < crashedAt + 18_000; i++) {
    await tick(clock);
    const s = status(agent, "crash").containerStatuses![0]!;
    assert.equal(s.state?.waiting, undefined, `synced during the back-off at ${(clock.now() - crashedAt) / 1000} s: ${JSON.stringify(s.state)}`);
  }
  assert.ok(clock.now() - crashedAt >= 18_000 - 1000, "a periodic resync fell in the back-off");
  for (let i = 0; i < 5 && runtime.current("app")!.attempt < 3; i++) await tick(clock);
  assert.equal(runtime.current("app")!.attempt, 3, "restarted when the back-off ended");
  await agent.close();
});

test("pod_workers.go completeWork: a held-back pod is synced again after its back-off stretched by the jitter (factor 0.5), so the restart comes between 1 and 1.5 back-offs after the crash", async () => {
  for (const [random, restartBy] of [[0, 10], [0.99, 15]] as const) {
    const { clock, runtime, agent } = startAgentOnFakes({ random: () => random });
    agent.admit(pod("crash", [{ name: "app", image: "img", command: ["app"] }]), "api");
    await tick(clock);
    runtime.exit(runtime.current("app")!.id, 1);
    await tick(clock);
    runtime.exit(runtime.current("app")!.id, 1);
    let seconds = 1;
    while (runtime.current("app")!.attempt === 1 && seconds < 30) {
      await tick(clock);
      seconds++;
    }
    assert.equal(runtime.current("app")!.attempt, 2);
    assert.ok(seconds >= restartBy && seconds <= restartBy + 1, `random ${random}: restarted ${seconds} s after the crash, expected ${restartBy}`);
    await agent.close();
  }
});

test("restartPolicy Never: exit 0 → Succeeded, exit 1 → Failed", async () => {
  for (const [code, phase] of [[0, "Succeeded"], [1, "Failed"]] as const) {
    const { clock, runtime, agent } = startAgentOnFakes();
    agent.admit(pod("once", [{ name: "app", image: "img", command: ["app"] }], { restartPolicy: "Never" }), "api");
    await tick(clock);
    runtime.exit(runtime.current("app")!.id, code);
    await tick(clock);
    await tick(clock);
    assert.equal(status(agent, "once").phase, phase);
    assert.equal(runtime.current("app")!.attempt, 0);
    await agent.close();
  }
});

test("liveness failure kills with the probe's grace period and restarts (kubelet messages)", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  runtime.execExit.set("app", 1);
  const liveness = { exec: { command: ["check"] }, periodSeconds: 1, failureThreshold: 1, terminationGracePeriodSeconds: 5 };
  agent.admit(pod("live", [{ name: "app", image: "img", command: ["app"], livenessProbe: liveness }], { terminationGracePeriodSeconds: 500 }), "api");
  for (let i = 0; i < 4; i++) await tick(clock);
  assert.ok(runtime.calls.includes("stop app#0 grace=5"), runtime.calls.join(", "));
  assert.ok(eventStrings(agent).includes("Warning Unhealthy Liveness probe failed: "));
  assert.ok(eventStrings(agent).includes("Normal Killing Container app failed liveness probe, will be restarted"));
  assert.ok(runtime.current("app")!.attempt >= 1);
  await agent.close();
});

test("[case 223] TestSyncPodNoEventsInSteadyState: once a pod runs, later syncs post no events", async () => {
  const { clock, agent } = startAgentOnFakes();
  assert.ok(agent.admit(pod("steady", [{ name: "foo1", image: "busybox", imagePullPolicy: "IfNotPresent", command: ["app"] }]), "api").ok);
  await tick(clock);
  const after = agent.listEvents("default").length;
  assert.ok(after > 0, "the first sync posts Pulled, Created and Started");
  for (let s = 0; s < 70; s++) await tick(clock);
  assert.deepEqual(agent.listEvents("default").slice(after).map((e) => `${e.reason} ${e.message}`), []);
  await agent.close();
});

test("doBackOff after a liveness kill reads the status from before the kill: runs of 11 s restart at once three times, then CrashLoopBackOff 20 s", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  runtime.execExit.set("app", 1);
  // Every instance fails its first liveness probe, 10-11 s after it started.
  const liveness = { exec: { command: ["check"] }, initialDelaySeconds: 10, periodSeconds: 1, failureThreshold: 1, terminationGracePeriodSeconds: 1 };
  agent.admit(pod("crashy", [{ name: "app", image: "img", command: ["app"], livenessProbe: liveness }]), "api");
  const started = new Map<number, number>();
  const finished = new Map<number, number>();
  for (let s = 0; s < 80; s++) {
    await tick(clock);
    for (const c of runtime.containers.values()) {
      if (c.startedAt > 0 && !started.has(c.attempt)) started.set(c.attempt, c.startedAt);
      if (c.state === "exited" && !finished.has(c.attempt)) finished.set(c.attempt, c.finishedAt);
    }
  }
  // kubelet: the 1st kill finds no earlier exited instance (no back-off); the 2nd measures from the
  // 1st kill (11 s ago, no entry yet: back-off 10 s recorded); the 3rd from the 2nd kill (11 s ≥ 10 s:
  // back-off 20 s); the 4th from the 3rd kill (11 s < 20 s): CrashLoopBackOff until 20 s after the 4th kill.
  for (const attempt of [1, 2, 3]) {
    assert.ok(started.get(attempt)! - finished.get(attempt - 1)! <= 1000, `attempt ${attempt} started ${started.get(attempt)! - finished.get(attempt - 1)!} ms after the kill`);
  }
  assert.equal(started.get(4)! - finished.get(3)!, 20_000);
  const backOff = agent.listEvents("default").find((e) => e.reason === "BackOff");
  assert.ok(backOff, "a BackOff event");
  await agent.close();
});

test("readiness drives Ready and ContainersReady with the kubelet's reasons", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  runtime.execExit.set("app", 1);
  agent.admit(pod("ready", [{ name: "app", image: "img", command: ["app"], readinessProbe: { exec: { command: ["check"] }, periodSeconds: 1, failureThreshold: 1 } }]), "api");
  for (let i = 0; i < 3; i++) await tick(clock);
  let ready = status(agent, "ready").conditions!.find((c) => c.type === "Ready")!;
  assert.deepEqual([ready.status, ready.reason, ready.message], ["False", "ContainersNotReady", "containers with unready status: [app]"]);
  runtime.execExit.set("app", 0);
  for (let i = 0; i < 3; i++) await tick(clock);
  ready = status(agent, "ready").conditions!.find((c) => c.type === "Ready")!;
  assert.equal(ready.status, "True");
  await agent.close();
});

test("init containers run in order before regular containers", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  agent.admit(pod("init", [{ name: "app", image: "img", command: ["app"] }], { initContainers: [{ name: "setup", image: "img", command: ["setup"] }] }), "api");
  await tick(clock);
  assert.equal(runtime.current("app"), undefined);
  assert.equal(status(agent, "init").phase, "Pending");
  assert.equal(status(agent, "init").conditions!.find((c) => c.type === "Initialized")!.status, "False");
  runtime.exit(runtime.current("setup")!.id, 0);
  await tick(clock);
  assert.equal(runtime.current("app")?.state, "running");
  assert.equal(status(agent, "init").conditions!.find((c) => c.type === "Initialized")!.status, "True");
  await agent.close();
});

test("a failing start shows RunContainerError, then backs off", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  runtime.failStart.add("app");
  agent.admit(pod("nostart", [{ name: "app", image: "img", command: ["nosuch"] }]), "api");
  await tick(clock);
  const waiting = status(agent, "nostart").containerStatuses![0]!.state?.waiting;
  assert.ok(waiting?.reason === "RunContainerError" || waiting?.reason === "CrashLoopBackOff", JSON.stringify(waiting));
  assert.ok(eventStrings(agent).some((e) => e.startsWith('Warning Failed Error: exec: "app": executable file not found')));
  await agent.close();
});

test("deletion stops containers with the pod's grace, then removes the pod (DELETED)", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  agent.admit(pod("gone", [{ name: "app", image: "img", command: ["app"] }], { terminationGracePeriodSeconds: 7 }), "api");
  await tick(clock);
  const seen: string[] = [];
  agent.watchPods((e) => seen.push(e.type));
  await agent.deletePodAndWait("default", "gone");
  assert.ok(runtime.calls.includes("stop app#0 grace=7"));
  assert.ok(eventStrings(agent).includes("Normal Killing Stopping container app"));
  assert.throws(() => agent.getPod("default", "gone"), /pods "gone" not found/);
  assert.equal(seen.at(-1), "DELETED");
  assert.equal(agent.probeManager.workerCount(), 0);
  await agent.close();
});

test("activeDeadlineSeconds: past the deadline the pod is Failed with DeadlineExceeded, an event says so, and its container is stopped", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  agent.admit(pod("deadline", [{ name: "app", image: "img", command: ["app"] }], { activeDeadlineSeconds: 3 }), "api");
  await tick(clock);
  assert.equal(status(agent, "deadline").phase, "Running");
  await tick(clock);
  assert.equal(status(agent, "deadline").phase, "Running", "2 s in: within the deadline");
  for (let i = 0; i < 3 && status(agent, "deadline").phase === "Running"; i++) await tick(clock);
  const s = status(agent, "deadline");
  assert.deepEqual([s.phase, s.reason, s.message], ["Failed", "DeadlineExceeded", "Pod was active on the node longer than the specified deadline"]);
  assert.ok(eventStrings(agent).includes("Normal DeadlineExceeded Pod was active on the node longer than the specified deadline"), eventStrings(agent).join("\n"));
  await tick(clock);
  assert.equal(runtime.current("app")!.state, "exited", "the container was stopped");
  assert.equal(status(agent, "deadline").reason, "DeadlineExceeded", "the final status keeps the reason");
  await agent.close();
});

test("a container runs with the pod's fsGroup and supplementalGroups as supplemental groups, and readOnlyRootFilesystem", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  agent.admit(pod("groups", [{ name: "app", image: "img", command: ["app"], securityContext: { readOnlyRootFilesystem: true } }], { securityContext: { runAsUser: 1000, fsGroup: 2000, supplementalGroups: [5, 6] } }), "api");
  await tick(clock);
  const config = runtime.configs.get("app")!;
  assert.deepEqual(config.security?.supplementalGroups, [2000, 5, 6]);
  assert.equal(config.security?.readonlyRootfs, true);
  await agent.close();
});

test("an ephemeral container added to a running pod starts once, has its own status list, is never restarted, and stops with the pod", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  agent.admit(pod("debug-me", [{ name: "app", image: "img", command: ["app"] }]), "api");
  await tick(clock);
  const stored = agent.getPod("default", "debug-me");
  agent.store.modify<Pod>("pods", "default", "debug-me", (p) => ({ ...p, spec: { ...p.spec, ephemeralContainers: [{ name: "debugger", image: "busybox", command: ["sh"], terminationMessagePolicy: "File" }] } }), { uid: stored.metadata.uid ?? "" });
  await tick(clock);
  const s = status(agent, "debug-me");
  assert.equal(s.ephemeralContainerStatuses?.[0]?.name, "debugger");
  assert.ok(s.ephemeralContainerStatuses?.[0]?.state?.running, JSON.stringify(s.ephemeralContainerStatuses));
  assert.equal(s.ephemeralContainerStatuses?.[0]?.ready, false);
  assert.deepEqual(s.containerStatuses?.map((c) => c.name), ["app"], "not among the regular containers");
  runtime.exit(runtime.current("debugger")!.id, 1);
  await tick(clock);
  await tick(clock);
  assert.equal(runtime.current("debugger")!.attempt, 0, "never restarted");
  assert.equal(status(agent, "debug-me").ephemeralContainerStatuses?.[0]?.state?.terminated?.exitCode, 1);
  await agent.close();
});

test("a RestartNever pod whose second init container fails ends Failed with only that one incomplete", async () => {
  const { clock, runtime, agent } = startAgentOnFakes();
  agent.admit(pod("initfail", [{ name: "run1", image: "img", command: ["run"] }], { restartPolicy: "Never", initContainers: [{ name: "init1", image: "img", command: ["true"] }, { name: "init2", image: "img", command: ["false"] }] }), "api");
  await tick(clock);
  runtime.exit(runtime.current("init1")!.id, 0);
  await tick(clock);
  runtime.exit(runtime.current("init2")!.id, 1);
  for (let i = 0; i < 3; i++) await tick(clock);
  const s = status(agent, "initfail");
  assert.equal(s.phase, "Failed");
  const initialized = s.conditions!.find((c) => c.type === "Initialized")!;
  assert.deepEqual([initialized.status, initialized.reason, initialized.message], ["False", "ContainersNotInitialized", "containers with incomplete status: [init2]"], JSON.stringify(s.initContainerStatuses));
  assert.ok(s.containerStatuses![0]!.state?.waiting, "the app container never ran");
  await agent.close();
});

test("pod_workers.go completeWork: the work queue keeps one time per pod, so a later sync's requeue replaces an earlier one (a sync during a back-off moves the restart to its own jittered time)", async () => {
  let draws = 0;
  // The first requeue draws no jitter, every later one nearly the most (factor 0.5).
  const { clock, runtime, agent } = startAgentOnFakes({ random: () => (draws++ === 0 ? 0 : 0.99) });
  agent.admit(pod("crash", [{ name: "app", image: "img", command: ["app"] }]), "api");
  await tick(clock);
  runtime.exit(runtime.current("app")!.id, 1);
  await tick(clock);
  assert.equal(runtime.current("app")!.attempt, 1, "the first crash restarts at once");
  draws = 0;
  runtime.exit(runtime.current("app")!.id, 1);
  const crashedAt = clock.now();
  await tick(clock);
  await tick(clock);
  // A metadata change syncs the pod 2 s into its 10 s back-off: 8 s remain, stretched to 11.96 s.
  agent.store.modify<Pod>("pods", "default", "crash", (p) => ({ ...p, metadata: { ...p.metadata, labels: { touched: "yes" } } }));
  while (runtime.current("app")!.attempt === 1 && clock.now() - crashedAt < 30_000) await tick(clock);
  const seconds = (clock.now() - crashedAt) / 1000;
  assert.equal(runtime.current("app")!.attempt, 2);
  assert.ok(seconds >= 13 && seconds <= 16, `restarted ${seconds} s after the crash: the first requeue (10 s) was not replaced by the later sync's (about 14 s)`);
  await agent.close();
});
