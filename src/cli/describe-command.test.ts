import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { captureContext, serveAgentApi } from "../../test/cli-harness.js";
import { FakeAgentApi } from "../../test/fakes/fake-agent-api.js";
import { FakeClock } from "../../test/fakes/fake-clock.js";
import type { KubeEvent } from "../apiserver/endpoints/host-interface.js";
import type { Pod } from "../api/types.js";
import { UsageError } from "./args.js";
import { runDescribeCommand } from "./describe-command.js";

const NOW = Date.parse("2026-01-01T00:05:00Z");

function pod(name: string, uid: string): Pod {
  return {
    metadata: { name, namespace: "default", uid },
    spec: { containers: [{ name: "app", image: "busybox", readinessProbe: { httpGet: { port: 8080, path: "/ready" } } }] },
  };
}

function unhealthy(name: string, uid: string): Omit<KubeEvent, "apiVersion" | "kind" | "metadata"> {
  return {
    involvedObject: { kind: "Pod", name, namespace: "default", uid },
    reason: "Unhealthy",
    message: `Readiness probe failed of ${uid}`,
    type: "Warning",
    count: 2,
    firstTimestamp: "2026-01-01T00:01:00Z",
    lastTimestamp: "2026-01-01T00:04:30Z",
    source: { component: "kubelet" },
    reportingComponent: "kubelet",
  };
}

async function setup(t: TestContext) {
  const api = new FakeAgentApi();
  api.addPod(pod("web", "uid-2"));
  api.addPod(pod("db", "uid-3"));
  api.recordEvent(unhealthy("web", "uid-1")); // an earlier pod of the same name
  api.recordEvent(unhealthy("web", "uid-2"));
  api.recordEvent(unhealthy("db", "uid-3"));
  const server = await serveAgentApi(t, api);
  return { api, server };
}

const capture = () => captureContext(new FakeClock(NOW));

test("describe pod NAME prints the layout with the probe line and only this pod's events", async (t) => {
  const { server } = await setup(t);
  const { ctx, out, err } = capture();
  assert.equal(await runDescribeCommand(["pod", "web", "--server", server.url], ctx), 0);
  assert.equal(err(), "");
  assert.match(out(), /^Name:\s+web\nNamespace:\s+default\n/);
  assert.ok(out().includes("\n    Readiness:    http-get http://:8080/ready delay=0s timeout=1s period=10s #success=1 #failure=3\n"), out());
  assert.ok(
    out().endsWith(
      "Events:\n  Type     Reason     Age               From     Message\n  ----     ------     ----              ----     -------\n" +
        "  Warning  Unhealthy  30s (x2 over 4m)  kubelet  Readiness probe failed of uid-2\n",
    ),
    out(),
  );
});

test("describe pod NAME shows the agent's probe history before the events", async (t) => {
  const { api, server } = await setup(t);
  api.recordProbe("default", "web", {
    time: "2026-01-01T00:04:50Z", container: "app", probeType: "readiness", containerID: "process://1", result: "Failure",
    handlerResult: "failure", output: "HTTP probe failed with statuscode: 503", latencyMs: 3.2, run: 2, threshold: 3,
  });
  const { ctx, out } = capture();
  assert.equal(await runDescribeCommand(["pod", "web", "--server", server.url], ctx), 0);
  assert.ok(
    out().includes(
      "Probe History:\n  Container  Probe      Result          Latency  Age  Output\n  ---------  -----      ------          -------  ---  ------\n" +
        "  app        readiness  failure 2 of 3  3ms      10s  HTTP probe failed with statuscode: 503\nEvents:\n",
    ),
    out(),
  );
});

test("describe without a NAME describes every pod of the namespace; pod/NAME works too", async (t) => {
  const { server } = await setup(t);
  const all = capture();
  assert.equal(await runDescribeCommand(["pods", "--server", server.url], all.ctx), 0);
  const names = [...all.out().matchAll(/^Name:\s+(\S+)$/gm)].map((m) => m[1]);
  assert.deepEqual(names, ["db", "web"]);
  assert.match(all.out(), /of uid-3\n\n\nName:\s+web\n/);
  const one = capture();
  assert.equal(await runDescribeCommand(["pod/db", "--server", server.url], one.ctx), 0);
  assert.match(one.out(), /^Name:\s+db\n/);
});

test("describe: a missing pod is kubectl's NotFound error, exit 1, the others are still described", async (t) => {
  const { server } = await setup(t);
  const { ctx, out, err } = capture();
  assert.equal(await runDescribeCommand(["pod", "nope", "web", "--server", server.url], ctx), 1);
  assert.equal(err(), 'Error from server (NotFound): pods "nope" not found\n');
  assert.match(out(), /^Name:\s+web\n/);
  const empty = capture();
  assert.equal(await runDescribeCommand(["pod", "-n", "prod", "--server", server.url], empty.ctx), 0);
  assert.equal(empty.err(), "No resources found in prod namespace.\n");
});

test("describe: usage errors", async () => {
  const { ctx } = capture();
  await assert.rejects(runDescribeCommand([], ctx), new UsageError("you must specify the type of resource to describe: pod"));
  await assert.rejects(runDescribeCommand(["svc", "x"], ctx), new UsageError('the server doesn\'t have a resource type "svc"'));
});
