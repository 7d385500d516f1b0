import { test } from "node:test";
import assert from "node:assert/strict";
import { SystemClock } from "./clock.js";
import { FakeClock } from "../../test/fakes/fake-clock.js";

test("SystemClock.sleep resolves early when its signal aborts", async () => {
  const clock = new SystemClock();
  const controller = new AbortController();
  const started = clock.monotonic();
  const sleeping = clock.sleep(60_000, controller.signal);
  controller.abort();
  await sleeping;
  assert.ok(clock.monotonic() - started < 1000);
});

test("FakeClock.advance resolves sleeps in time order and only when due", async () => {
  const clock = new FakeClock(0);
  const order: number[] = [];
  void clock.sleep(300).then(() => order.push(300));
  void clock.sleep(100).then(() => order.push(100));
  await clock.advance(99);
  assert.deepEqual(order, []);
  await clock.advance(1);
  assert.deepEqual(order, [100]);
  await clock.advance(500);
  assert.deepEqual(order, [100, 300]);
  assert.equal(clock.now(), 600);
});
