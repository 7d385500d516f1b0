import assert from "node:assert/strict";
import { test } from "node:test";
import type { ContainerStatus } from "../api/types.js";
import type { ContainerInfo } from "../runtime/runtime.js";
import { keepLostHistory, UNKNOWN_LAST_STATE_MESSAGE } from "./pod-status.js";

const running = (id: string, restartCount: number): ContainerStatus => ({ name: "app", ready: true, restartCount, image: "", imageID: "", containerID: `process://${id}`, state: { running: { startedAt: "2026-11-25T10:00:00Z" } } });
const waiting = (): ContainerStatus => ({ name: "app", ready: false, restartCount: 0, image: "", imageID: "", state: { waiting: { reason: "ContainerCreating" } } });
const info = (id: string, attempt: number): ContainerInfo => ({ id, podSandboxId: "s", name: "app", attempt, state: "running", image: "", createdAt: 1, startedAt: 1, finishedAt: 0, exitCode: 0, reason: "", message: "", labels: {}, annotations: {}, logPath: "" });

test("keepLostHistory: a running instance that vanished with the agent becomes a ContainerStatusUnknown (137) last state and counts as a restart", () => {
  const status = waiting();
  keepLostHistory(status, undefined, running("old", 2), false);
  assert.equal(status.restartCount, 3);
  assert.deepEqual(status.lastState, { terminated: { exitCode: 137, reason: "ContainerStatusUnknown", message: UNKNOWN_LAST_STATE_MESSAGE, containerID: "process://old" } });
});

test("keepLostHistory: no extra restart is counted for a pod being deleted", () => {
  const status = waiting();
  keepLostHistory(status, undefined, running("old", 2), true);
  assert.equal(status.restartCount, 2);
});

test("keepLostHistory: the new instance of a fresh runtime keeps the old last state and its own restart count", () => {
  const status: ContainerStatus = { ...running("new", 3), ready: false };
  const old: ContainerStatus = { ...running("mid", 1), state: { terminated: { exitCode: 4, reason: "Error", finishedAt: "2026-11-25T10:00:01Z", containerID: "process://mid" } } };
  keepLostHistory(status, { current: info("new", 3) }, old, false);
  assert.equal(status.restartCount, 3);
  assert.equal(status.lastState?.terminated?.exitCode, 4);
});

test("keepLostHistory changes nothing when the runtime still has the earlier instance or the same one", () => {
  const same = running("x", 1);
  keepLostHistory(same, { current: info("x", 1) }, running("x", 1), false);
  assert.equal(same.lastState, undefined);
  const withPrevious = running("y", 2);
  keepLostHistory(withPrevious, { current: info("y", 2), previous: { ...info("x", 1), state: "exited" } }, running("x", 1), false);
  assert.equal(withPrevious.lastState, undefined);
});

test("keepLostHistory: after a RestartAllContainers reset removed every earlier instance, the new instance keeps its last state while it runs and after it exits (kubelet convertContainerStatus)", () => {
  const removed = { terminated: { exitCode: 137, reason: "RestartingAllContainers", message: "The container is removed because RestartAllContainers in place" } };
  const runningAfterReset: ContainerStatus = { ...running("new", 1), lastState: structuredClone(removed) };
  const exited: ContainerStatus = { ...running("new", 1), ready: false, state: { terminated: { exitCode: 0, reason: "Completed", containerID: "process://new" } } };
  keepLostHistory(exited, { current: { ...info("new", 1), state: "exited" } }, runningAfterReset, false);
  assert.deepEqual(exited.lastState, removed);
  assert.equal(exited.restartCount, 1);
});
