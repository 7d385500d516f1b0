import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
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

/** sleepThenExit runs a node process whose only pending work is one SystemClock sleep; returns its output. */
function sleepThenExit(options: string): string {
  const clockUrl = new URL("./clock.js", import.meta.url).href;
  // Not a top-level await: a process whose loop empties under one exits with code 13, not 0.
  const script = `import(${JSON.stringify(clockUrl)}).then(({ SystemClock }) => new SystemClock().sleep(50, undefined, ${options})).then(() => console.log("woke"));`;
  return execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 10_000 });
}

test("SystemClock.sleep keeps the process alive until it ends: an awaited wait is never cut short by an empty event loop", () => {
  assert.equal(sleepThenExit("undefined"), "woke\n");
});

test("SystemClock.sleep in the background does not keep the process alive", () => {
  assert.equal(sleepThenExit("{ background: true }"), "");
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
