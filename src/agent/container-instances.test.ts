import assert from "node:assert/strict";
import { test } from "node:test";
import type { Pod } from "../api/types.js";
import { newApiStore } from "../apiserver/resources/registry.js";
import { FakeClock } from "../../test/fakes/fake-clock.js";
import { ContainerInstanceLog } from "./container-instances.js";

const HOUR = 3600_000;

function crashed(n: number, at: number): Pod {
  const iso = (ms: number): string => new Date(ms).toISOString();
  return {
    metadata: { name: "p", namespace: "default", uid: "u1" },
    spec: { containers: [{ name: "app" }] },
    status: {
      containerStatuses: [{
        name: "app", ready: false, restartCount: n, containerID: `process://${n}`,
        lastState: { terminated: { exitCode: 1, reason: "Error", startedAt: iso(at - 5000), finishedAt: iso(at), containerID: `process://${n - 1}` } },
        state: { running: { startedAt: iso(at + 1000) } },
      }],
    },
  };
}

test("the instance log drops exits older than the window, and a deleted pod's log with it", async () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const log = new ContainerInstanceLog(clock, HOUR);
  const store = newApiStore();
  const stop = log.watch(store);
  const start = clock.now();
  store.create("pods", crashed(1, start), { keepUid: true });
  assert.deepEqual(log.list("u1").map((i) => i.containerID), ["process://0", "process://1"]);
  await clock.advance(2 * HOUR);
  store.modify<Pod>("pods", "default", "p", () => crashed(2, clock.now()));
  assert.deepEqual(log.list("u1").map((i) => i.containerID), ["process://1", "process://2"], "the exit of two hours ago is gone; process://1 ended just now");
  assert.equal(log.list("u1")[0]!.exitCode, 1);
  store.delete("pods", "default", "p");
  assert.deepEqual(log.list("u1"), []);
  stop();
});
