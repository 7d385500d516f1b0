// "Probe now" (the kubelet's manual trigger) and the container instance log, through an agent on
// a fake runtime and a fake clock.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Pod } from "../api/types.js";
import { flushMicrotasks } from "../../test/fakes/fake-clock.js";
import { admitRunning, startAgentOnFakes } from "../../test/fakes/fake-agent.js";
import { ApiError } from "../apiserver/endpoints/host-interface.js";

const pod: Pod = {
  metadata: { name: "p", namespace: "default" },
  spec: {
    containers: [
      { name: "app", image: "app", command: ["app"], livenessProbe: { exec: { command: ["check"] }, periodSeconds: 60, failureThreshold: 3 } },
      { name: "side", image: "side", command: ["side"] },
    ],
  },
};

const apiError = (reason: string, message: RegExp) => (err: unknown) => err instanceof ApiError && err.reason === reason && message.test(err.message);

test("probe now runs the probe at once, between ticks, and answers its history entry; it counts toward the threshold", async (t) => {
  const { clock, runtime, agent } = startAgentOnFakes();
  t.after(() => agent.close());
  await admitRunning(agent, clock, pod);
  await clock.advance(61_000); // past the start jitter: the first probe has run, the next tick is a minute away
  await flushMicrotasks(50);
  const before = agent.probeHistory("default", "p").length;
  assert.equal(before, 1);
  runtime.execExit.set("app", 1);
  const answer = agent.triggerProbe("default", "p", undefined, "liveness");
  await flushMicrotasks(50);
  const entry = await answer;
  assert.equal(entry.result, "Failure");
  assert.equal(entry.container, "app");
  assert.deepEqual([entry.run, entry.threshold], [1, 3]);
  assert.equal(agent.probeHistory("default", "p").length, before + 1, "the triggered probe is in the history");
});

test("probe now refuses a probe the pod does not have (404), and a container that is not running (409 saying why)", async (t) => {
  const { clock, runtime, agent } = startAgentOnFakes();
  t.after(() => agent.close());
  await admitRunning(agent, clock, pod);
  await assert.rejects(agent.triggerProbe("default", "p", undefined, "readiness"), apiError("NotFound", /pod "p" has no readiness probe/));
  await assert.rejects(agent.triggerProbe("default", "p", "side", "liveness"), apiError("NotFound", /container "side" of pod "p" has no liveness probe/));
  await assert.rejects(agent.triggerProbe("default", "gone", undefined, "liveness"), apiError("NotFound", /pods "gone" not found/));
  // The first crash restarts at once, the second waits out the 10 s back-off.
  for (let crash = 0; crash < 2; crash++) {
    runtime.exit(runtime.current("app")!.id, 1);
    await clock.advance(1000);
    await flushMicrotasks(50);
  }
  // The sync that holds the container back stores it terminated (the kubelet's reasonCache learns
  // CrashLoopBackOff after that SyncPod), so the refusal names its last state.
  await assert.rejects(agent.triggerProbe("default", "p", "app", "liveness"), apiError("Conflict", /cannot probe now: container "app" is not running \(Error\)/));
});

test("the instance log keeps every run of a container: the crashed one with its exit, the restarted one running", async (t) => {
  const { clock, runtime, agent } = startAgentOnFakes();
  t.after(() => agent.close());
  await admitRunning(agent, clock, pod);
  const first = runtime.current("app")!.id;
  runtime.exit(first, 1);
  await clock.advance(1000); // the first crash restarts at once
  await flushMicrotasks(50);
  const app = agent.containerInstances("default", "p").filter((i) => i.container === "app");
  assert.equal(app.length, 2, JSON.stringify(app));
  assert.equal(app[0]!.containerID, `fake://${first}`);
  assert.equal(app[0]!.exitCode, 1);
  assert.equal(app[0]!.reason, "Error");
  assert.ok(app[0]!.finishedAt);
  assert.equal(app[1]!.finishedAt, undefined, "the new instance runs");
  assert.ok(Date.parse(app[1]!.startedAt!) >= Date.parse(app[0]!.finishedAt!));
  assert.equal(agent.containerInstances("default", "p").filter((i) => i.container === "side").length, 1);
});

test("probe now reaches a static pod's probes through its mirror (a manifest pod: the workers run under the static pod's UID)", async (t) => {
  const { clock, agent } = startAgentOnFakes();
  t.after(() => agent.close());
  const admitted = agent.admit(pod, "file:/srv/p.yaml");
  assert.ok(admitted.ok);
  await clock.advance(61_000);
  await flushMicrotasks(50);
  const answer = agent.triggerProbe("default", "p", "app", "liveness");
  await flushMicrotasks(50);
  const entry = await answer;
  assert.equal(entry.result, "Success");
  assert.equal(entry.container, "app");
});
