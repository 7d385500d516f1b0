// The differential suite's comparison on recordings written by hand: what is forgiven (short-lived
// states, times within the tolerance, the end of the window) and what is reported.
import assert from "node:assert/strict";
import { test } from "node:test";
import { eventKey, fieldPaths, normalizeText, podState, stateKey, type JsonObject, type Side } from "./normalize.js";
import { compareRecordings, DEFAULT_TOLERANCES, differenceKind, type Recording, type StatusSample } from "./timeline-compare.js";

const NAMES = ["kubelet", "probelet"] as const;

function sample(t: number, key: string, extra: Partial<StatusSample> = {}): StatusSample {
  return { t, key, ready: "", restarts: {}, phase: "Running", deleted: false, fields: [], ...extra };
}

function recording(statuses: StatusSample[], windowMs = 60_000, events: Recording["events"] = []): Recording {
  return { statuses, events, windowMs };
}

test("two recordings with the same states, events and fields are the same, whatever their times within the tolerance", () => {
  const a = recording([sample(0, "Pending"), sample(3000, "Running ready", { ready: "True", fields: ["status.phase"] })], 30_000, [{ t: 2900, key: "Normal Started: Container started", occurrences: 1 }]);
  const b = recording([sample(0, "Pending"), sample(4500, "Running ready", { ready: "True", fields: ["status.phase"] })], 30_000, [{ t: 4400, key: "Normal Started: Container started", occurrences: 1 }]);
  assert.deepEqual(compareRecordings(NAMES, a, b), []);
});

test("a state one node stored for longer than transientMs is reported; a shorter one is forgiven", () => {
  const a = recording([sample(0, "Pending"), sample(100, "Pending sandbox", { ready: "False" }), sample(3000, "Running", { ready: "True" })]);
  const short = recording([sample(0, "Pending"), sample(100, "Pending sandbox", { ready: "False" }), sample(1500, "Pending sandbox ready", { ready: "False" }), sample(3000, "Running", { ready: "True" })]);
  assert.deepEqual(compareRecordings(NAMES, a, short), [], "a state of 1.5 s is below the 2 s transient tolerance");
  const long = recording([sample(0, "Pending"), sample(100, "Pending sandbox", { ready: "False" }), sample(300, "Pending sandbox ready", { ready: "False" }), sample(3000, "Running", { ready: "True" })]);
  assert.deepEqual(compareRecordings(NAMES, a, long), ["status only on probelet at 0.3 s for 2.7 s: Pending sandbox ready"]);
});

test("a state or event one node reached only in the window's last 8 s is not a difference", () => {
  const a = recording([sample(0, "Running"), sample(55_000, "Running restarted", { restarts: { c: 1 } })], 60_000, [{ t: 55_000, key: "Normal Killing: Stopping container c", occurrences: 1 }]);
  assert.deepEqual(compareRecordings(NAMES, a, recording([sample(0, "Running")], 60_000)), []);
});

test("a restart later than the tolerance (4 s + 20% of its time) is reported with both times", () => {
  const a = recording([sample(0, "Running", { restarts: { c: 0 } }), sample(15_800, "Running restarted", { restarts: { c: 1 } })]);
  const near = recording([sample(0, "Running", { restarts: { c: 0 } }), sample(19_000, "Running restarted", { restarts: { c: 1 } })]);
  assert.deepEqual(compareRecordings(NAMES, a, near), [], "3.2 s apart at 16-19 s is within 4 s + 3.8 s");
  const far = recording([sample(0, "Running", { restarts: { c: 0 } }), sample(25_000, "Running restarted", { restarts: { c: 1 } })]);
  assert.deepEqual(compareRecordings(NAMES, a, far), ["restart c #1 at 15.8 s on kubelet, 25.0 s on probelet"]);
});

test("a restart one node made and the other did not is reported, unless it falls in the window's last seconds", () => {
  const a = recording([sample(0, "Running", { restarts: { c: 0 } }), sample(20_000, "Running restarted", { restarts: { c: 1 } })], 60_000);
  const b = recording([sample(0, "Running", { restarts: { c: 0 } })], 60_000);
  assert.deepEqual(compareRecordings(NAMES, a, b), ["status only on kubelet at 20.0 s for 40.0 s: Running restarted", "restart c #1 only on kubelet (at 20.0 s)"]);
  const late = recording([sample(0, "Running", { restarts: { c: 0 } }), sample(53_000, "Running restarted", { restarts: { c: 1 } })], 60_000);
  assert.deepEqual(compareRecordings(NAMES, late, b), [], "53 s is within the last 8 s of a 60 s window");
});

