import assert from "node:assert/strict";
import { test } from "node:test";
import { FakeClock, flushMicrotasks } from "../../test/fakes/fake-clock.js";
import { TickScheduler, TickWait } from "./tick-scheduler.js";

/** recorder returns waits that log "<name>@<clock time>" when they fire. */
function recorder(clock: FakeClock): { fired: string[]; wait: (name: string, coalescible?: boolean) => TickWait } {
  const fired: string[] = [];
  return { fired, wait: (name, coalescible) => new TickWait({ onTick: () => fired.push(`${name}@${clock.monotonic() - 1_000_000}`) }, coalescible) };
}

test("a thousand waits share one clock sleep and each fires exactly at its due time, in due order", async () => {
  const clock = new FakeClock(1_000_000);
  const scheduler = new TickScheduler(clock);
  const { fired, wait } = recorder(clock);
  // Every wait but the first is due after the earliest: no new sleep is armed for them.
  for (let i = 0; i < 1000; i++) scheduler.schedule(wait(`w${i}`), clock.monotonic() + 10 + ((i * 7) % 7000));
  assert.equal(clock.pendingSleepers(), 1);
  await clock.advance(9);
  assert.deepEqual(fired, []);
  await clock.advance(1);
  assert.deepEqual(fired, ["w0@10"]);
  await clock.advance(7 * 999 - 1);
  assert.equal(fired.length, 999);
  await clock.advance(1);
  assert.equal(fired.length, 1000);
  assert.deepEqual(fired.slice(0, 3), ["w0@10", "w1@17", "w2@24"]);
  assert.equal(fired.at(-1), `w999@${10 + 999 * 7}`);
  assert.equal(scheduler.size, 0);
});

test("waits due at the same time fire in the order they were scheduled", async () => {
  const clock = new FakeClock(1_000_000);
  const scheduler = new TickScheduler(clock);
  const { fired, wait } = recorder(clock);
  for (const name of ["c", "a", "b"]) scheduler.schedule(wait(name), clock.monotonic() + 100);
  await clock.advance(100);
  assert.deepEqual(fired, ["c@100", "a@100", "b@100"]);
});

test("a cancelled wait never fires, and scheduling a pending wait again moves it", async () => {
  const clock = new FakeClock(1_000_000);
  const scheduler = new TickScheduler(clock);
  const { fired, wait } = recorder(clock);
  const cancelled = wait("cancelled");
  const moved = wait("moved");
  scheduler.schedule(cancelled, clock.monotonic() + 50);
  scheduler.schedule(moved, clock.monotonic() + 60);
  scheduler.cancel(cancelled);
  scheduler.cancel(cancelled); // idempotent
  scheduler.schedule(moved, clock.monotonic() + 200);
  assert.equal(scheduler.size, 1);
  await clock.advance(199);
  assert.deepEqual(fired, []);
  await clock.advance(1);
  assert.deepEqual(fired, ["moved@200"]);
});

test("an earlier wait scheduled after a later one still fires on time (a new sleep is armed for it)", async () => {
  const clock = new FakeClock(1_000_000);
  const scheduler = new TickScheduler(clock);
  const { fired, wait } = recorder(clock);
  scheduler.schedule(wait("late"), clock.monotonic() + 1000);
  await clock.advance(100);
  scheduler.schedule(wait("early"), clock.monotonic() + 10);
  await clock.advance(10);
  assert.deepEqual(fired, ["early@110"]);
  await clock.advance(890);
  assert.deepEqual(fired, ["early@110", "late@1000"]);
});

test("with coalescing, waits due within the window share one wake-up, none before its due time and none later than the window", async () => {
  const clock = new FakeClock(1_000_000);
  const scheduler = new TickScheduler(clock, 4);
  const { fired, wait } = recorder(clock);
  scheduler.schedule(wait("a", true), clock.monotonic() + 1000);
  scheduler.schedule(wait("b", true), clock.monotonic() + 1002);
  scheduler.schedule(wait("c", true), clock.monotonic() + 1010);
  await clock.advance(1003);
  assert.deepEqual(fired, []);
  await clock.advance(1);
  assert.deepEqual(fired, ["a@1004", "b@1004"]);
  await clock.advance(10);
  assert.deepEqual(fired, ["a@1004", "b@1004", "c@1014"]);
});

test("a wait scheduled from inside a firing callback for a time already past fires on a later turn, not in the same loop", async () => {
  const clock = new FakeClock(1_000_000);
  const scheduler = new TickScheduler(clock);
  let fires = 0;
  const again = new TickWait({
    onTick: () => {
      fires++;
      if (fires < 3) scheduler.schedule(again, clock.monotonic());
    },
  });
  scheduler.schedule(again, clock.monotonic() + 5);
  await clock.advance(5);
  await flushMicrotasks();
  assert.equal(fires, 3);
  assert.equal(scheduler.size, 0);
});

test("with coalescing, a wait that is not coalescible fires at its exact due time and takes coalescible waits already due along", async () => {
  const clock = new FakeClock(1_000_000);
  const scheduler = new TickScheduler(clock, 4);
  const { fired, wait } = recorder(clock);
  scheduler.schedule(wait("socket", true), clock.monotonic() + 1000);
  scheduler.schedule(wait("exec"), clock.monotonic() + 1002);
  scheduler.schedule(wait("later-socket", true), clock.monotonic() + 1003);
  await clock.advance(1001);
  assert.deepEqual(fired, []);
  await clock.advance(1);
  // The socket wait due before the exec one fires with it; the one due after it is not early.
  assert.deepEqual(fired, ["socket@1002", "exec@1002"]);
  // The sleep first armed for the socket wait's window (1004) takes the later one, in its window.
  await clock.advance(1);
  assert.deepEqual(fired, ["socket@1002", "exec@1002"]);
  await clock.advance(1);
  assert.deepEqual(fired, ["socket@1002", "exec@1002", "later-socket@1004"]);
});

test("with coalescing, an exact wait behind a coalescible one keeps its own sleep after the coalescible one fires", async () => {
  const clock = new FakeClock(1_000_000);
  const scheduler = new TickScheduler(clock, 4);
  const { fired, wait } = recorder(clock);
  scheduler.schedule(wait("a", true), clock.monotonic() + 1000);
  scheduler.schedule(wait("b", true), clock.monotonic() + 1005);
  scheduler.schedule(wait("exec"), clock.monotonic() + 1006);
  await clock.advance(1004);
  assert.deepEqual(fired, ["a@1004"]);
  // b's window ends at 1009, but exec is due at 1006 and must not wait for b's window.
  await clock.advance(2);
  assert.deepEqual(fired, ["a@1004", "b@1006", "exec@1006"]);
  assert.equal(scheduler.size, 0);
});
