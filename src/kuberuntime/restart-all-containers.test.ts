// KEP-5532 decisions, ported from the kubelet's unit tests of 1.37.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Container, Pod, PodStatus } from "../api/types.js";
import type { ContainerInfo } from "../runtime/runtime.js";
import { generateAllContainersRestartingCondition } from "../status/generate.js";
import { allContainersCouldRestart, containersToReset, shouldAllContainersRestart } from "./restart-all-containers.js";

const rule = { action: "RestartAllContainers", exitCodes: { operator: "In", values: [1] } };
const pod = (initContainers: Container[], containers: Container[]): Pod => ({ metadata: { name: "p", uid: "u" }, spec: { initContainers, containers } });

function info(name: string, id: string, state: "running" | "exited", exitCode = 0, attempt = 0): ContainerInfo {
  return { id, podSandboxId: "sb", name, attempt, state, image: "", createdAt: attempt, startedAt: 1, finishedAt: state === "exited" ? 2 : 0, exitCode, reason: "", message: "", labels: {}, annotations: {}, logPath: "" };
}

const order = (p: Pod, listed: ContainerInfo[]): string[] => containersToReset(p, listed).map((r) => `${r.info.id}${r.kill ? " kill" : ""}`);

test("[case 218] TestComputePodActionsForRestartAllContainers: every instance is reset, others first (regular, then init), the triggers last; running ones killed", () => {
  // "pod marked for RestartAllContainers": three running containers, none a trigger.
  assert.deepEqual(order(pod([], [{ name: "foo1" }, { name: "foo2" }, { name: "foo3" }]), [info("foo1", "id1", "running"), info("foo2", "id2", "running"), info("foo3", "id3", "running")]), ["id1 kill", "id2 kill", "id3 kill"]);
  // "... with init containers": completed init containers are removed without a kill.
  assert.deepEqual(order(pod([{ name: "init1" }, { name: "init2" }, { name: "init3" }], [{ name: "foo1" }]), [info("init1", "initid1", "exited"), info("init2", "initid2", "exited"), info("init3", "initid3", "exited")]), ["initid1", "initid2", "initid3"]);
  // "init container exit triggers RestartAllContainers": init3 exited 1 with the rule goes last.
  const initTrigger = pod([{ name: "init1" }, { name: "init2", restartPolicy: "Always" }, { name: "init3", restartPolicy: "Never", restartPolicyRules: [rule] }], [{ name: "foo1" }]);
  assert.deepEqual(order(initTrigger, [info("init1", "initid1", "exited"), info("init2", "initid2", "running"), info("init3", "initid3", "exited", 1)]), ["initid1", "initid2 kill", "initid3"]);
  // "sidecar container exit triggers RestartAllContainres": the regular container, the other sidecars, then the trigger.
  const sidecars = [{ name: "restartable-init-1", restartPolicy: "Always" }, { name: "restartable-init-2", restartPolicy: "Always" }, { name: "restartable-init-3", restartPolicy: "Always", restartPolicyRules: [rule] }];
  assert.deepEqual(
    order(pod(sidecars, [{ name: "foo1" }]), [info("restartable-init-1", "initid1", "running"), info("restartable-init-2", "initid2", "running"), info("restartable-init-3", "initid3", "exited", 1), info("foo1", "id1", "running")]),
    ["id1 kill", "initid1 kill", "initid2 kill", "initid3"],
  );
  // "regular container exit triggers RestartAllContainers".
  const regular = pod(sidecars.map(({ name, restartPolicy }) => ({ name, restartPolicy })), [{ name: "foo1" }, { name: "foo2" }, { name: "foo3", restartPolicy: "Never", restartPolicyRules: [rule] }]);
  assert.deepEqual(
    order(regular, [info("restartable-init-1", "initid1", "running"), info("restartable-init-2", "initid2", "running"), info("restartable-init-3", "initid3", "running"), info("foo1", "id1", "running"), info("foo2", "id2", "running"), info("foo3", "id3", "exited", 1)]),
    ["id1 kill", "id2 kill", "initid1 kill", "initid2 kill", "initid3 kill", "id3"],
  );
  // "removes past terminated statuses": every earlier instance goes too, newest first.
  assert.deepEqual(order(pod([], [{ name: "foo1" }]), [info("foo1", "old", "exited", 2, 0), info("foo1", "new", "running", 0, 1)]), ["new kill", "old"]);
});

test("[case 219] TestShouldAllContainersRestart: the stored condition, a runtime exit or a stored termination that matches a RestartAllContainers rule", () => {
  const withRule = (restartPolicy: "Never" | "Always", init: boolean): Pod => {
    const c = { name: "c", restartPolicy, restartPolicyRules: [{ action: "RestartAllContainers", exitCodes: { operator: "In", values: [42] } }] };
    return init ? pod([c], []) : pod([], [c]);
  };
  const exits = (code?: number) => (name: string) => (name === "c" ? code : undefined);
  const stored = (code: number): PodStatus => ({ containerStatuses: [{ name: "c", ready: false, restartCount: 0, state: { terminated: { exitCode: code } } }] });
  assert.equal(shouldAllContainersRestart(pod([], [{ name: "regular" }]), () => undefined, { conditions: [{ type: "AllContainersRestarting", status: "True" }] }), true, "condition True");
  assert.equal(shouldAllContainersRestart(withRule("Never", false), exits(42), undefined), true, "regular container exited with matching rules");
  assert.equal(shouldAllContainersRestart(withRule("Never", true), exits(42), undefined), true, "init container exited with matching rules");
  assert.equal(shouldAllContainersRestart(withRule("Always", true), exits(42), undefined), true, "sidecar container exited with matching rules");
  assert.equal(shouldAllContainersRestart(withRule("Never", false), exits(1), undefined), false, "exit code not matching");
  assert.equal(shouldAllContainersRestart(pod([], [{ name: "c" }]), exits(42), undefined), false, "container exited without rules");
  assert.equal(shouldAllContainersRestart(withRule("Never", false), () => undefined, stored(42)), true, "the API status shows the matching exit");
  assert.equal(shouldAllContainersRestart(withRule("Never", false), () => undefined, { conditions: [{ type: "AllContainersRestarting", status: "False" }] }), false);
  assert.equal(allContainersCouldRestart(withRule("Never", true).spec), true);
  assert.equal(allContainersCouldRestart(pod([], [{ name: "c", restartPolicy: "Never", restartPolicyRules: [{ action: "Restart", exitCodes: { operator: "In", values: [1] } }] }]).spec), false);
});

test("[case 220] TestGenerateAllContainersRestartingCondition: False (PodFailed / PodCompleted in a terminal phase), True with RestartAllContainersStarted while the reset is due", () => {
  assert.deepEqual(generateAllContainersRestartingCondition("Pending", false), { type: "AllContainersRestarting", status: "False" });
  assert.deepEqual(generateAllContainersRestartingCondition("Failed", true), { type: "AllContainersRestarting", status: "False", reason: "PodFailed" });
  assert.deepEqual(generateAllContainersRestartingCondition("Succeeded", true), { type: "AllContainersRestarting", status: "False", reason: "PodCompleted" });
  assert.deepEqual(generateAllContainersRestartingCondition("Running", true), {
    type: "AllContainersRestarting",
    status: "True",
    reason: "RestartAllContainersStarted",
    message: "container exited with restart policy rule",
  });
});
