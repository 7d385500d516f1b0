import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Container, ContainerStatus, Pod, RestartPolicy } from "../api/types.js";
import { ResultsManager } from "../prober/results/results-manager.js";
import { computeContainerActions, shouldContainerBeRestarted, type ContainerActionsInput } from "./container-actions.js";

function pod(restartPolicy: RestartPolicy, containers: Container[] = [{ name: "c" }], initContainers?: Container[]): Pod {
  const spec: Pod["spec"] = { containers, restartPolicy };
  if (initContainers) spec.initContainers = initContainers;
  return { metadata: { name: "p", namespace: "ns", uid: "pOd_UiD" }, spec };
}

function running(name: string, containerID: string): ContainerStatus {
  return { name, containerID, ready: false, restartCount: 0, state: { running: { startedAt: "2026-01-01T00:00:00Z" } } };
}

function exited(name: string, exitCode: number): ContainerStatus {
  return { name, containerID: `test://${name}-dead`, ready: false, restartCount: 0, state: { terminated: { exitCode } } };
}

function managers() {
  return { liveness: new ResultsManager(), startup: new ResultsManager() };
}

function input(p: Pod, statuses: ContainerStatus[], extra: Partial<ContainerActionsInput> = {}): ContainerActionsInput {
  const m = managers();
  return { pod: p, containerStatuses: statuses, liveness: m.liveness, startup: m.startup, ...extra };
}

describe("computeContainerActions", () => {
  test("[case 152] computePodActions, restartPolicy Always, liveness Failure for the running container's ID → kill with message \"Container c failed liveness probe, will be restarted\", container scheduled to start, pod not killed", () => {
    const i = input(pod("Always"), [running("c", "test://c1")]);
    (i.liveness as ResultsManager).set("test://c1", "Failure", "pOd_UiD");
    assert.deepEqual(computeContainerActions(i), {
      decisions: [{ action: "kill", name: "c", containerId: "test://c1", sidecar: false, message: "Container c failed liveness probe, will be restarted", reason: "liveness", restart: true }],
      containersToStart: ["c"],
      initContainersToStart: [],
      killPod: false,
    });
  });

  test("[case 153] same with startup Failure → \"Container c failed startup probe, will be restarted\"", () => {
    const i = input(pod("Always"), [running("c", "test://c1")]);
    (i.startup as ResultsManager).set("test://c1", "Failure", "pOd_UiD");
    assert.deepEqual(computeContainerActions(i), {
      decisions: [{ action: "kill", name: "c", containerId: "test://c1", sidecar: false, message: "Container c failed startup probe, will be restarted", reason: "startup", restart: true }],
      containersToStart: ["c"],
      initContainersToStart: [],
      killPod: false,
    });
  });

  test("[case 154] restartPolicy Never, single container, liveness Failure → kill without restart; KillPod true", () => {
    const i = input(pod("Never"), [running("c", "test://c1")]);
    (i.liveness as ResultsManager).set("test://c1", "Failure", "pOd_UiD");
    assert.deepEqual(computeContainerActions(i), {
      decisions: [{ action: "kill", name: "c", containerId: "test://c1", sidecar: false, message: "Container c failed liveness probe", reason: "liveness", restart: false }],
      containersToStart: [],
      initContainersToStart: [],
      killPod: true,
    });
  });

  test("[case 155] liveness Failure cached for an old container ID → the new running container is kept", () => {
    const i = input(pod("Never"), [running("c", "test://c2")]);
    (i.liveness as ResultsManager).set("test://c1", "Failure", "pOd_UiD");
    (i.startup as ResultsManager).set("test://c1", "Failure", "pOd_UiD");
    assert.deepEqual(computeContainerActions(i), {
      decisions: [{ action: "keep", name: "c", containerId: "test://c2", sidecar: false }],
      containersToStart: [],
      initContainersToStart: [],
      killPod: false,
    });
  });

  const policies = [
    { policy: "Always", restart: true },
    { policy: "OnFailure", restart: true }, // a probe kill is a non-zero exit
    { policy: "Never", restart: false },
  ] as const;
  for (const { policy, restart } of policies) {
    test(`restartPolicy ${policy}: a liveness kill ${restart ? "restarts" : "does not restart"} the container`, () => {
      const i = input(pod(policy, [{ name: "a" }, { name: "b" }]), [running("a", "test://a1"), running("b", "test://b1")]);
      (i.liveness as ResultsManager).set("test://a1", "Failure", "u");
      const got = computeContainerActions(i);
      assert.deepEqual(got.decisions[0], {
        action: "kill",
        name: "a",
        containerId: "test://a1",
        sidecar: false,
        message: restart ? "Container a failed liveness probe, will be restarted" : "Container a failed liveness probe",
        reason: "liveness",
        restart,
      });
      assert.deepEqual(got.decisions[1], { action: "keep", name: "b", containerId: "test://b1", sidecar: false });
      assert.deepEqual(got.containersToStart, restart ? ["a"] : []);
      assert.equal(got.killPod, false, "b is kept");
    });
  }

  test("order: definition change beats liveness, liveness beats startup; Success/Unknown keep", () => {
    const p = pod("Never", [{ name: "a" }, { name: "b" }, { name: "c" }, { name: "d" }]);
    const i = input(p, [running("a", "test://a"), running("b", "test://b"), running("c", "test://c"), running("d", "test://d")], {
      specChanged: (name) => name === "a",
    });
    const liveness = i.liveness as ResultsManager;
    const startup = i.startup as ResultsManager;
    liveness.set("test://a", "Failure", "u");
    liveness.set("test://b", "Failure", "u");
    startup.set("test://b", "Failure", "u");
    liveness.set("test://c", "Success", "u");
    startup.set("test://c", "Unknown", "u");
    liveness.set("test://d", "Success", "u");
    startup.set("test://d", "Failure", "u");
    const got = computeContainerActions(i);
    assert.deepEqual(
      got.decisions.map((d) => (d.action === "kill" ? [d.name, d.message, d.reason ?? null, d.restart] : [d.name, "keep"])),
      [
        ["a", "Container a definition changed, will be restarted", null, true],
        ["b", "Container b failed liveness probe", "liveness", false],
        ["c", "keep"],
        ["d", "Container d failed startup probe", "startup", false],
      ],
    );
    assert.deepEqual(got.containersToStart, ["a"]);
    assert.equal(got.killPod, false);
  });

  const exitedRows = [
    { policy: "Never", exitCode: 1, start: [], killPod: true },
    { policy: "OnFailure", exitCode: 0, start: [], killPod: true },
    { policy: "OnFailure", exitCode: 1, start: ["b"], killPod: false },
    { policy: "Always", exitCode: 0, start: ["b"], killPod: false },
  ] as const;
  for (const row of exitedRows) {
    test(`an exited container under ${row.policy} (exit ${row.exitCode}) ${row.killPod ? "is not restarted: the pod is killed" : "is started again"}`, () => {
      const got = computeContainerActions(input(pod(row.policy, [{ name: "b" }]), [exited("b", row.exitCode)]));
      assert.deepEqual(got, { decisions: [], containersToStart: [...row.start], initContainersToStart: [], killPod: row.killPod });
    });
  }

  test("shouldContainerBeRestarted: missing or never-run containers start; deletion stops everything", () => {
    const p = pod("Never");
    assert.equal(shouldContainerBeRestarted(p, undefined), true);
    assert.equal(shouldContainerBeRestarted(p, { name: "c", ready: false, restartCount: 0, state: { waiting: { reason: "ContainerCreating" } } }), true);
    assert.equal(
      shouldContainerBeRestarted(pod("OnFailure"), { name: "c", ready: false, restartCount: 1, state: { waiting: { reason: "CrashLoopBackOff" } }, lastState: { terminated: { exitCode: 2 } } }),
      true,
    );
    assert.equal(shouldContainerBeRestarted(p, exited("c", 1)), false);
    assert.equal(shouldContainerBeRestarted(p, running("c", "test://c")), false);
    const deleting = pod("Always");
    deleting.metadata.deletionTimestamp = "2026-01-01T00:00:00Z";
    assert.equal(shouldContainerBeRestarted(deleting, undefined), false);
  });
});

