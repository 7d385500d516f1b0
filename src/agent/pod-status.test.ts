import { test } from "node:test";
import assert from "node:assert/strict";
import type { Container, ContainerStatus, Pod, PodSpec } from "../api/types.js";
import type { ContainerInfo } from "../runtime/runtime.js";
import { buildPodStatus, containerStatus, podPhase, volumeMountStatuses } from "./pod-status.js";

const running = (name: string): ContainerStatus => ({ name, ready: false, restartCount: 0, state: { running: {} } });
const exited = (name: string, exitCode: number): ContainerStatus => ({ name, ready: false, restartCount: 0, state: { terminated: { exitCode } } });
const backingOff = (name: string, exitCode: number): ContainerStatus => ({ name, ready: false, restartCount: 1, state: { waiting: { reason: "CrashLoopBackOff" } }, lastState: { terminated: { exitCode } } });
const pod = (spec: Partial<PodSpec> & { containers: Container[] }): Pod => ({ metadata: { name: "p", uid: "u" }, spec });

test("getPhase: pod Never with a container Always that exited (0 or 1) stays Running: it will restart", () => {
  const p = pod({ restartPolicy: "Never", containers: [{ name: "app", restartPolicy: "Always" }] });
  assert.equal(podPhase(p, [], [exited("app", 1)]), "Running");
  assert.equal(podPhase(p, [], [exited("app", 0)]), "Running");
});

test("getPhase: pod Always with a container Never that exited 1 is Failed, exited 0 Succeeded", () => {
  const p = pod({ restartPolicy: "Always", containers: [{ name: "app", restartPolicy: "Never" }] });
  assert.equal(podPhase(p, [], [exited("app", 1)]), "Failed");
  assert.equal(podPhase(p, [], [exited("app", 0)]), "Succeeded");
});

test("getPhase: a restart rule matching the exit code keeps the pod Running; a mismatch lets it fail", () => {
  const p = pod({ restartPolicy: "Never", containers: [{ name: "app", restartPolicy: "Never", restartPolicyRules: [{ action: "Restart", exitCodes: { operator: "In", values: [42] } }] }] });
  assert.equal(podPhase(p, [], [exited("app", 42)]), "Running");
  assert.equal(podPhase(p, [], [exited("app", 1)]), "Failed");
});

test("getPhase: the pod is terminal only when no stopped container will restart", () => {
  const p = pod({ restartPolicy: "Never", containers: [{ name: "once" }, { name: "again", restartPolicy: "OnFailure" }] });
  assert.equal(podPhase(p, [], [exited("once", 0), backingOff("again", 1)]), "Running");
  assert.equal(podPhase(p, [], [exited("once", 0), exited("again", 0)]), "Succeeded");
  assert.equal(podPhase(p, [], [exited("once", 1), exited("again", 0)]), "Failed");
});

test("getPhase: a running sidecar keeps the pod Running after the regular containers completed; a stopped one does not count", () => {
  const p = pod({ restartPolicy: "Never", initContainers: [{ name: "side", restartPolicy: "Always" }], containers: [{ name: "app" }] });
  assert.equal(podPhase(p, [{ ...running("side"), started: true }], [exited("app", 0)]), "Running");
  assert.equal(podPhase(p, [exited("side", 143)], [exited("app", 0)]), "Succeeded");
});

test("getPhase: an init container that failed and will not restart fails the pod; one that will restart keeps it Pending", () => {
  assert.equal(podPhase(pod({ restartPolicy: "Always", initContainers: [{ name: "setup", restartPolicy: "Never" }], containers: [{ name: "app" }] }), [exited("setup", 1)], []), "Failed");
  assert.equal(podPhase(pod({ restartPolicy: "Never", initContainers: [{ name: "setup", restartPolicy: "OnFailure" }], containers: [{ name: "app" }] }), [backingOff("setup", 1)], []), "Pending");
});

test("getPhase: for a terminal pod (SyncTerminatingPod) the exit codes alone decide Succeeded or Failed", () => {
  const p = pod({ restartPolicy: "Always", containers: [{ name: "app" }] });
  assert.equal(podPhase(p, [], [exited("app", 143)], true), "Failed");
  assert.equal(podPhase(p, [], [exited("app", 0)], true), "Succeeded");
});

test("generateAPIPodStatus: a terminal phase never changes again", () => {
  const p = pod({ restartPolicy: "Never", containers: [{ name: "app" }] });
  const input = { pod: p, initContainerStatuses: [], containerStatuses: [exited("app", 0)], podIP: "", hostIP: "", startTime: 0, now: 0 };
  assert.equal(buildPodStatus({ ...input, previous: { phase: "Failed" } }).phase, "Failed");
  assert.equal(buildPodStatus({ ...input, previous: { phase: "Running" } }).phase, "Succeeded");
});

