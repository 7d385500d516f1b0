import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ContainerStatus, PodCondition, PodSpec } from "../api/types.js";
import {
  formatConditionTime,
  generateContainersReadyCondition,
  generateInitializedCondition,
  generatePodReadyCondition,
  generatePodReadyToStartContainersCondition,
  updateCondition,
} from "./generate.js";

function spec(names: string[], extra: Partial<PodSpec> = {}): PodSpec {
  return { containers: names.map((name) => ({ name })), ...extra };
}

function cs(name: string, ready: boolean, extra: Partial<ContainerStatus> = {}): ContainerStatus {
  return { name, ready, restartCount: 0, ...extra };
}

describe("ContainersReady and Ready", () => {
  test('[case 149] two containers, one unready → ContainersNotReady "containers with unready status: [b]"', () => {
    const s = spec(["a", "b"]);
    const statuses = [cs("a", true), cs("b", false)];
    const expected = { status: "False", reason: "ContainersNotReady", message: "containers with unready status: [b]" };
    assert.deepEqual(generateContainersReadyCondition(s, statuses, undefined, "Running"), { type: "ContainersReady", ...expected });
    assert.deepEqual(generatePodReadyCondition(s, [], statuses, undefined, "Running"), { type: "Ready", ...expected });
  });

  test('[case 149] one unknown and one unready → "containers with unknown status: [a], containers with unready status: [b]"', () => {
    const s = spec(["a", "b", "c"]);
    const statuses = [cs("b", false), cs("c", true)];
    const message = "containers with unknown status: [a], containers with unready status: [b]";
    assert.deepEqual(generateContainersReadyCondition(s, statuses, undefined, "Running"), {
      type: "ContainersReady",
      status: "False",
      reason: "ContainersNotReady",
      message,
    });
    assert.deepEqual(generatePodReadyCondition(s, undefined, statuses, undefined, "Running"), {
      type: "Ready",
      status: "False",
      reason: "ContainersNotReady",
      message,
    });
  });

  test("several names render as a Go slice: [a b]", () => {
    const s = spec(["a", "b", "c", "d"]);
    const got = generateContainersReadyCondition(s, [cs("c", false), cs("d", false)], [], "Pending");
    assert.equal(got.message, "containers with unknown status: [a b], containers with unready status: [c d]");
  });

  test("all containers ready → ContainersReady and Ready True", () => {
    const s = spec(["a", "b"]);
    const statuses = [cs("a", true), cs("b", true)];
    assert.deepEqual(generateContainersReadyCondition(s, statuses, undefined, "Running"), { type: "ContainersReady", status: "True" });
    assert.deepEqual(generatePodReadyCondition(s, [], statuses, undefined, "Running"), { type: "Ready", status: "True" });
  });

  test("no statuses at all → UnknownContainerStatuses, copied onto Ready", () => {
    const s = spec(["a"]);
    assert.deepEqual(generateContainersReadyCondition(s, undefined, undefined, "Pending"), {
      type: "ContainersReady",
      status: "False",
      reason: "UnknownContainerStatuses",
    });
    assert.deepEqual(generatePodReadyCondition(s, [], undefined, undefined, "Pending"), {
      type: "Ready",
      status: "False",
      reason: "UnknownContainerStatuses",
    });
  });

  test("sidecars are considered before regular containers; plain init containers are ignored", () => {
    const s = spec(["app"], {
      initContainers: [{ name: "setup" }, { name: "proxy", restartPolicy: "Always" }, { name: "log", restartPolicy: "Always" }],
    });
    const got = generateContainersReadyCondition(s, [cs("app", false)], [cs("setup", false), cs("proxy", false)], "Running");
    assert.equal(got.message, "containers with unknown status: [log], containers with unready status: [proxy app]");
    const ready = generateContainersReadyCondition(s, [cs("app", true)], [cs("setup", false), cs("proxy", true), cs("log", true)], "Running");
    assert.deepEqual(ready, { type: "ContainersReady", status: "True" });
  });

  const terminal = [
    { name: "[case 151] phase Succeeded → ContainersReady False reason PodCompleted", phase: "Succeeded", reason: "PodCompleted" },
    { name: "[case 151] phase Failed → ContainersReady False reason PodFailed", phase: "Failed", reason: "PodFailed" },
  ] as const;
  for (const c of terminal) {
    test(c.name, () => {
      const s = spec(["a", "b"]);
      const statuses = [cs("a", false), cs("b", true)];
      assert.deepEqual(generateContainersReadyCondition(s, statuses, undefined, c.phase), { type: "ContainersReady", status: "False", reason: c.reason });
      assert.deepEqual(generatePodReadyCondition(s, [], statuses, undefined, c.phase), { type: "Ready", status: "False", reason: c.reason });
    });
  }

  test("phase Succeeded with an unknown container is not PodCompleted; Failed wins regardless", () => {
    const s = spec(["a", "b"]);
    assert.equal(generateContainersReadyCondition(s, [cs("a", false)], undefined, "Succeeded").reason, "ContainersNotReady");
    assert.equal(generateContainersReadyCondition(s, [cs("a", false)], undefined, "Failed").reason, "PodFailed");
  });
});

