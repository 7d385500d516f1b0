// What a library user of ProbeManager meets first: subscribers get what probes decided, not a
// worker's initial value; a running container whose status has no `started` is not probed (the
// kubelet's rule), and the manager says so once as a process warning instead of waiting silently.
import assert from "node:assert/strict";
import { once } from "node:events";
import { test } from "node:test";
import type { Pod, PodStatus } from "../api/types.js";
import { defaultTestProbe, FIXTURE_NOW, newTestEnv, newTestManager, waitFor } from "../../test/fixtures.js";

const pod: Pod = { metadata: { name: "web", namespace: "default", uid: "web-uid" }, spec: { containers: [{ name: "app", readinessProbe: defaultTestProbe() }] } };
const running = (started: boolean | undefined): PodStatus => ({
  phase: "Running",
  podIP: "127.0.0.1",
  containerStatuses: [{ name: "app", containerID: "test://app", ready: false, restartCount: 0, ...(started !== undefined ? { started } : {}), state: { running: { startedAt: new Date(FIXTURE_NOW).toISOString() } } }],
});

test("a subscriber's first update is the first probe's verdict, not the worker's initial Failure", async () => {
  const env = newTestEnv();
  env.status.set("web-uid", running(true));
  const m = newTestManager(env);
  const seen: string[] = [];
  const withInitial: string[] = [];
  m.readinessManager.subscribe((u) => seen.push(u.result));
  m.readinessManager.subscribe((u) => withInitial.push(`${u.result}${u.initial ? " (initial)" : ""}`), { initial: true });
  m.addPod(pod);
  await waitFor("the probe's Success", () => seen.length > 0);
  await m.close();
  assert.deepEqual(seen, ["Success"]);
  assert.deepEqual(withInitial, ["Failure (initial)", "Success"]);
});

test("a running container whose status has no started is not probed, and the manager warns once (PROBELET_STARTED_MISSING)", async () => {
  const env = newTestEnv();
  env.status.set("web-uid", running(undefined));
  const m = newTestManager(env);
  const warned = once(process, "warning") as Promise<[Error & { code?: string }]>;
  m.addPod(pod);
  const [warning] = await warned;
  assert.equal(warning.code, "PROBELET_STARTED_MISSING");
  assert.match(warning.message, /container "app" of pod default\/web is running but its status has no "started": its readiness probe waits until the status says started: true/);
  await env.clock.advance(5_000);
  assert.equal(env.exec.calls.length, 0, "no probe ran");
  let again = 0;
  const count = (): void => void again++;
  process.on("warning", count);
  await env.clock.advance(5_000);
  process.off("warning", count);
  assert.equal(again, 0, "once per manager");
  await m.close();
});
