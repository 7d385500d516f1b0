import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Pod, PodStatus } from "../api/types.js";
import type { LogFields, Logger, LogLevel } from "../util/logger.js";
import { FakeClock } from "../../test/fakes/fake-clock.js";
import { findContainerStatusById, StatusManager, type PodLookup } from "./status-manager.js";

interface LogLine {
  level: LogLevel;
  msg: string;
  fields: LogFields | undefined;
}

/** captureLogger records every line, whatever the subsystem. */
function captureLogger(lines: LogLine[]): Logger {
  const at =
    (level: LogLevel) =>
    (msg: string, fields?: LogFields): void => {
      lines.push({ level, msg, fields });
    };
  const logger: Logger = {
    trace: at("trace"),
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    child: () => logger,
    isEnabled: () => true,
  };
  return logger;
}

const UID = "pOd_UiD";

function testPod(containers: string[] = ["c"], extra: Partial<Pod["spec"]> = {}): Pod {
  return { metadata: { name: "p", namespace: "ns", uid: UID }, spec: { containers: containers.map((name) => ({ name })), ...extra } };
}

function runningStatus(ids: Record<string, string>, init: Record<string, string> = {}): PodStatus {
  const toStatus = ([name, containerID]: [string, string]) => ({ name, containerID, ready: false, restartCount: 0, state: { running: {} } });
  return {
    phase: "Running",
    conditions: [
      { type: "Ready", status: "False", reason: "ContainersNotReady", lastTransitionTime: "2025-12-31T00:00:00Z" },
      { type: "ContainersReady", status: "False", reason: "ContainersNotReady", lastTransitionTime: "2025-12-31T00:00:00Z" },
    ],
    containerStatuses: Object.entries(ids).map(toStatus),
    initContainerStatuses: Object.entries(init).map(toStatus),
  };
}

function setup(pods: Pod[] = [testPod()]) {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const lines: LogLine[] = [];
  const known = new Map(pods.map((p) => [p.metadata.uid!, p]));
  const podLookup: PodLookup = { getPodByUid: (uid) => known.get(uid) };
  const manager = new StatusManager({ clock, podLookup, logger: captureLogger(lines) });
  const notified: { uid: string; status: PodStatus }[] = [];
  manager.subscribe((uid, status) => notified.push({ uid, status }));
  return { clock, lines, known, manager, notified };
}

