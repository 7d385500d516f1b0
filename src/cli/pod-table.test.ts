import { test } from "node:test";
import assert from "node:assert/strict";
import type { Pod } from "../api/types.js";
import { humanDuration, podRow, podStatusReason } from "./pod-table.js";

test("humanDuration follows kubectl's HumanDuration", () => {
  const s = 1000;
  const cases: [number, string][] = [
    [-5 * s, "<invalid>"],
    [-1 * s, "0s"],
    [0, "0s"],
    [119 * s, "119s"],
    [120 * s, "2m"],
    [200 * s, "3m20s"],
    [10 * 60 * s, "10m"],
    [179 * 60 * s, "179m"],
    [3 * 3600 * s, "3h"],
    [(3 * 3600 + 5 * 60) * s, "3h5m"],
    [47 * 3600 * s, "47h"],
    [(2 * 24 + 5) * 3600 * s, "2d5h"],
    [30 * 24 * 3600 * s, "30d"],
    [(2 * 365 + 5) * 24 * 3600 * s, "2y5d"],
    [9 * 365 * 24 * 3600 * s, "9y"],
  ];
  for (const [ms, want] of cases) assert.equal(humanDuration(ms), want, String(ms));
});

const base = (status: NonNullable<Pod["status"]>, extra: Partial<Pod["spec"]> = {}): Pod => ({
  metadata: { name: "p", namespace: "default", creationTimestamp: "2026-01-01T00:00:00Z" },
  spec: { containers: [{ name: "a" }], ...extra },
  status,
});

test("podStatusReason shows waiting reasons, init progress and Terminating like kubectl", () => {
  assert.equal(podStatusReason(base({ phase: "Running", containerStatuses: [{ name: "a", ready: false, restartCount: 3, state: { waiting: { reason: "CrashLoopBackOff" } } }] })), "CrashLoopBackOff");
  assert.equal(
    podStatusReason(base({ phase: "Pending", initContainerStatuses: [{ name: "i", ready: false, restartCount: 0, state: { running: {} } }] }, { initContainers: [{ name: "i" }] })),
    "Init:0/1",
  );
  const deleting = base({ phase: "Running" });
  deleting.metadata.deletionTimestamp = "2026-01-01T00:00:10Z";
  assert.equal(podStatusReason(deleting), "Terminating");
});

test("podRow renders READY, RESTARTS with the last restart's age, and AGE", () => {
  const pod = base({
    phase: "Running",
    containerStatuses: [{ name: "a", ready: true, restartCount: 2, state: { running: {} }, lastState: { terminated: { exitCode: 1, finishedAt: "2026-01-01T00:01:00Z" } } }],
  });
  assert.deepEqual(podRow(pod, Date.parse("2026-01-01T00:02:00Z")), ["p", "1/1", "Running", "2 (60s ago)", "2m"]);
});