test("getPhase: a sidecar running but not started keeps a pod Pending until a regular container has run (podHasInitialized)", () => {
  const p = pod({ restartPolicy: "Always", initContainers: [{ name: "side", restartPolicy: "Always" }], containers: [{ name: "app" }] });
  const waiting: ContainerStatus = { name: "app", ready: false, restartCount: 0, state: { waiting: { reason: "PodInitializing" } } };
  assert.equal(podPhase(p, [running("side")], [waiting]), "Pending");
  assert.equal(podPhase(p, [running("side")], [{ ...running("app"), containerID: "fake://a" }]), "Running");
});

test("getPhase (RestartAllContainers): containers removed by the reset (waiting, last state RestartingAllContainers 137) keep the pod Running, an init container among them too", () => {
  const p = pod({ restartPolicy: "Never", initContainers: [{ name: "setup" }], containers: [{ name: "app", restartPolicy: "Never", restartPolicyRules: [{ action: "RestartAllContainers", exitCodes: { operator: "In", values: [42] } }] }] });
  const removed = (name: string): ContainerStatus => ({ name, ready: false, restartCount: 1, state: { waiting: { reason: "RestartingAllContainers" } }, lastState: { terminated: { exitCode: 137, reason: "RestartingAllContainers" } } });
  assert.equal(podPhase(p, [removed("setup")], [removed("app")]), "Running");
  // The trigger's own exit: the RestartAllContainers rule restarts it.
  assert.equal(podPhase(p, [exited("setup", 0)], [exited("app", 42)]), "Running");
  assert.equal(podPhase(p, [exited("setup", 0)], [exited("app", 1)]), "Failed");
});

test("generateAPIPodStatus: hostIPs lists the node's IP as hostIP does; convertToAPIContainerStatuses: imageID is the runtime's image_ref", () => {
  const p = pod({ restartPolicy: "Always", containers: [{ name: "app", image: "busybox" }] });
  const input = { pod: p, previous: undefined, initContainerStatuses: [], containerStatuses: [running("app")], sandboxReady: true, podIP: "10.88.0.5", hostIP: "192.168.1.20", startTime: 0, now: 0 };
  const status = buildPodStatus(input);
  assert.equal(status.hostIP, "192.168.1.20");
  assert.deepEqual(status.hostIPs, [{ ip: "192.168.1.20" }]);
  const info: ContainerInfo = { id: "c1", podSandboxId: "s1", name: "app", attempt: 0, state: "running", image: "busybox", imageRef: "docker.io/library/busybox@sha256:ab12", createdAt: 1, startedAt: 2, finishedAt: 0, exitCode: 0, reason: "", message: "", labels: {}, annotations: {}, logPath: "" };
  assert.equal(containerStatus(p.spec.containers[0]!, { current: info }, undefined, "containerd", "ContainerCreating").imageID, "docker.io/library/busybox@sha256:ab12");
  // A runtime that runs no image (the process runtime) and a container not created yet: no imageID.
  const { imageRef: _none, ...processInfo } = info;
  assert.equal(containerStatus(p.spec.containers[0]!, { current: processInfo }, undefined, "process", "ContainerCreating").imageID, "");
  assert.equal(containerStatus(p.spec.containers[0]!, undefined, undefined, "containerd", "ContainerCreating").imageID, "");
});

test("convertToAPIContainerStatuses (RecursiveReadOnlyMounts): each volume mount in the status, a read-only one with recursiveReadOnly Disabled (no runtime here supports recursive read-only mounts)", () => {
  const spec: Container = {
    name: "app",
    image: "img",
    volumeMounts: [
      { name: "data", mountPath: "/data" },
      { name: "kube-api-access-x1", mountPath: "/var/run/secrets/kubernetes.io/serviceaccount", readOnly: true },
    ],
  };
  assert.deepEqual(volumeMountStatuses(spec), [
    { name: "data", mountPath: "/data" },
    { name: "kube-api-access-x1", mountPath: "/var/run/secrets/kubernetes.io/serviceaccount", readOnly: true, recursiveReadOnly: "Disabled" },
  ]);
  assert.deepEqual(containerStatus(spec, undefined, undefined, "fake", "ContainerCreating").volumeMounts, volumeMountStatuses(spec));
  assert.equal(containerStatus({ name: "bare", image: "img" }, undefined, undefined, "fake", "ContainerCreating").volumeMounts, undefined);
});