describe("StatusManager", () => {
  {
    const rows = [
      { name: "unknown pod", podKnown: false, synced: true, id: "test://c1", value: true, level: "debug", msg: "Pod has been deleted, no need to update" },
      { name: "before first status", podKnown: true, synced: false, id: "test://c1", value: true, level: "info", msg: "Container {what} changed before pod has synced" },
      { name: "unknown container ID", podKnown: true, synced: true, id: "test://old", value: true, level: "info", msg: "Container {what} changed for unknown container" },
      { name: "unchanged value", podKnown: true, synced: true, id: "test://c1", value: false, level: "debug", msg: "Container {what} unchanged" },
    ] as const;
    for (const row of rows) {
      for (const what of ["readiness", "startup"] as const) {
        test(`[case 147] SetContainerReadiness on unknown pod / before first status / unknown container ID / unchanged value → no status change, no version bump: ${row.name} (${what === "readiness" ? "SetContainerReadiness" : "SetContainerStartup"})`, () => {
          const { manager, lines, known, notified } = setup();
          const pod = testPod();
          const initial = runningStatus({ c: "test://c1" });
          initial.containerStatuses![0]!.started = false;
          if (row.synced) manager.setPodStatus(pod, initial);
          if (!row.podKnown) known.delete(UID);
          const before = manager.getPodStatus(UID);
          const version = manager.version(UID);
          notified.length = 0;
          if (what === "readiness") manager.setContainerReadiness(UID, row.id, row.value);
          else manager.setContainerStartup(UID, row.id, row.value);
          assert.equal(manager.getPodStatus(UID), before, "the cached object is untouched");
          if (before) assert.deepEqual(before, initial);
          assert.equal(manager.version(UID), version);
          assert.equal(notified.length, 0);
          const msg = row.name === "unknown pod" ? `${row.msg} ${what}` : row.msg.replace("{what}", what);
          assert.equal(lines.length, 1);
          assert.equal(lines[0]?.level, row.level);
          assert.equal(lines[0]?.msg, msg);
          if (row.name === "unknown pod") assert.deepEqual(lines[0]?.fields, { podUID: UID });
          else assert.equal(lines[0]?.fields?.["pod"], "ns/p");
        });
      }
    }
  }

  test("[case 148] SetContainerReadiness(true) on the only container → container ready; ContainersReady True; Ready True; lastTransitionTime updated only on status flips", async () => {
    const { manager, clock, notified } = setup();
    manager.setPodStatus(testPod(), runningStatus({ c: "test://c1" }));
    assert.equal(manager.version(UID), 1);

    await clock.advance(5_000);
    manager.setContainerReadiness(UID, "test://c1", true);
    const t1 = "2026-01-01T00:00:05Z";
    const s1 = manager.getPodStatus(UID)!;
    assert.equal(s1.containerStatuses?.[0]?.ready, true);
    assert.deepEqual(s1.conditions, [
      { type: "Ready", status: "True", lastTransitionTime: t1 },
      { type: "ContainersReady", status: "True", lastTransitionTime: t1 },
    ]);
    assert.equal(manager.version(UID), 2);
    assert.equal(notified.at(-1)?.status, s1);

    // Same value again: nothing changes, not even the version.
    await clock.advance(5_000);
    manager.setContainerReadiness(UID, "test://c1", true);
    assert.equal(manager.getPodStatus(UID), s1);
    assert.equal(manager.version(UID), 2);

    // A flip back moves the transition time; a later status write that keeps it False does not.
    manager.setContainerReadiness(UID, "test://c1", false);
    const t2 = "2026-01-01T00:00:10Z";
    const s2 = manager.getPodStatus(UID)!;
    assert.deepEqual(s2.conditions, [
      { type: "Ready", status: "False", reason: "ContainersNotReady", message: "containers with unready status: [c]", lastTransitionTime: t2 },
      { type: "ContainersReady", status: "False", reason: "ContainersNotReady", message: "containers with unready status: [c]", lastTransitionTime: t2 },
    ]);
    assert.equal(s1.containerStatuses?.[0]?.ready, true, "the previous status object was not mutated");
  });

  test("a readiness flip that keeps the condition status keeps lastTransitionTime", async () => {
    const { manager, clock } = setup([testPod(["a", "b"])]);
    manager.setPodStatus(testPod(["a", "b"]), runningStatus({ a: "test://a1", b: "test://b1" }));
    await clock.advance(60_000);
    manager.setContainerReadiness(UID, "test://a1", true);
    const conditions = manager.getPodStatus(UID)!.conditions;
    assert.deepEqual(conditions, [
      { type: "Ready", status: "False", reason: "ContainersNotReady", message: "containers with unready status: [b]", lastTransitionTime: "2025-12-31T00:00:00Z" },
      { type: "ContainersReady", status: "False", reason: "ContainersNotReady", message: "containers with unready status: [b]", lastTransitionTime: "2025-12-31T00:00:00Z" },
    ]);
  });

  test("missing conditions are appended, Ready first, other conditions are kept in place", () => {
    const { manager } = setup();
    const status = runningStatus({ c: "test://c1" });
    status.conditions = [{ type: "PodScheduled", status: "True", lastTransitionTime: "2025-12-31T00:00:00Z" }];
    manager.setPodStatus(testPod(), status);
    manager.setContainerReadiness(UID, "test://c1", true);
    assert.deepEqual(
      manager.getPodStatus(UID)!.conditions?.map((c) => `${c.type}=${c.status}`),
      ["PodScheduled=True", "Ready=True", "ContainersReady=True"],
    );
  });

  test("readiness gates use the cached conditions", () => {
    const pod = testPod(["c"], { readinessGates: [{ conditionType: "x" }] });
    const { manager } = setup([pod]);
    manager.setPodStatus(pod, runningStatus({ c: "test://c1" }));
    manager.setContainerReadiness(UID, "test://c1", true);
    const ready = manager.getPodStatus(UID)!.conditions?.find((c) => c.type === "Ready");
    assert.equal(ready?.message, 'corresponding condition of pod readiness gate "x" does not exist.');
  });

  test("init containers and sidecars are found by container ID; sidecar readiness feeds the conditions", () => {
    const pod = testPod(["app"], { initContainers: [{ name: "setup" }, { name: "proxy", restartPolicy: "Always" }] });
    const { manager } = setup([pod]);
    const status = runningStatus({ app: "test://app1" }, { setup: "test://setup1", proxy: "test://proxy1" });
    status.containerStatuses![0]!.ready = true;
    manager.setPodStatus(pod, status);

    manager.setContainerStartup(UID, "test://proxy1", true);
    assert.equal(manager.getPodStatus(UID)!.initContainerStatuses?.[1]?.started, true);
    assert.equal(manager.version(UID), 2);

    manager.setContainerReadiness(UID, "test://proxy1", true);
    const s = manager.getPodStatus(UID)!;
    assert.equal(s.initContainerStatuses?.[1]?.ready, true);
    assert.equal(s.initContainerStatuses?.[0]?.ready, false, "the plain init container is untouched");
    assert.deepEqual(s.conditions?.map((c) => `${c.type}=${c.status}`), ["Ready=True", "ContainersReady=True"]);
  });

  test("an update for an old container ID never touches the new instance of the same container", () => {
    const { manager } = setup();
    manager.setPodStatus(testPod(), runningStatus({ c: "test://new" }));
    manager.setContainerReadiness(UID, "test://old", true);
    manager.setContainerStartup(UID, "test://old", true);
    assert.equal(manager.getPodStatus(UID)!.containerStatuses?.[0]?.ready, false);
    assert.equal(manager.getPodStatus(UID)!.containerStatuses?.[0]?.started, undefined);
    assert.equal(manager.version(UID), 1);
  });

  test("setContainerStartup sets started without touching conditions", () => {
    const { manager, notified } = setup();
    manager.setPodStatus(testPod(), runningStatus({ c: "test://c1" }));
    const before = manager.getPodStatus(UID)!;
    manager.setContainerStartup(UID, "test://c1", true);
    const after = manager.getPodStatus(UID)!;
    assert.notEqual(after, before);
    assert.equal(after.containerStatuses?.[0]?.started, true);
    assert.equal(before.containerStatuses?.[0]?.started, undefined);
    assert.deepEqual(after.conditions, before.conditions);
    assert.equal(manager.version(UID), 2);
    assert.deepEqual(notified.map((n) => n.uid), [UID, UID]);
    // started false is a change from "absent".
    manager.setContainerStartup(UID, "test://c1", false);
    assert.equal(manager.getPodStatus(UID)!.containerStatuses?.[0]?.started, false);
    assert.equal(manager.version(UID), 3);
  });

  test("setPodStatus stores a copy and bumps the version; removePod forgets the pod", () => {
    const { manager, notified } = setup();
    const status = runningStatus({ c: "test://c1" });
    manager.setPodStatus(testPod(), status);
    status.phase = "Failed";
    assert.equal(manager.getPodStatus(UID)?.phase, "Running");
    manager.setPodStatus(testPod(), status);
    assert.equal(manager.version(UID), 2);
    assert.equal(notified.length, 2);
    manager.removePod(UID);
    assert.equal(manager.getPodStatus(UID), undefined);
    assert.equal(manager.version(UID), 0);
    assert.equal(notified.length, 2, "removal is not notified");
    assert.throws(() => manager.setPodStatus({ metadata: {}, spec: { containers: [] } }, {}), TypeError);
  });

  test("unsubscribe stops notifications and a throwing listener does not break the store", () => {
    const { manager, lines, notified } = setup();
    const unsubscribe = manager.subscribe(() => {
      throw new Error("boom");
    });
    manager.setPodStatus(testPod(), runningStatus({ c: "test://c1" }));
    assert.equal(manager.version(UID), 1);
    assert.equal(notified.length, 1);
    assert.deepEqual(lines.map((l) => [l.level, l.msg]), [["error", "Pod status listener failed"]]);
    unsubscribe();
    manager.setPodStatus(testPod(), runningStatus({ c: "test://c2" }));
    assert.equal(lines.length, 1);
    assert.equal(notified.length, 2);
  });

  test("watchPodStatuses hears every new status object and every removal, never an unchanged store", () => {
    const { manager, lines } = setup();
    const watched: string[] = [];
    const unwatch = manager.watchPodStatuses((uid) => watched.push(uid));
    manager.setPodStatus(testPod(), runningStatus({ c: "test://c1" }));
    const first = manager.getPodStatus(UID);
    manager.setPodStatus(testPod(), runningStatus({ c: "test://c1" }));
    assert.equal(manager.getPodStatus(UID), first, "an equal status keeps the stored object");
    manager.setContainerReadiness(UID, "test://c1", true);
    manager.removePod(UID);
    manager.removePod(UID);
    assert.deepEqual(watched, [UID, UID, UID], "stored, readiness changed, removed; the equal store and the second removal are not heard");
    const throwing = manager.watchPodStatuses(() => {
      throw new Error("boom");
    });
    unwatch();
    manager.setPodStatus(testPod(), runningStatus({ c: "test://c2" }));
    assert.equal(watched.length, 3, "unsubscribed");
    assert.equal(manager.version(UID), 1, "a throwing watcher does not stop the store");
    assert.deepEqual(lines.filter((l) => l.level === "error").map((l) => l.msg), ["Pod status watcher failed"]);
    throwing();
  });

  test("a status equal to the cached one is dropped: no version bump, no notification", () => {
    const { manager, notified } = setup();
    manager.setPodStatus(testPod(), runningStatus({ c: "test://c1" }));
    manager.setPodStatus(testPod(), runningStatus({ c: "test://c1" }));
    assert.equal(manager.version(UID), 1);
    assert.equal(notified.length, 1);
  });

  test("findContainerStatusById searches regular then init statuses and never matches an empty ID", () => {
    const status = runningStatus({ a: "test://x" }, { b: "test://y" });
    assert.equal(findContainerStatusById(status, "test://x")?.name, "a");
    assert.equal(findContainerStatusById(status, "test://y")?.name, "b");
    status.containerStatuses![0]!.containerID = "";
    assert.equal(findContainerStatusById(status, ""), undefined);
    assert.equal(findContainerStatusById({}, "test://x"), undefined);
  });

  test("[case 215] TestContainerTerminationMetric: a container newly Terminated counts once per pod status under its type, exit code and reason; init containers as init_container", () => {
    const counted: string[] = [];
    const known = new Map<string, Pod>();
    const manager = new StatusManager({ clock: new FakeClock(0), podLookup: { getPodByUid: (uid) => known.get(uid) }, onContainerTerminated: (type, code, reason) => counted.push(`${type} ${code} ${reason}`) });
    const pod = testPod(["test-container"]);
    const terminated = (exitCode: number, reason: string) => ({ name: "test-container", ready: false, restartCount: 0, state: { terminated: { exitCode, reason } } });
    manager.setPodStatus(pod, { phase: "Running", containerStatuses: [{ name: "test-container", ready: false, restartCount: 0, state: { running: {} } }] });
    manager.setPodStatus(pod, { phase: "Succeeded", containerStatuses: [terminated(0, "Completed")] });
    // The same terminated container in a later status is not counted again.
    manager.setPodStatus(pod, { phase: "Succeeded", containerStatuses: [terminated(0, "Completed")], message: "again" });
    const errorPod: Pod = { metadata: { name: "error-pod", namespace: "test", uid: "67890" }, spec: { containers: [{ name: "error-container" }], initContainers: [{ name: "init" }] } };
    // A container already Terminated in the first status counts (nothing was cached before).
    manager.setPodStatus(errorPod, {
      phase: "Failed",
      initContainerStatuses: [{ name: "init", ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: "Completed" } } }],
      containerStatuses: [{ name: "error-container", ready: false, restartCount: 0, state: { terminated: { exitCode: 1, reason: "Error" } } }],
    });
    assert.deepEqual(counted, ["container 0 Completed", "init_container 0 Completed", "container 1 Error"]);
  });
});

test("a container that is not running is never made Ready, though a late readiness Success names its ID", () => {
  const { manager, notified } = setup();
  const exited = runningStatus({ c: "test://c1" });
  exited.containerStatuses![0]!.state = { terminated: { exitCode: 1, reason: "Error" } };
  manager.setPodStatus(testPod(), exited);
  notified.length = 0;
  manager.setContainerReadiness(UID, "test://c1", true);
  assert.equal(manager.getPodStatus(UID)?.containerStatuses?.[0]?.ready, false);
  assert.equal(manager.getPodStatus(UID)?.conditions?.find((c) => c.type === "Ready")?.status, "False");
  assert.equal(notified.length, 0);
});
