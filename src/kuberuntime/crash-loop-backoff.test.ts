import assert from "node:assert/strict";
import { test } from "node:test";
import { FakeClock } from "../../test/fakes/fake-clock.js";
import { BACKOFF_MAX_MS, RestartBackoff } from "./crash-loop-backoff.js";

test("gc drops the entries not raised for more than twice the cap and keeps the others, as the kubelet's HandlePodCleanups does", async () => {
  const clock = new FakeClock();
  const backoff = new RestartBackoff(clock);
  backoff.next("deleted-pod/app/1", clock.now());
  await clock.advance(BACKOFF_MAX_MS);
  backoff.next("live-pod/app/1", clock.now());
  await clock.advance(BACKOFF_MAX_MS + 1);
  backoff.gc();
  assert.equal(backoff.delayMs("deleted-pod/app/1"), 0, "idle for 2 × the cap: collected");
  assert.equal(backoff.delayMs("live-pod/app/1"), 10_000, "raised within 2 × the cap: kept");
});

test("an entry gc keeps still holds its back-off: a second exit doubles it", async () => {
  const clock = new FakeClock();
  const backoff = new RestartBackoff(clock);
  backoff.next("pod/app/1", clock.now());
  await clock.advance(2 * BACKOFF_MAX_MS);
  backoff.gc();
  backoff.next("pod/app/1", clock.now());
  assert.equal(backoff.delayMs("pod/app/1"), 20_000);
});
