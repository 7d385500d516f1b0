import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { parse } from "yaml";
import { captureContext, serveAgentApi } from "../../test/cli-harness.js";
import { FakeAgentApi } from "../../test/fakes/fake-agent-api.js";
import { FakeClock, FixedNowClock } from "../../test/fakes/fake-clock.js";
import type { KubeEvent } from "../agent/agent-api.js";
import type { Pod } from "../api/types.js";
import { startStatusServer } from "../server/server.js";
import { UsageError } from "./args.js";
import { eventRow, runGetCommand } from "./get-command.js";

const NOW = Date.parse("2026-01-01T00:05:00Z");

function pod(name: string, namespace = "default", ready = true): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace, uid: `uid-${name}`, creationTimestamp: "2026-01-01T00:00:00Z" },
    spec: { nodeName: "node1", containers: [{ name: "app", image: "busybox" }] },
    status: {
      phase: "Running",
      podIP: "10.0.0.7",
      containerStatuses: [{ name: "app", ready, restartCount: 0, state: { running: { startedAt: "2026-01-01T00:00:01Z" } } }],
    },
  };
}

async function setup(t: TestContext, pods: Pod[] = []) {
  const api = new FakeAgentApi();
  for (const p of pods) api.addPod(p);
  // The server computes Table ages: it reads the same time as the CLI.
  const server = await serveAgentApi(t, api, new FixedNowClock(NOW));
  return { api, server };
}

const capture = () => captureContext(new FakeClock(NOW));

/** waitFor polls until check() is true, failing after 5 s. */
async function waitFor(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 250 && !check(); i++) await new Promise((r) => setTimeout(r, 20));
  assert.ok(check(), `timed out waiting for ${what}`);
}

test("get pods prints kubectl's table; -o wide adds the server's priority-1 columns; -A adds NAMESPACE", async (t) => {
  const { server } = await setup(t, [pod("web"), pod("db", "default", false), pod("other", "prod")]);
  const cases: { args: string[]; want: string }[] = [
    {
      args: ["pods"],
      want: "NAME   READY   STATUS    RESTARTS   AGE\ndb     0/1     Running   0          5m\nweb    1/1     Running   0          5m\n",
    },
    {
      args: ["po", "-o", "wide"],
      want:
        "NAME   READY   STATUS    RESTARTS   AGE   IP         NODE    NOMINATED NODE   READINESS GATES\n" +
        "db     0/1     Running   0          5m    10.0.0.7   node1   <none>           <none>\n" +
        "web    1/1     Running   0          5m    10.0.0.7   node1   <none>           <none>\n",
    },
    {
      args: ["pod", "-A"],
      want:
        "NAMESPACE   NAME    READY   STATUS    RESTARTS   AGE\n" +
        "default     db      0/1     Running   0          5m\n" +
        "default     web     1/1     Running   0          5m\n" +
        "prod        other   1/1     Running   0          5m\n",
    },
    { args: ["pods", "web", "-o", "name"], want: "pod/web\n" },
    { args: ["pod/db", "-o", "name"], want: "pod/db\n" },
    { args: ["pods", "-n", "prod", "-o", "name"], want: "pod/other\n" },
  ];
  for (const c of cases) {
    const { ctx, out, err } = capture();
    assert.equal(await runGetCommand([...c.args, "--server", server.url], ctx), 0, c.args.join(" "));
    assert.equal(out(), c.want, c.args.join(" "));
    assert.equal(err(), "");
  }
});

test("get pods -o json prints the pod, or a List, with sorted keys and 4-space indent; -o yaml parses back", async (t) => {
  const { server } = await setup(t, [pod("web")]);
  const one = capture();
  assert.equal(await runGetCommand(["pods", "web", "-o", "json", "--server", server.url], one.ctx), 0);
  assert.ok(one.out().startsWith('{\n    "apiVersion": "v1",\n    "kind": "Pod",\n    "metadata": {\n        "creationTimestamp"'), one.out());
  assert.equal((JSON.parse(one.out()) as Pod).metadata.name, "web");
  const list = capture();
  assert.equal(await runGetCommand(["pods", "-o", "json", "--server", server.url], list.ctx), 0);
  const parsed = JSON.parse(list.out()) as Record<string, unknown>;
  assert.deepEqual(Object.keys(parsed), ["apiVersion", "items", "kind", "metadata"]);
  assert.equal(parsed["kind"], "List");
  assert.deepEqual(parsed["metadata"], { resourceVersion: "" });
  assert.equal((parsed["items"] as Pod[])[0]?.metadata.name, "web");
  const yaml = capture();
  assert.equal(await runGetCommand(["pods", "web", "-o", "yaml", "--server", server.url], yaml.ctx), 0);
  assert.match(yaml.out(), /^apiVersion: v1\nkind: Pod\nmetadata:\n/);
  assert.match(yaml.out(), /\n {2}containers:\n {2}- image: busybox\n {4}name: app\n/);
  assert.deepEqual(parse(yaml.out()), JSON.parse(one.out()));
});

