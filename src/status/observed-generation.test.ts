// PodObservedGenerationTracking (GA in 1.37): status.observedGeneration and the generated
// conditions' observedGeneration follow metadata.generation (status_manager.go SetPodStatus,
// podutil.CalculatePodStatusObservedGeneration / CalculatePodConditionObservedGeneration).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Pod, PodStatus } from "../api/types.js";
import { FakeClock } from "../../test/fakes/fake-clock.js";
import { stampObservedGeneration } from "./observed-generation.js";
import { StatusManager } from "./status-manager.js";

const status = (): PodStatus => ({
  phase: "Running",
  conditions: [
    { type: "PodReadyToStartContainers", status: "True" },
    { type: "Initialized", status: "True" },
    { type: "Ready", status: "False" },
    { type: "ContainersReady", status: "False" },
    { type: "PodScheduled", status: "True" },
    { type: "AllContainersRestarting", status: "False" },
    { type: "example.com/gate", status: "True" },
  ],
  containerStatuses: [{ name: "app", ready: false, restartCount: 0, containerID: "fake://c1", state: { running: {} } }],
});

test("CalculatePodStatusObservedGeneration and CalculatePodConditionObservedGeneration: the pod's generation on the status and on the five generated conditions, not on AllContainersRestarting nor a readiness gate", () => {
  const s = status();
  stampObservedGeneration(s, 3, undefined);
  assert.equal(s.observedGeneration, 3);
  assert.deepEqual(s.conditions?.map((c) => `${c.type}:${c.observedGeneration ?? "-"}`), [
    "PodReadyToStartContainers:3",
    "Initialized:3",
    "Ready:3",
    "ContainersReady:3",
    "PodScheduled:3",
    "AllContainersRestarting:-",
    "example.com/gate:-",
  ]);
});

test("updateStatusInternal: observedGeneration never goes down; a pod without a generation (standalone) gets none", () => {
  const s = status();
  stampObservedGeneration(s, 2, { observedGeneration: 4 });
  assert.equal(s.observedGeneration, 4);
  const none = status();
  stampObservedGeneration(none, undefined, undefined);
  assert.equal(none.observedGeneration, undefined);
  assert.ok(none.conditions?.every((c) => c.observedGeneration === undefined));
});

test("StatusManager stamps metadata.generation on every stored status: SetPodStatus and SetContainerReadiness alike", () => {
  const pod: Pod = { metadata: { name: "p", namespace: "default", uid: "u1", generation: 2 }, spec: { containers: [{ name: "app", image: "img" }] } };
  const manager = new StatusManager({ clock: new FakeClock(0), podLookup: { getPodByUid: () => pod } });
  manager.setPodStatus(pod, status());
  assert.equal(manager.getPodStatus("u1")?.observedGeneration, 2);
  pod.metadata.generation = 5;
  manager.setContainerReadiness("u1", "fake://c1", true);
  const stored = manager.getPodStatus("u1")!;
  assert.equal(stored.observedGeneration, 5);
  assert.equal(stored.conditions?.find((c) => c.type === "Ready")?.observedGeneration, 5);
});