test("events are compared by type, reason and message with their occurrence counts", () => {
  const a = recording([], 60_000, [{ t: 1000, key: "Normal Created: Container created", occurrences: 1 }, { t: 9000, key: "Warning BackOff: Back-off", occurrences: 6 }]);
  const b = recording([], 60_000, [{ t: 1000, key: "Normal Created: Created container: c", occurrences: 1 }, { t: 9000, key: "Warning BackOff: Back-off", occurrences: 7 }]);
  assert.deepEqual(compareRecordings(NAMES, a, b), [
    "event only on kubelet (×1): Normal Created: Container created",
    "event only on probelet (×1): Normal Created: Created container: c",
  ], "6 and 7 BackOff occurrences are within the count tolerance (2, or half the larger)");
  const many = recording([], 60_000, [{ t: 1000, key: "Normal Created: Container created", occurrences: 1 }, { t: 9000, key: "Warning BackOff: Back-off", occurrences: 13 }]);
  assert.deepEqual(compareRecordings(NAMES, a, many), ["event ×6 on kubelet, ×13 on probelet: Warning BackOff: Back-off"]);
});

test("status fields one node stores and the other does not in the same state are listed by path", () => {
  const a = recording([sample(0, "Waiting", { fields: ["status.phase", "status.observedGeneration"] }), sample(3000, "Running", { fields: ["status.podIP"] })], 10_000);
  const b = recording([sample(0, "Waiting", { fields: ["status.phase", "status.containerStatuses[c].state.waiting.message"] }), sample(3000, "Running", { fields: ["status.podIP"] })], 10_000);
  assert.deepEqual(compareRecordings(NAMES, a, b), ["fields only on kubelet: status.observedGeneration", "fields only on probelet: status.containerStatuses[c].state.waiting.message"]);
  const later = recording([sample(0, "Waiting", { fields: ["status.phase", "status.observedGeneration"] })], 10_000);
  assert.deepEqual(compareRecordings(NAMES, later, recording([sample(0, "Waiting", { fields: ["status.phase", "status.observedGeneration"] }), sample(3500, "Running", { fields: ["status.podIP"] })], 10_000)), [], "fields of a state one node did not reach (the window ends) are not compared");
});

test("the first status's Ready=False is not a milestone; Ready going False after True is", () => {
  const a = recording([sample(100, "Pending", { ready: "False" }), sample(3000, "Running", { ready: "True" }), sample(20_000, "Running unready", { ready: "False" })]);
  const b = recording([sample(2900, "Running", { ready: "True" }), sample(20_500, "Running unready", { ready: "False" })]);
  assert.deepEqual(compareRecordings(NAMES, a, b), ["status only on kubelet at 0.1 s for 2.9 s: Pending"]);
});

test("normalizeText takes out the namespace, node, UIDs, IDs, IPs and network namespace paths", () => {
  const side: Side = { namespace: "diff-abc-a", node: "kubelet-diff", uids: new Set(["0f1e2d3c-1111-2222-3333-444455556666"]) };
  assert.equal(
    normalizeText('back-off 10s restarting failed container=c pod=crash_diff-abc-a(0f1e2d3c-1111-2222-3333-444455556666) on kubelet-diff: dial tcp 10.244.90.7:8081: refused; id ' + "a".repeat(64) + " in /var/run/netns/cni-12ab-34cd", side),
    "back-off 10s restarting failed container=c pod=crash_<ns>(<uid>) on <node>: dial tcp <ip>:8081: refused; id <id> in <netns>",
  );
  assert.equal(normalizeText("diff-abc-ab and kubelet-diff-b are other names", side), "diff-abc-ab and kubelet-diff-b are other names");
});

test("podState keeps phase, conditions with reasons and container states, and drops times and IDs", () => {
  const side: Side = { namespace: "ns", node: "n", uids: new Set() };
  const pod: JsonObject = {
    metadata: { name: "p", deletionTimestamp: "2026-11-29T00:00:00Z" },
    status: {
      phase: "Running",
      conditions: [{ type: "Ready", status: "False", reason: "ContainersNotReady", lastTransitionTime: "t" }, { type: "Initialized", status: "True" }],
      containerStatuses: [{ name: "c", ready: false, started: true, restartCount: 2, containerID: "containerd://x", state: { running: { startedAt: "t" } }, lastState: { terminated: { exitCode: 137, reason: "Error", finishedAt: "t" } } }],
    },
  };
  assert.equal(stateKey(podState(pod, side)), "Running deleting [Initialized=True, Ready=False(ContainersNotReady)] {c: running last=terminated(Error, exit 137) ready=false started=true restarts=2}");
});

