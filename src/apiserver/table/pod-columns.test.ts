import { test } from "node:test";
import assert from "node:assert/strict";
import type { ContainerStatus } from "../../api/types.js";
import { podCells, type ServedPod } from "./pod-columns.js";

const NOW = Date.parse("2026-01-01T01:00:00Z");

function pod(status: NonNullable<ServedPod["status"]>, spec: Partial<ServedPod["spec"]> = {}, deleting = false): ServedPod {
  return {
    metadata: { name: "p", namespace: "default", creationTimestamp: "2026-01-01T00:00:00Z", ...(deleting ? { deletionTimestamp: "2026-01-01T00:59:00Z" } : {}) },
    spec: { containers: [{ name: "a" }, { name: "b" }], ...spec },
    status,
  };
}

const running = (name: string, ready: boolean, restartCount = 0): ContainerStatus => ({ name, ready, restartCount, state: { running: {} } });

// Cases after printers_test.go TestPrintPod / TestPrintPodWithRestartableInitContainer (adapted to v1 JSON).
test("pod columns: READY, STATUS and RESTARTS follow printPod", () => {
  const cases: [string, ServedPod, [string, string, string]][] = [
    ["ready and running counts only running ready containers", pod({ phase: "Running", containerStatuses: [running("a", true, 3), { name: "b", ready: false, restartCount: 3 }] }), ["1/2", "Running", "6"]],
    ["a waiting reason wins", pod({ phase: "Running", containerStatuses: [{ name: "a", ready: false, restartCount: 3, state: { waiting: { reason: "ContainerWaitingReason" } } }, { name: "b", ready: false, restartCount: 3 }] }), ["0/2", "ContainerWaitingReason", "6"]],
    ["a terminated reason wins", pod({ phase: "Running", containerStatuses: [{ name: "a", ready: false, restartCount: 3, state: { terminated: { exitCode: 1, reason: "ContainerTerminatedReason" } } }, running("b", true, 3)] }), ["1/2", "ContainerTerminatedReason", "6"]],
    ["exit code without reason", pod({ phase: "Running", containerStatuses: [{ name: "a", ready: false, restartCount: 0, state: { terminated: { exitCode: 2 } } }] }), ["0/2", "ExitCode:2", "0"]],
    ["signal without reason", pod({ phase: "Running", containerStatuses: [{ name: "a", ready: false, restartCount: 0, state: { terminated: { exitCode: 137, signal: 9 } } }] }), ["0/2", "Signal:9", "0"]],
    ["Completed with a running container and Ready is Running", pod({ phase: "Running", conditions: [{ type: "Ready", status: "True" }], containerStatuses: [{ name: "a", ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: "Completed" } } }, running("b", true)] }), ["1/2", "Running", "0"]],
    ["Completed with a running container and not Ready is NotReady", pod({ phase: "Running", containerStatuses: [running("b", true), { name: "a", ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: "Completed" } } }] }), ["1/2", "NotReady", "0"]],
    ["status.reason overrides the phase", pod({ phase: "Failed", reason: "Evicted" }), ["0/2", "Evicted", "0"]],
    ["SchedulingGated", pod({ phase: "Pending", conditions: [{ type: "PodScheduled", status: "False", reason: "SchedulingGated" }] }), ["0/2", "SchedulingGated", "0"]],
    ["init container running", pod({ phase: "Pending", initContainerStatuses: [{ name: "i", ready: false, restartCount: 0, state: { running: {} } }] }, { initContainers: [{ name: "i" }] }), ["0/2", "Init:0/1", "0"]],
    ["init container waiting", pod({ phase: "Pending", initContainerStatuses: [{ name: "i", ready: false, restartCount: 2, state: { waiting: { reason: "CrashLoopBackOff" } } }] }, { initContainers: [{ name: "i" }] }), ["0/2", "Init:CrashLoopBackOff", "2"]],
    ["init container failed", pod({ phase: "Pending", initContainerStatuses: [{ name: "i", ready: false, restartCount: 0, state: { terminated: { exitCode: 3 } } }] }, { initContainers: [{ name: "i" }] }), ["0/2", "Init:ExitCode:3", "0"]],
    ["started sidecar counts toward READY and its restarts stay", pod({ phase: "Running", initContainerStatuses: [{ name: "s", ready: true, started: true, restartCount: 4, state: { running: {} } }], containerStatuses: [running("a", true), running("b", true, 1)] }, { initContainers: [{ name: "s", restartPolicy: "Always" }] }), ["3/3", "Running", "5"]],
    ["deleted pod is Terminating", pod({ phase: "Running", containerStatuses: [running("a", true)] }, {}, true), ["1/2", "Terminating", "0"]],
    ["deleted terminal pod keeps its phase", pod({ phase: "Succeeded" }, {}, true), ["0/2", "Succeeded", "0"]],
    ["deleted pod on a lost node is Unknown", pod({ phase: "Running", reason: "NodeLost" }, {}, true), ["0/2", "Unknown", "0"]],
  ];
  for (const [name, p, [ready, status, restarts]] of cases) {
    const cells = podCells(p, NOW);
    assert.deepEqual([cells.ready, cells.status, cells.restarts], [ready, status, restarts], name);
  }
});

test("pod columns: RESTARTS shows the age of the last restart", () => {
  const cells = podCells(pod({ phase: "Running", containerStatuses: [{ ...running("a", true, 2), lastState: { terminated: { exitCode: 1, finishedAt: "2026-01-01T00:59:00Z" } } }] }), NOW);
  assert.equal(cells.restarts, "2 (60s ago)");
  assert.equal(cells.age, "60m");
});

test("pod columns: wide cells show <none> when unset and count true readiness gates", () => {
  const empty = podCells(pod({ phase: "Pending" }), NOW);
  assert.deepEqual([empty.ip, empty.node, empty.nominatedNode, empty.readinessGates], ["<none>", "<none>", "<none>", "<none>"]);
  const full = podCells(
    pod(
      { phase: "Running", podIP: "10.0.0.9", podIPs: [{ ip: "10.0.0.5" }], nominatedNodeName: "n2", conditions: [{ type: "example.com/a", status: "True" }, { type: "example.com/b", status: "False" }] },
      { nodeName: "n1", readinessGates: [{ conditionType: "example.com/a" }, { conditionType: "example.com/b" }, { conditionType: "example.com/c" }] },
    ),
    NOW,
  );
  assert.deepEqual([full.ip, full.node, full.nominatedNode, full.readinessGates], ["10.0.0.5", "n1", "n2", "1/3"]);
});