describe("readiness gates", () => {
  const s = spec(["a"], { readinessGates: [{ conditionType: "x" }] });
  const statuses = [cs("a", true)];

  test('[case 150] readiness gate condition missing → Ready False ReadinessGatesNotReady "corresponding condition of pod readiness gate "x" does not exist."', () => {
    assert.deepEqual(generatePodReadyCondition(s, [], statuses, undefined, "Running"), {
      type: "Ready",
      status: "False",
      reason: "ReadinessGatesNotReady",
      message: 'corresponding condition of pod readiness gate "x" does not exist.',
    });
  });

  test('[case 150] readiness gate present but False → "the status of pod readiness gate "x" is not "True", but False"', () => {
    const conditions: PodCondition[] = [{ type: "x", status: "False" }];
    assert.deepEqual(generatePodReadyCondition(s, conditions, statuses, undefined, "Running"), {
      type: "Ready",
      status: "False",
      reason: "ReadinessGatesNotReady",
      message: 'the status of pod readiness gate "x" is not "True", but False',
    });
  });

  test("both gate messages are joined by \", \"; a True gate passes", () => {
    const two = spec(["a"], { readinessGates: [{ conditionType: "x" }, { conditionType: "y" }, { conditionType: "z" }] });
    const conditions: PodCondition[] = [
      { type: "y", status: "Unknown" },
      { type: "z", status: "True" },
    ];
    assert.equal(
      generatePodReadyCondition(two, conditions, statuses, undefined, "Running").message,
      'corresponding condition of pod readiness gate "x" does not exist., the status of pod readiness gate "y" is not "True", but Unknown',
    );
    const allTrue: PodCondition[] = [
      { type: "x", status: "True" },
      { type: "y", status: "True" },
      { type: "z", status: "True" },
    ];
    assert.deepEqual(generatePodReadyCondition(two, allTrue, statuses, undefined, "Running"), { type: "Ready", status: "True" });
  });

  test("unready containers take precedence over gates", () => {
    assert.equal(generatePodReadyCondition(s, [], [cs("a", false)], undefined, "Running").reason, "ContainersNotReady");
  });
});

