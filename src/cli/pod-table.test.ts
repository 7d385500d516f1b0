import { test } from "node:test";
import assert from "node:assert/strict";
import type { Pod } from "../api/types.js";
import { podHeaders, podRow } from "./pod-table.js";

const pod: Pod = {
  metadata: { name: "p", namespace: "default", creationTimestamp: "2026-01-01T00:00:00Z" },
  spec: { containers: [{ name: "a" }], nodeName: "node-1" },
  status: {
    phase: "Running",
    podIP: "10.0.0.5",
    containerStatuses: [{ name: "a", ready: true, restartCount: 2, state: { running: {} }, lastState: { terminated: { exitCode: 1, finishedAt: "2026-01-01T00:01:00Z" } } }],
  },
};

test("podRow renders READY, STATUS, RESTARTS with the last restart's age, and AGE from the shared printPod cells", () => {
  assert.deepEqual(podRow(pod, Date.parse("2026-01-01T00:02:00Z")), ["p", "1/1", "Running", "2 (60s ago)", "2m"]);
});

test("podRow adds NAMESPACE first and IP NODE for -o wide, matching podHeaders", () => {
  const row = podRow(pod, Date.parse("2026-01-01T00:02:00Z"), true, true);
  assert.deepEqual(row, ["default", "p", "1/1", "Running", "2 (60s ago)", "2m", "10.0.0.5", "node-1"]);
  assert.equal(podHeaders(true, true).length, row.length);
});
