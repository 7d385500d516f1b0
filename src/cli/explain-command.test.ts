import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { captureContext, serveAgentApi } from "../../test/cli-harness.js";
import { FakeAgentApi } from "../../test/fakes/fake-agent-api.js";
import { FakeClock } from "../../test/fakes/fake-clock.js";
import type { Pod } from "../api/types.js";
import { UsageError } from "./args.js";
import { runExplainCommand } from "./explain-command.js";

const NOW = Date.parse("2026-01-01T00:05:00Z");

function pod(name: string, uid: string): Pod {
  return {
    metadata: { name, namespace: "default", uid },
    spec: { containers: [{ name: "app", image: "busybox", readinessProbe: { httpGet: { port: 8080, path: "/ready" } } }] },
    status: {
      phase: "Running",
      conditions: [{ type: "Initialized", status: "True" }, { type: "Ready", status: "False" }],
      containerStatuses: [{ name: "app", ready: false, started: true, restartCount: 0, containerID: `process://${uid}`, state: { running: { startedAt: "2026-01-01T00:04:00Z" } } }],
    },
  };
}

async function setup(t: TestContext) {
  const api = new FakeAgentApi();
  api.addPod(pod("web", "uid-2"));
  api.addPod(pod("db", "uid-3"));
  api.recordProbe("default", "web", {
    time: "2026-01-01T00:04:58Z", container: "app", probeType: "readiness", containerID: "process://uid-2", result: "Failure",
    handlerResult: "failure", output: "HTTP probe failed with statuscode: 503", latencyMs: 3, run: 1, threshold: 3,
  });
  return serveAgentApi(t, api);
}

const capture = () => captureContext(new FakeClock(NOW));

test("explain pod NAME reads the pod, its events and its probe history from the agent", async (t) => {
  const server = await setup(t);
  for (const args of [["pod", "web"], ["pod/web"], ["web"]]) {
    const { ctx, out, err } = capture();
    assert.equal(await runExplainCommand([...args, "--server", server.url], ctx), 0, args.join(" "));
    assert.equal(err(), "");
    assert.equal(
      out(),
      "pod/web is not Ready (Running).\n  - container app is running but not ready: the readiness probe fails (failure 1 of 3, last 2s ago, took 3ms): HTTP probe failed with statuscode: 503\n",
    );
  }
});

test("explain: several pods; a missing one is kubectl's NotFound error, exit 1, the others are still explained", async (t) => {
  const server = await setup(t);
  const { ctx, out, err } = capture();
  assert.equal(await runExplainCommand(["pod", "nope", "db", "web", "--server", server.url], ctx), 1);
  assert.equal(err(), 'Error from server (NotFound): pods "nope" not found\n');
  assert.match(out(), /^pod\/db is not Ready \(Running\)\.\n {2}- container app is running but not ready: the readiness probe has not run yet \(period 10s\)\n\npod\/web is not Ready/);
});

test("explain: usage errors", async () => {
  const { ctx } = capture();
  await assert.rejects(runExplainCommand([], ctx), new UsageError("you must name a pod to explain: probelet explain pod NAME"));
  await assert.rejects(runExplainCommand(["pod"], ctx), new UsageError("you must name a pod to explain: probelet explain pod NAME"));
  await assert.rejects(runExplainCommand(["svc/x"], ctx), new UsageError('the server doesn\'t have a resource type "svc"'));
});
