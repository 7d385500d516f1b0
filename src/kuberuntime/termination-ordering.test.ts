import { test } from "node:test";
import assert from "node:assert/strict";
import type { Pod } from "../api/types.js";
import { FakeClock, flushMicrotasks } from "../../test/fakes/fake-clock.js";
import { hasSidecars, TerminationOrdering } from "./termination-ordering.js";

const pod: Pod = {
  metadata: { name: "p" },
  spec: {
    initContainers: [{ name: "side-a", restartPolicy: "Always" }, { name: "setup" }, { name: "side-b", restartPolicy: "Always" }],
    containers: [{ name: "app" }, { name: "web" }],
  },
};

test("TerminationOrdering: a sidecar waits for every running regular container and the later sidecar, then returns the seconds waited", async () => {
  const clock = new FakeClock();
  const ordering = new TerminationOrdering(pod, ["side-a", "side-b", "app", "web"], clock);
  let waitedA: number | undefined;
  let waitedB: number | undefined;
  void ordering.waitForTurn("side-a", 30).then((s) => (waitedA = s));
  void ordering.waitForTurn("side-b", 30).then((s) => (waitedB = s));
  await clock.advance(3000);
  ordering.containerTerminated("app");
  await flushMicrotasks();
  assert.equal(waitedB, undefined, "side-b still waits for web");
  await clock.advance(2000);
  ordering.containerTerminated("web");
  await flushMicrotasks();
  assert.equal(waitedB, 5, "side-b goes once both regular containers stopped");
  assert.equal(waitedA, undefined, "side-a waits for side-b, declared after it");
  await clock.advance(1000);
  ordering.containerTerminated("side-b");
  await flushMicrotasks();
  assert.equal(waitedA, 6);
});

test("TerminationOrdering: a container that is not running counts as stopped, and regular containers never wait", async () => {
  const clock = new FakeClock();
  const ordering = new TerminationOrdering(pod, ["side-a", "app"], clock);
  assert.equal(await ordering.waitForTurn("app", 30), 0);
  let waited: number | undefined;
  void ordering.waitForTurn("side-a", 30).then((s) => (waited = s));
  await flushMicrotasks();
  assert.equal(waited, undefined, "waits for app only (web and side-b are not running)");
  ordering.containerTerminated("app");
  await flushMicrotasks();
  assert.equal(waited, 0);
});

test("TerminationOrdering: the wait ends when the grace period runs out, and no grace period means no wait", async () => {
  const clock = new FakeClock();
  const ordering = new TerminationOrdering(pod, ["side-a", "app"], clock);
  assert.equal(await ordering.waitForTurn("side-a", 0), 0);
  let waited: number | undefined;
  void ordering.waitForTurn("side-a", 4).then((s) => (waited = s));
  await clock.advance(3999);
  assert.equal(waited, undefined);
  await clock.advance(1);
  await flushMicrotasks();
  assert.equal(waited, 4);
});

test("hasSidecars: only a pod with a restartable init container needs an ordering", () => {
  assert.equal(hasSidecars(pod), true);
  assert.equal(hasSidecars({ metadata: {}, spec: { initContainers: [{ name: "setup" }], containers: [{ name: "app" }] } }), false);
});
