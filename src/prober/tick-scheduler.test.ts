import assert from "node:assert/strict";
import { test } from "node:test";
import { FakeClock, flushMicrotasks } from "../../test/fakes/fake-clock.js";
import { TickScheduler, TickWait } from "./tick-scheduler.js";

/**
 * setup returns a fake clock at 1,000,000 ms, a scheduler on it with `coalesceMs`, and waits
 * that log "<name>@<ms since the start>" when they fire.
 */
function setup(coalesceMs = 0): { clock: FakeClock; scheduler: TickScheduler; fired: string[]; wait: (name: string, coalescible?: boolean) => TickWait } {
  const clock = new FakeClock(1_000_000);
  const fired: string[] = [];
  const wait = (name: string, coalescible?: boolean): TickWait => new TickWait({ onTick: () => fired.push(`${name}@${clock.monotonic() - 1_000_000}`) }, coalescible);
  return { clock, scheduler: new TickScheduler(clock, coalesceMs), fired, wait };
}

test("a thousand waits share one clock sleep and each fires exactly at its due time, in due order", async () => {
  const { clock, scheduler, fired, wait } = setup();
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
  const { clock, scheduler, fired, wait } = setup();
  for (const name of ["c", "a", "b"]) scheduler.schedule(wait(name), clock.monotonic() + 100);
  await clock.advance(100);
  assert.deepEqual(fired, ["c@100", "a@100", "b@100"]);
});

test("a cancelled wait never fires, and scheduling a pending wait again moves it", async () => {
  const { clock, scheduler, fired, wait } = setup();
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
  const { clock, scheduler, fired, wait } = setup();
  scheduler.schedule(wait("late"), clock.monotonic() + 1000);
  await clock.advance(100);
  scheduler.schedule(wait("early"), clock.monotonic() + 10);
  await clock.advance(10);
  assert.deepEqual(fired, ["early@110"]);
  await clock.advance(890);
  assert.deepEqual(fired, ["early@110", "late@1000"]);
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

/** A coalescing case: waits (name, due in ms from the start, coalescible), then clock steps and what has fired after each. */
interface CoalescingCase {
  name: string;
  waits: [string, number, boolean][];
  steps: [advanceMs: number, fired: string[]][];
}

const coalescingCases: CoalescingCase[] = [
  {
    name: "with coalescing, waits due within the window share one wake-up, none before its due time and none later than the window",
    waits: [["a", 1000, true], ["b", 1002, true], ["c", 1010, true]],
    steps: [
      [1003, []],
      [1, ["a@1004", "b@1004"]],
      [10, ["a@1004", "b@1004", "c@1014"]],
    ],
  },
  {
    // The socket wait due before the exec one fires with it; the one due after it is not taken
    // early, and the sleep first armed for the first socket wait's window (1004) takes it.
    name: "with coalescing, a wait that is not coalescible fires at its exact due time and takes coalescible waits already due along",
    waits: [["socket", 1000, true], ["exec", 1002, false], ["later-socket", 1003, true]],
    steps: [
      [1001, []],
      [1, ["socket@1002", "exec@1002"]],
      [1, ["socket@1002", "exec@1002"]],
      [1, ["socket@1002", "exec@1002", "later-socket@1004"]],
    ],
  },
  {
    // b's window ends at 1009, but exec is due at 1006 and must not wait for b's window.
    name: "with coalescing, an exact wait behind a coalescible one keeps its own sleep after the coalescible one fires",
    waits: [["a", 1000, true], ["b", 1005, true], ["exec", 1006, false]],
    steps: [
      [1004, ["a@1004"]],
      [2, ["a@1004", "b@1006", "exec@1006"]],
    ],
  },
];

for (const c of coalescingCases) {
  test(c.name, async () => {
    const { clock, scheduler, fired, wait } = setup(4);
    for (const [name, due, coalescible] of c.waits) scheduler.schedule(wait(name, coalescible), clock.monotonic() + due);
    for (const [advanceMs, expected] of c.steps) {
      await clock.advance(advanceMs);
      assert.deepEqual(fired, expected);
    }
    assert.equal(scheduler.size, 0);
  });
}