describe("sidecars (restartable init containers)", () => {
  const sidecar = (probes: Partial<Container> = {}): Container => ({ name: "side", restartPolicy: "Always", ...probes });
  const probe = { exec: { command: ["true"] } };

  test("a sidecar liveness failure restarts it even with restartPolicy Never", () => {
    const p = pod("Never", [{ name: "app" }], [{ name: "setup" }, sidecar({ livenessProbe: probe })]);
    const i = input(p, [running("app", "test://app")], { initContainerStatuses: [exited("setup", 0), running("side", "test://side1")] });
    (i.liveness as ResultsManager).set("test://side1", "Failure", "u");
    assert.deepEqual(computeContainerActions(i), {
      decisions: [
        { action: "kill", name: "side", containerId: "test://side1", sidecar: true, message: "Init container side failed liveness probe", reason: "liveness", restart: true },
        { action: "keep", name: "app", containerId: "test://app", sidecar: false },
      ],
      containersToStart: [],
      initContainersToStart: ["side"],
      killPod: false,
    });
  });

  test("sidecar order: startup first (waiting for a result keeps it), then definition change, then liveness", () => {
    const p = pod("Always", [{ name: "app" }], [sidecar({ livenessProbe: probe, startupProbe: probe })]);
    const base = { initContainerStatuses: [running("side", "test://s")] };
    const decide = (startup: "Success" | "Failure" | "Unknown" | undefined, liveness: "Failure" | undefined, changed: boolean) => {
      const i = input(p, [running("app", "test://app")], { ...base, specChanged: () => changed });
      if (startup) (i.startup as ResultsManager).set("test://s", startup, "u");
      if (liveness) (i.liveness as ResultsManager).set("test://s", liveness, "u");
      const d = computeContainerActions(i).decisions[0]!;
      return d.action === "kill" ? d.message : "keep";
    };
    assert.equal(decide(undefined, "Failure", true), "keep");
    assert.equal(decide("Unknown", "Failure", true), "keep");
    assert.equal(decide("Failure", "Failure", true), "Init container side failed startup probe");
    assert.equal(decide("Success", "Failure", true), "Init container side definition changed");
    assert.equal(decide("Success", "Failure", false), "Init container side failed liveness probe");
    assert.equal(decide("Success", undefined, false), "keep");
  });

  test("sidecars without a liveness probe ignore liveness results; plain init containers are never inspected", () => {
    const p = pod("Always", [{ name: "app" }], [{ name: "setup" }, sidecar()]);
    const i = input(p, [running("app", "test://app")], { initContainerStatuses: [running("setup", "test://setup"), running("side", "test://side")] });
    (i.liveness as ResultsManager).set("test://side", "Failure", "u");
    (i.liveness as ResultsManager).set("test://setup", "Failure", "u");
    assert.deepEqual(
      computeContainerActions(i).decisions.map((d) => [d.name, d.action]),
      [
        ["side", "keep"],
        ["app", "keep"],
      ],
    );
  });

  test("when the pod is killed, sidecars are not restarted", () => {
    const p = pod("Never", [{ name: "app" }], [sidecar({ livenessProbe: probe })]);
    const i = input(p, [running("app", "test://app")], { initContainerStatuses: [running("side", "test://side")] });
    (i.liveness as ResultsManager).set("test://side", "Failure", "u");
    (i.liveness as ResultsManager).set("test://app", "Failure", "u");
    const got = computeContainerActions(i);
    assert.equal(got.killPod, true);
    assert.deepEqual(got.initContainersToStart, []);
    assert.deepEqual(
      got.decisions.map((d) => (d.action === "kill" ? [d.name, d.restart] : [d.name, "keep"])),
      [
        ["side", false],
        ["app", false],
      ],
    );
  });

  test("computePodActions probe kill: a container whose own restartPolicy is Never in a pod Always is killed without \", will be restarted\" and not started again", () => {
    const i = input(pod("Always", [{ name: "c", restartPolicy: "Never" }]), [running("c", "test://c1")]);
    (i.liveness as ResultsManager).set("test://c1", "Failure", "pOd_UiD");
    const actions = computeContainerActions(i);
    assert.deepEqual(actions.decisions, [{ action: "kill", name: "c", containerId: "test://c1", sidecar: false, message: "Container c failed liveness probe", reason: "liveness", restart: false }]);
    assert.deepEqual(actions.containersToStart, []);
    assert.equal(actions.killPod, true);
  });

  test("computePodActions probe kill: a Restart rule makes a container restartable in a pod Never (\", will be restarted\")", () => {
    const c: Container = { name: "c", restartPolicy: "Never", restartPolicyRules: [{ action: "Restart", exitCodes: { operator: "In", values: [137] } }] };
    const i = input(pod("Never", [c]), [running("c", "test://c1")]);
    (i.startup as ResultsManager).set("test://c1", "Failure", "pOd_UiD");
    assert.equal((computeContainerActions(i).decisions[0] as { message: string }).message, "Container c failed startup probe, will be restarted");
  });

  test("computePodActions KillPod: every regular container exited and none will restart, so a running sidecar is killed with the pod and not restarted", () => {
    const p = pod("Never", [{ name: "c" }], [{ name: "side", restartPolicy: "Always" }]);
    const actions = computeContainerActions(input(p, [exited("c", 0)], { initContainerStatuses: [running("side", "test://s1")] }));
    assert.equal(actions.killPod, true);
    assert.deepEqual(actions.initContainersToStart, []);
  });

  test("computePodActions KillPod: not while an exited container will restart by its own policy or a rule", () => {
    const side = [{ name: "side", restartPolicy: "Always" }];
    const own = pod("Never", [{ name: "c", restartPolicy: "Always" }], side);
    assert.equal(computeContainerActions(input(own, [exited("c", 0)], { initContainerStatuses: [running("side", "test://s1")] })).killPod, false);
    const ruled = pod("Never", [{ name: "c", restartPolicy: "Never", restartPolicyRules: [{ action: "Restart", exitCodes: { operator: "NotIn", values: [0] } }] }], side);
    assert.deepEqual(computeContainerActions(input(ruled, [exited("c", 3)])).containersToStart, ["c"]);
    assert.equal(computeContainerActions(input(ruled, [exited("c", 0)])).killPod, true);
  });
});
