import assert from "node:assert/strict";
import { test } from "node:test";
import { FakeAgentApi } from "../../test/fakes/fake-agent-api.js";
import { ApiError } from "../apiserver/endpoints/host-interface.js";
import { startStatusServer } from "./server.js";

test("POST …/probes/trigger answers the probe's entry; a bad probe type is a 400, a probe that cannot run a 409 saying why", async (t) => {
  const api = new FakeAgentApi();
  api.addPod({ metadata: { name: "web", namespace: "default" }, spec: { containers: [{ name: "app" }] } });
  api.triggerAnswers.set("default/web/app/liveness", { time: "2026-01-01T00:00:01.000Z", container: "app", probeType: "liveness", containerID: "process://1", result: "Failure", output: "refused", latencyMs: 1, run: 2, threshold: 3 });
  api.triggerAnswers.set("default/web//readiness", new ApiError("Conflict", `cannot probe now: container "app" is not running (CrashLoopBackOff)`));
  const server = await startStatusServer(api, { listen: "127.0.0.1:0" });
  t.after(() => server.close());
  const base = `${server.url}/api/v1/namespaces/default/pods/web/probes/trigger`;

  const ok = await fetch(`${base}?container=app&probeType=Liveness`, { method: "POST" });
  assert.equal(ok.status, 200);
  const body = (await ok.json()) as { kind: string; result: string; run: number };
  assert.deepEqual([body.kind, body.result, body.run], ["ProbeHistoryEntry", "Failure", 2]);
  assert.deepEqual(api.calls.triggerProbe, [{ namespace: "default", name: "web", container: "app", probeType: "liveness" }]);

  const busy = await fetch(`${base}?probeType=readiness`, { method: "POST" });
  assert.equal(busy.status, 409);
  assert.match(((await busy.json()) as { message: string }).message, /not running \(CrashLoopBackOff\)/);

  for (const query of ["", "probeType=sideways", "probeType=liveness&container="]) {
    const bad = await fetch(`${base}?${query}`, { method: "POST" });
    assert.equal(bad.status, 400, query);
    await bad.arrayBuffer();
  }
  const get = await fetch(`${base}?probeType=liveness`);
  assert.equal(get.status, 405);
  await get.arrayBuffer();
  const missing = await fetch(`${server.url}/api/v1/namespaces/default/pods/gone/probes/trigger?probeType=liveness`, { method: "POST" });
  assert.equal(missing.status, 404);
  await missing.arrayBuffer();
});

test("GET …/instances lists the pod's container instances", async (t) => {
  const api = new FakeAgentApi();
  api.addPod({ metadata: { name: "web", namespace: "default" }, spec: { containers: [{ name: "app" }] } });
  api.recordInstance("default", "web", { container: "app", containerID: "process://1", startedAt: "2026-01-01T00:00:00Z", finishedAt: "2026-01-01T00:00:05Z", exitCode: 1, reason: "Error" });
  const server = await startStatusServer(api, { listen: "127.0.0.1:0" });
  t.after(() => server.close());
  const res = await fetch(`${server.url}/api/v1/namespaces/default/pods/web/instances`);
  assert.equal(res.status, 200);
  const list = (await res.json()) as { kind: string; items: { exitCode: number }[] };
  assert.equal(list.kind, "ContainerInstanceList");
  assert.equal(list.items[0]?.exitCode, 1);
});