describe("Initialized", () => {
  const s = spec(["app"], { initContainers: [{ name: "a" }, { name: "b" }, { name: "side", restartPolicy: "Always" }] });
  const waiting = { state: { waiting: { reason: "PodInitializing" } } };

  const cases: { name: string; init?: ContainerStatus[]; regular?: ContainerStatus[]; phase: "Pending" | "Running" | "Succeeded"; want: PodCondition }[] = [
    { name: "no statuses with init containers → UnknownContainerStatuses", phase: "Pending", want: { type: "Initialized", status: "False", reason: "UnknownContainerStatuses" } },
    {
      name: "unknown and incomplete init containers",
      init: [cs("b", false)],
      regular: [cs("app", false, waiting)],
      phase: "Pending",
      want: { type: "Initialized", status: "False", reason: "ContainersNotInitialized", message: "containers with unknown status: [a side], containers with incomplete status: [b]" },
    },
    {
      name: "a sidecar that is ready but not started is incomplete",
      init: [cs("a", true), cs("b", true), cs("side", true, { started: false })],
      regular: [cs("app", false, waiting)],
      phase: "Pending",
      want: { type: "Initialized", status: "False", reason: "ContainersNotInitialized", message: "containers with incomplete status: [side]" },
    },
    {
      name: "plain init containers ready and sidecar started → True",
      init: [cs("a", true), cs("b", true), cs("side", false, { started: true })],
      regular: [cs("app", false, waiting)],
      phase: "Pending",
      want: { type: "Initialized", status: "True" },
    },
    {
      name: "a started regular container means initialized even while a sidecar restarts",
      init: [cs("a", true), cs("b", true), cs("side", false, { started: false })],
      regular: [cs("app", true, { state: { running: {} } })],
      phase: "Running",
      want: { type: "Initialized", status: "True" },
    },
    {
      name: "phase Succeeded with all init containers known → True PodCompleted",
      init: [cs("a", false), cs("b", false), cs("side", false)],
      phase: "Succeeded",
      want: { type: "Initialized", status: "True", reason: "PodCompleted" },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.deepEqual(generateInitializedCondition(s, c.regular, c.init, c.phase), c.want);
    });
  }

  test("a pod without init containers is initialized even with no statuses", () => {
    assert.deepEqual(generateInitializedCondition(spec(["app"]), undefined, undefined, "Pending"), { type: "Initialized", status: "True" });
  });
});

describe("PodReadyToStartContainers, updateCondition, formatConditionTime", () => {
  test("[case 225] TestGeneratePodReadyToStartContainersCondition (1.37): True with a ready sandbox; False, reason PodSandboxNotReady, with why", () => {
    assert.deepEqual(generatePodReadyToStartContainersCondition(), { type: "PodReadyToStartContainers", status: "True" });
    // kubernetes#135300: the False condition says why.
    assert.deepEqual(generatePodReadyToStartContainersCondition("no pod sandbox exists"), { type: "PodReadyToStartContainers", status: "False", reason: "PodSandboxNotReady", message: "no pod sandbox exists" });
    assert.deepEqual(generatePodReadyToStartContainersCondition("pod sandbox is not ready"), { type: "PodReadyToStartContainers", status: "False", reason: "PodSandboxNotReady", message: "pod sandbox is not ready" });
  });

  test("formatConditionTime renders whole seconds in UTC", () => {
    assert.equal(formatConditionTime(Date.UTC(2026, 0, 1, 12, 30, 5, 999)), "2026-01-01T12:30:05Z");
  });

  test("updateCondition keeps lastTransitionTime unless the status value changes", () => {
    const t0 = "2026-01-01T00:00:00Z";
    const t1 = "2026-01-01T00:01:00Z";
    const start: PodCondition[] = [
      { type: "PodScheduled", status: "True", lastTransitionTime: t0 },
      { type: "Ready", status: "False", reason: "ContainersNotReady", message: "m", lastTransitionTime: t0 },
    ];
    const same = updateCondition(start, { type: "Ready", status: "False", reason: "ContainersNotReady", message: "other" }, t1);
    assert.deepEqual(same[1], { type: "Ready", status: "False", reason: "ContainersNotReady", message: "other", lastTransitionTime: t0 });
    const flipped = updateCondition(same, { type: "Ready", status: "True" }, t1);
    assert.deepEqual(flipped, [start[0], { type: "Ready", status: "True", lastTransitionTime: t1 }]);
    const appended = updateCondition(flipped, { type: "ContainersReady", status: "True" }, t1);
    assert.deepEqual(appended[2], { type: "ContainersReady", status: "True", lastTransitionTime: t1 });
    assert.equal(start[1]?.status, "False", "the input array is not modified");
    assert.deepEqual(updateCondition(undefined, { type: "Ready", status: "True" }, t0), [{ type: "Ready", status: "True", lastTransitionTime: t0 }]);
  });
});