test("get pods: nothing found goes to stderr; an unknown pod is kubectl's NotFound error, exit 1", async (t) => {
  const { server } = await setup(t);
  const empty = capture();
  assert.equal(await runGetCommand(["pods", "--server", server.url], empty.ctx), 0);
  assert.equal(empty.out(), "");
  assert.equal(empty.err(), "No resources found in default namespace.\n");
  const all = capture();
  assert.equal(await runGetCommand(["pods", "-A", "--server", server.url], all.ctx), 0);
  assert.equal(all.err(), "No resources found\n");
  const missing = capture();
  assert.equal(await runGetCommand(["pods", "nope", "--server", server.url], missing.ctx), 1);
  assert.equal(missing.err(), 'Error from server (NotFound): pods "nope" not found\n');
});

test("get: usage errors", async () => {
  const { ctx } = capture();
  await assert.rejects(runGetCommand([], ctx), new UsageError("you must specify the type of resource to get: pods, events, configmaps, secrets, namespaces or nodes"));
  await assert.rejects(runGetCommand(["deployments"], ctx), new UsageError('the server doesn\'t have a resource type "deployments"'));
  await assert.rejects(runGetCommand(["pods", "-o", "xml"], ctx), /unable to match a printer suitable for the output format "xml"/);
  await assert.rejects(runGetCommand(["pods", "web", "-A"], ctx), /cannot be retrieved by name across all namespaces/);
  await assert.rejects(runGetCommand(["pods", "--bogus"], ctx), new UsageError("unknown flag: --bogus"));
});

test("get events prints LAST SEEN TYPE REASON OBJECT MESSAGE", async (t) => {
  const { api, server } = await setup(t, [pod("web")]);
  api.recordEvent({
    involvedObject: { kind: "Pod", name: "web", namespace: "default", fieldPath: "spec.containers{app}" },
    reason: "Unhealthy",
    message: "Readiness probe failed: HTTP probe failed with statuscode: 503",
    type: "Warning",
    count: 4,
    firstTimestamp: "2026-01-01T00:01:00Z",
    lastTimestamp: "2026-01-01T00:04:50Z",
    source: { component: "kubelet", host: "node1" },
    reportingComponent: "kubelet",
  });
  const { ctx, out } = capture();
  assert.equal(await runGetCommand(["events", "--server", server.url], ctx), 0);
  assert.equal(
    out(),
    "LAST SEEN   TYPE      REASON      OBJECT    MESSAGE\n10s         Warning   Unhealthy   pod/web   Readiness probe failed: HTTP probe failed with statuscode: 503\n",
  );
});

test("eventRow: wide adds SUBOBJECT SOURCE FIRST SEEN COUNT NAME", () => {
  const e: KubeEvent = {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: "web.17", namespace: "default" },
    involvedObject: { kind: "Pod", name: "web", fieldPath: "spec.containers{app}" },
    reason: "Killing",
    message: " Stopping container app ",
    type: "Normal",
    count: 1,
    firstTimestamp: "2026-01-01T00:04:00Z",
    lastTimestamp: "2026-01-01T00:04:00Z",
    source: { component: "kubelet", host: "node1" },
    reportingComponent: "kubelet",
  };
  assert.deepEqual(eventRow(e, NOW), ["60s", "Normal", "Killing", "pod/web", "Stopping container app"]);
  assert.deepEqual(eventRow(e, NOW, true, true), [
    "default", "60s", "Normal", "Killing", "pod/web", "spec.containers{app}", "kubelet, node1", "Stopping container app", "60s", "1", "web.17",
  ]);
});

test("get pods -w prints the table, then one row per change, until Ctrl-C", async (t) => {
  const { api, server } = await setup(t, [pod("web", "default", false)]);
  const { ctx, out, err, abort } = capture();
  const done = runGetCommand(["pods", "-w", "--output-watch-events", "--server", server.url], ctx);
  await waitFor(() => api.watcherCount().pods === 1, "the watch to start");
  api.updatePod("default", "web", (p) => {
    p.status!.containerStatuses![0]!.ready = true;
  });
  api.addPod(pod("web-2"));
  api.removePod("default", "web");
  await waitFor(() => out().split("\n").length >= 5, "four rows");
  abort();
  assert.equal(await done, 0);
  assert.equal(err(), "");
  assert.equal(
    out(),
    // Like kubectl -w, rows are padded as they come: a longer name widens later rows only.
    "EVENT      NAME   READY   STATUS    RESTARTS   AGE\n" +
      "ADDED      web    0/1     Running   0          5m\n" +
      "MODIFIED   web    1/1     Running   0          5m\n" +
      "ADDED      web-2   1/1     Running   0          5m\n" +
      "DELETED    web     1/1     Running   0          5m\n",
  );
  await waitFor(() => api.watcherCount().pods === 0, "the server to drop the watch");
});

