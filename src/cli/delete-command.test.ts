import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { captureContext } from "../../test/cli-harness.js";
import { FakeAgentApi } from "../../test/fakes/fake-agent-api.js";
import type { Pod } from "../api/types.js";
import { startStatusServer } from "../server/server.js";
import { systemClock } from "../util/clock.js";
import { UsageError } from "./args.js";
import { clientFromFlags } from "./agent-client.js";
import { runDeleteCommand, waitUntilGone } from "./delete-command.js";

function pod(name: string): Pod {
  return { metadata: { name, namespace: "default", uid: `uid-${name}` }, spec: { terminationGracePeriodSeconds: 5, containers: [{ name: "app", image: "busybox" }] } };
}

/** setup serves a fake agent that really removes a deleted pod `removeAfterMs` later (the fake only marks it). */
async function setup(t: TestContext, removeAfterMs: number | undefined, names = ["web", "db"]) {
  const api = new FakeAgentApi();
  for (const name of names) api.addPod(pod(name));
  const timers = new Set<NodeJS.Timeout>();
  const off = api.watchPods((e) => {
    const { namespace = "default", name = "", deletionTimestamp } = e.object.metadata;
    if (removeAfterMs === undefined || e.type !== "MODIFIED" || deletionTimestamp === undefined) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      api.removePod(namespace, name);
    }, removeAfterMs);
    timers.add(timer);
  });
  const server = await startStatusServer(api, { listen: "127.0.0.1:0" });
  t.after(async () => {
    off();
    for (const timer of timers) clearTimeout(timer);
    await server.close();
  });
  return { api, server };
}

const capture = () => captureContext();

test("delete pod waits until the pod is gone (default --wait)", async (t) => {
  const { api, server } = await setup(t, 150);
  const { ctx, out, err } = capture();
  const started = performance.now();
  assert.equal(await runDeleteCommand(["pod", "web", "--server", server.url], ctx), 0);
  assert.ok(performance.now() - started >= 100, "returned before the pod was gone");
  assert.equal(out(), 'pod "web" deleted\n');
  assert.equal(err(), "");
  assert.deepEqual(api.listPods().map((p) => p.metadata.name), ["db"]);
  assert.deepEqual(api.calls.deletePod, [{ namespace: "default", name: "web", gracePeriodSeconds: 5 }]);
});

test("delete --wait=false returns at once; --grace-period is sent, 0 becomes 1 without --force", async (t) => {
  const { api, server } = await setup(t, undefined, ["a", "b"]);
  const first = capture();
  assert.equal(await runDeleteCommand(["pods", "a", "--wait=false", "--grace-period", "7", "--server", server.url], first.ctx), 0);
  assert.equal(first.out(), 'pod "a" deleted\n');
  const second = capture();
  assert.equal(await runDeleteCommand(["po", "b", "--wait=false", "--grace-period=0", "--server", server.url], second.ctx), 0);
  assert.deepEqual(api.calls.deletePod.map((c) => c.gracePeriodSeconds), [7, 1]);
});

test("delete --force --grace-period=0 deletes at once with kubectl's warning", async (t) => {
  const { api, server } = await setup(t, undefined);
  const { ctx, out, err } = capture();
  assert.equal(await runDeleteCommand(["pod", "web", "--force", "--grace-period=0", "--server", server.url], ctx), 0);
  assert.equal(out(), 'pod "web" force deleted\n');
  assert.match(err(), /^Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated\./);
  assert.deepEqual(api.calls.deletePod.map((c) => c.gracePeriodSeconds), [0]);
});

test("delete of several pods goes on past a missing one and exits 1", async (t) => {
  const { server } = await setup(t, 20);
  const { ctx, out, err } = capture();
  assert.equal(await runDeleteCommand(["pod", "nope", "db", "--server", server.url], ctx), 1);
  assert.equal(err(), 'Error from server (NotFound): pods "nope" not found\n');
  assert.equal(out(), 'pod "db" deleted\n');
});

test("Ctrl-C during the wait ends the command with 130", async (t) => {
  const { server } = await setup(t, undefined);
  const { ctx, out, abort } = capture();
  const done = runDeleteCommand(["pod", "web", "--server", server.url], ctx);
  for (let i = 0; i < 250 && out() === ""; i++) await new Promise((r) => setTimeout(r, 20));
  abort();
  assert.equal(await done, 130);
});

test("waitUntilGone: false after the timeout while the pod stays; true once another pod took the name", async (t) => {
  const { api, server } = await setup(t, undefined);
  const client = clientFromFlags({ server: server.url }, new AbortController().signal, {});
  const started = performance.now();
  assert.equal(await waitUntilGone(client, "default", "web", "uid-web", 300, systemClock, new AbortController().signal), false);
  assert.ok(performance.now() - started >= 300);
  api.removePod("default", "web");
  api.addPod({ ...pod("web"), metadata: { name: "web", namespace: "default", uid: "uid-new" } });
  assert.equal(await waitUntilGone(client, "default", "web", "uid-web", 300, systemClock, new AbortController().signal), true);
});

test("delete: usage errors", async () => {
  const { ctx } = capture();
  await assert.rejects(runDeleteCommand([], ctx), new UsageError("you must specify the type of resource to delete: pods, configmaps, secrets or namespaces, or -f FILE"));
  await assert.rejects(runDeleteCommand(["pod"], ctx), new UsageError("resource(s) were provided, but no name was specified"));
  await assert.rejects(runDeleteCommand(["svc", "x"], ctx), new UsageError('the server doesn\'t have a resource type "svc"'));
  await assert.rejects(runDeleteCommand(["pod", "x", "--grace-period", "soon"], ctx), new UsageError('invalid value "soon" for --grace-period: must be an integer'));
});
