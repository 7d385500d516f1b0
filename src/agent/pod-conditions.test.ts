// A condition the kubelet does not own, written into the API's pod through pods/status (a
// readiness gate's), is kept by the agent's status writes and counts for Ready, as with the kubelet.
import assert from "node:assert/strict";
import { test } from "node:test";
import { flushMicrotasks } from "../../test/fakes/fake-clock.js";
import { admitRunning, startAgentOnFakes } from "../../test/fakes/fake-agent.js";
import type { Pod } from "../api/types.js";
import { isKubeletCondition, mergeApiConditions } from "./pod-conditions.js";

const GATE = "example.com/feature-ready";

test("the kubelet's conditions are its own; a readiness gate's is not", () => {
  assert.deepEqual(["PodScheduled", "Ready", "Initialized", "ContainersReady", "PodReadyToStartContainers", GATE, "DisruptionTarget"].map(isKubeletCondition), [true, true, true, true, true, false, false]);
});

test("merging keeps the agent's own conditions and takes the others from the API's copy; nothing to take is undefined", () => {
  const own = { phase: "Running" as const, conditions: [{ type: "Ready", status: "False" as const }] };
  const api = { phase: "Running" as const, conditions: [{ type: "Ready", status: "True" as const }, { type: GATE, status: "True" as const }] };
  assert.deepEqual(mergeApiConditions(own, api)?.conditions, [{ type: "Ready", status: "False" }, { type: GATE, status: "True" }]);
  assert.equal(mergeApiConditions({ ...own, conditions: [...own.conditions, { type: GATE, status: "True" }] }, api), undefined);
});

test("a readiness gate's condition patched into pods/status makes the pod Ready and survives the agent's later status writes", async () => {
  const { clock, agent } = startAgentOnFakes();
  const pod: Pod = { metadata: { name: "gated", namespace: "default" }, spec: { readinessGates: [{ conditionType: GATE }], containers: [{ name: "app", image: "img", command: ["app"] }] } };
  await admitRunning(agent, clock, pod);
  const stored = () => agent.store.mustGet<Pod>("pods", "default", "gated");
  const ready = () => stored().status?.conditions?.find((c) => c.type === "Ready");
  assert.equal(ready()?.reason, "ReadinessGatesNotReady");
  // What a merge-patch of pods/status does: the condition list is replaced by the client's.
  agent.store.modify<Pod>("pods", "default", "gated", (current) => ({ ...current, status: { ...current.status, conditions: [{ type: GATE, status: "True" }] } }));
  await flushMicrotasks(50);
  await clock.advance(1000);
  await flushMicrotasks(50);
  assert.equal(ready()?.status, "True");
  assert.deepEqual(stored().status?.conditions?.filter((c) => c.type === GATE).map((c) => c.status), ["True"]);
  assert.ok(stored().status?.conditions?.some((c) => c.type === "ContainersReady"), "the agent's own conditions are back");
  await agent.close();
});