test("get pods NAME -w only follows that pod and ends with exit 0 when the agent stops", async (t) => {
  const api = new FakeAgentApi();
  api.addPod(pod("web"));
  const server = await serveAgentApi(t, api);
  const { ctx, out } = capture();
  const done = runGetCommand(["pods", "web", "-w", "--server", server.url], ctx);
  await waitFor(() => api.watcherCount().pods === 1, "the watch to start");
  api.addPod(pod("other"));
  api.updatePod("default", "web", (p) => {
    p.status!.phase = "Failed";
    p.status!.containerStatuses![0]!.state = { terminated: { exitCode: 1, reason: "Error" } };
    p.status!.containerStatuses![0]!.ready = false;
  });
  await waitFor(() => out().includes("Error"), "the change");
  await server.close();
  assert.equal(await done, 0);
  assert.equal(out(), "NAME   READY   STATUS    RESTARTS   AGE\nweb    1/1     Running   0          5m\nweb    0/1     Error     0          5m\n");
});

test("get pods a b prints both in one table, in order; a missing name is reported and the rest printed (exit 1); pod/a pod/b too", async (t) => {
  const { server } = await setup(t, [pod("a"), pod("b"), pod("c")]);
  const both = capture();
  assert.equal(await runGetCommand(["pods", "b", "a", "--server", server.url], both.ctx), 0, both.err());
  assert.deepEqual(both.out().trimEnd().split("\n").map((l) => l.split(/\s+/)[0]), ["NAME", "b", "a"]);
  const slashed = capture();
  assert.equal(await runGetCommand(["pod/a", "po/c", "-o", "name", "--server", server.url], slashed.ctx), 0, slashed.err());
  assert.equal(slashed.out(), "pod/a\npod/c\n");
  const json = capture();
  assert.equal(await runGetCommand(["pods", "a", "c", "-o", "json", "--server", server.url], json.ctx), 0);
  const list = JSON.parse(json.out()) as { kind: string; items: Pod[] };
  assert.deepEqual([list.kind, list.items.map((p) => p.metadata.name)], ["List", ["a", "c"]]);
  const partly = capture();
  assert.equal(await runGetCommand(["pods", "a", "nope", "--server", server.url], partly.ctx), 1);
  assert.match(partly.out(), /^NAME .*\na\s/);
  assert.equal(partly.err(), 'Error from server (NotFound): pods "nope" not found\n');
  await assert.rejects(runGetCommand(["pods", "a", "b", "-w", "--server", server.url], capture().ctx), new UsageError("watch is only supported on individual resources and resource collections, but 2 resources were found"));
});

test("get pods -w started before the agent listens waits for it (one line on stderr), then watches", async (t) => {
  const api = new FakeAgentApi();
  api.addPod(pod("web"));
  const probe = await serveAgentApi(t, api);
  const port = new URL(probe.url).port;
  await probe.close(); // a port nothing listens on, for now
  const { ctx, out, err, abort } = captureContext();
  const watching = runGetCommand(["pods", "-w", "--server", `http://127.0.0.1:${port}`], ctx);
  await waitFor(() => err().includes("Waiting for the probelet agent"), "the waiting line");
  const server = await startStatusServer(api, { listen: `127.0.0.1:${port}` });
  t.after(() => server.close());
  await waitFor(() => /^web\s/m.test(out()), "the table once the agent answers");
  abort();
  assert.equal(await watching, 0);
  assert.equal(err(), `Waiting for the probelet agent at http://127.0.0.1:${port} (at most 30 s)...\n`);
});

test("get pods -w gives up after 30 s when no agent comes, with the unreachable error", async () => {
  const clock = new FakeClock(NOW);
  const { ctx, err } = captureContext(clock);
  const api = new FakeAgentApi();
  const gone = await startStatusServer(api, { listen: "127.0.0.1:0" });
  const url = gone.url;
  await gone.close();
  const watching = runGetCommand(["pods", "-w", "--server", url], ctx);
  for (let i = 0; i < 100 && !err().includes("Waiting"); i++) await new Promise((r) => setTimeout(r, 20));
  for (let i = 0; i < 80; i++) {
    await clock.advance(500);
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.equal(await watching, 1);
  assert.match(err(), /error: cannot reach the probelet agent at http:\/\/127\.0\.0\.1:\d+: is "probelet run" running\?\n$/);
});
