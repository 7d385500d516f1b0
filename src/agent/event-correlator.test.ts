// client-go's event correlator as the agent's EventStore applies it (tools/record/events_cache.go).
import assert from "node:assert/strict";
import { test } from "node:test";
import { getTestPod } from "../../test/fixtures.js";
import { FakeClock } from "../../test/fakes/fake-clock.js";
import type { KubeEvent, WatchEvent } from "../apiserver/endpoints/host-interface.js";
import { AGGREGATE_INTERVAL_MS, COMBINED_PREFIX, SPAM_BURST } from "./event-correlator.js";
import { EventStore } from "./kube-events.js";
import { newApiStore } from "../apiserver/resources/registry.js";

function store(): { clock: FakeClock; events: EventStore; seen: WatchEvent<KubeEvent>[]; stored: () => KubeEvent[] } {
  const clock = new FakeClock();
  const objects = newApiStore();
  const events = new EventStore(clock, "node-1", objects);
  const seen: WatchEvent<KubeEvent>[] = [];
  objects.watch<KubeEvent>("events", {}, (e) => seen.push({ type: e.type, object: e.object }));
  const stored = (): KubeEvent[] => [...objects.list<KubeEvent>("events").items].sort((a, b) => a.lastTimestamp.localeCompare(b.lastTimestamp));
  return { clock, events, seen, stored };
}

const pod = getTestPod();
const target = { pod, containerName: "test_container" };

test("repeats of one event are one event: count + 1, the first firstTimestamp, a new lastTimestamp (eventObserve)", async () => {
  const { clock, events, seen, stored } = store();
  events.event(target, "Warning", "Unhealthy", "Liveness probe failed: boom");
  await clock.advance(10_000);
  events.event(target, "Warning", "Unhealthy", "Liveness probe failed: boom");
  const list = stored();
  assert.equal(list.length, 1);
  assert.equal(list[0]?.count, 2);
  assert.equal(list[0]?.firstTimestamp, "2026-01-01T00:00:00Z");
  assert.equal(list[0]?.lastTimestamp, "2026-01-01T00:00:10Z");
  assert.deepEqual(seen.map((e) => e.type), ["ADDED", "MODIFIED"]);
  assert.equal(seen[1]?.object.metadata.name, seen[0]?.object.metadata.name);
});

test("spam filter: an object gets a burst of 25 events, then one more every 5 minutes; dropped repeats still count", async () => {
  const { clock, events, seen, stored } = store();
  for (let i = 0; i < SPAM_BURST + 5; i++) events.event(target, "Warning", "Unhealthy", "Readiness probe failed: no");
  assert.equal(seen.length, SPAM_BURST, "only the burst reached the store");
  assert.equal(stored()[0]?.count, SPAM_BURST);
  await clock.advance(299_000);
  events.event(target, "Warning", "Unhealthy", "Readiness probe failed: no");
  assert.equal(seen.length, SPAM_BURST, "no token yet after 299 s");
  await clock.advance(1_000);
  events.event(target, "Warning", "Unhealthy", "Readiness probe failed: no");
  assert.equal(seen.length, SPAM_BURST + 1, "one token after 300 s");
  assert.equal(stored()[0]?.count, SPAM_BURST + 7, "the count includes the occurrences the filter dropped");
  const other = { pod: { ...pod, metadata: { ...pod.metadata, name: "other", uid: "other-uid" } }, containerName: "test_container" };
  events.event(other, "Normal", "Pulled", "image present");
  assert.equal(seen.length, SPAM_BURST + 2, "another object has its own budget");
});

test("aggregation: from the 10th distinct message of one reason within 10 minutes, one '(combined from similar events): …' event counts them", async () => {
  const { clock, events, stored } = store();
  for (let i = 1; i <= 9; i++) events.event(target, "Warning", "Unhealthy", `Liveness probe failed: attempt ${i}`);
  assert.equal(stored().length, 9);
  events.event(target, "Warning", "Unhealthy", "Liveness probe failed: attempt 10");
  await clock.advance(1_000);
  events.event(target, "Warning", "Unhealthy", "Liveness probe failed: attempt 11");
  const list = stored();
  assert.equal(list.length, 10, "nine plain events and one combined");
  const combined = list.find((e) => e.message.startsWith(COMBINED_PREFIX));
  assert.equal(combined?.message, `${COMBINED_PREFIX}Liveness probe failed: attempt 11`);
  assert.equal(combined?.count, 2);
  assert.equal(combined?.firstTimestamp, "2026-01-01T00:00:00Z");
  assert.equal(combined?.lastTimestamp, "2026-01-01T00:00:01Z");
  events.event(target, "Warning", "BackOff", "Back-off restarting failed container");
  assert.equal(stored().filter((e) => e.reason === "BackOff").length, 1, "another reason is not combined");
});

test("aggregation: after 10 minutes without a similar event, distinct messages are counted afresh", async () => {
  const { clock, events, stored } = store();
  for (let i = 1; i <= 9; i++) events.event(target, "Warning", "Unhealthy", `failed ${i}`);
  await clock.advance(AGGREGATE_INTERVAL_MS + 1);
  events.event(target, "Warning", "Unhealthy", "failed 10");
  assert.ok(stored().every((e) => !e.message.startsWith(COMBINED_PREFIX)), "the 10th message came after the interval: not combined");
});