test("fieldPaths names list items by name or type and the ServiceAccount volume without its random suffix", () => {
  assert.deepEqual(fieldPaths({ conditions: [{ type: "Ready", status: "True" }], containerStatuses: [{ name: "c", volumeMounts: [{ name: "kube-api-access-x7k2p", readOnly: true }] }] }), [
    "status.conditions[Ready].type",
    "status.conditions[Ready].status",
    "status.containerStatuses[c].name",
    "status.containerStatuses[c].volumeMounts[kube-api-access-<random>].name",
    "status.containerStatuses[c].volumeMounts[kube-api-access-<random>].readOnly",
  ]);
});

test("eventKey is type, reason, the container's field path and the normalized message", () => {
  const side: Side = { namespace: "ns-a", node: "n", uids: new Set() };
  assert.equal(eventKey({ type: "Warning", reason: "Unhealthy", message: "Liveness probe failed: dial tcp 10.0.0.1:80: refused", involvedObject: { kind: "Pod", fieldPath: "spec.containers{c}" } }, side), "Warning Unhealthy (spec.containers{c}): Liveness probe failed: dial tcp <ip>:80: refused");
});

test("a restarting container waiting with the last sync's error on one node and CrashLoopBackOff on the other is the same state", () => {
  const hookError = 'Running [Ready=False] {c: waiting(PostStartHookError, "hook failed") last=terminated(Completed, exit 0) ready=false restarts=2}';
  const backOff = 'Running [Ready=False] {c: waiting(CrashLoopBackOff, "back-off 20s restarting failed container") last=terminated(Completed, exit 0) ready=false restarts=2}';
  const a = recording([sample(0, "Running"), sample(18_300, hookError)], 40_000);
  const b = recording([sample(0, "Running"), sample(17_600, hookError), sample(18_700, backOff)], 40_000);
  assert.deepEqual(compareRecordings(NAMES, a, b), []);
  const other = recording([sample(0, "Running"), sample(18_700, backOff.replace("restarts=2", "restarts=3"))], 40_000);
  assert.equal(compareRecordings(NAMES, a, other).length, 2, "a different restart count is still a different state");
});

test("a field is reported only when the other node never stored it in the window", () => {
  const a = recording([sample(0, "Running", { fields: ["status.phase", "status.resources.limits.memory"] }), sample(9000, "Running ready", { fields: ["status.phase"] })], 20_000);
  const b = recording([sample(0, "Running", { fields: ["status.phase"] }), sample(9000, "Running ready", { fields: ["status.phase", "status.resources.limits.memory"] })], 20_000);
  assert.deepEqual(compareRecordings(NAMES, a, b), [], "both stored it, in different states");
  const never = recording([sample(0, "Running", { fields: ["status.phase"] }), sample(9000, "Running ready", { fields: ["status.phase"] })], 20_000);
  assert.deepEqual(compareRecordings(NAMES, a, never), ["fields only on kubelet: status.resources.limits.memory"]);
});

test("fieldPaths leaves out the pod-level status.resources two kubelets differ on", () => {
  assert.deepEqual(fieldPaths({ phase: "Running", resources: { limits: { memory: "1Gi" } } }), ["status.phase"]);
});

test("differenceKind takes out counts, times and numbers so one kind of difference is counted once", () => {
  assert.equal(differenceKind("event ×3 on kubelet, ×19 on probelet: Warning BackOff (spec.containers{c}): Back-off restarting failed container c in pod crash-loop_<ns>(<uid>)"), "event ×n on kubelet, ×n on probelet: Warning BackOff (spec.containers{c}): Back-off restarting failed container c in pod …");
  assert.equal(differenceKind("restart c #2 at 22.5 s on kubelet, 31.5 s on probelet"), "restart c #n at t on kubelet, t on probelet");
});

test("with sequence false, only which milestones both nodes reached is compared", () => {
  const a = recording([sample(0, "Running", { restarts: { c: 0 } }), sample(15_000, "Running restarted", { restarts: { c: 1 } })]);
  const b = recording([sample(0, "Running", { restarts: { c: 0 } }), sample(20_000, "Waiting", { restarts: { c: 0 } }), sample(30_000, "Running restarted", { restarts: { c: 1 } })]);
  assert.deepEqual(compareRecordings(NAMES, a, b, { ...DEFAULT_TOLERANCES, sequence: false }), []);
  assert.deepEqual(compareRecordings(NAMES, a, b), ["status only on probelet at 20.0 s for 10.0 s: Waiting", "restart c #1 at 15.0 s on kubelet, 30.0 s on probelet"]);
  const never = recording([sample(0, "Running", { restarts: { c: 0 } })]);
  assert.deepEqual(compareRecordings(NAMES, a, never, { ...DEFAULT_TOLERANCES, sequence: false }), ["restart c #1 only on kubelet (at 15.0 s)"]);
});
