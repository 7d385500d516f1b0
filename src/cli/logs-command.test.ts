import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { captureContext, serveAgentApi } from "../../test/cli-harness.js";
import { FakeAgentApi, FAKE_TIME } from "../../test/fakes/fake-agent-api.js";
import type { Pod } from "../api/types.js";
import { UsageError } from "./args.js";
import { runLogsCommand } from "./logs-command.js";

function pod(name: string, containers: string[]): Pod {
  return { metadata: { name, namespace: "default" }, spec: { containers: containers.map((c) => ({ name: c, image: "busybox" })) } };
}

async function setup(t: TestContext) {
  const api = new FakeAgentApi();
  api.addPod(pod("web", ["app"]));
  api.addPod(pod("duo", ["a", "b"]));
  api.appendLog("default", "web", "app", "one", "two", "three");
  api.appendLog("default", "duo", "b", "from b");
  const server = await serveAgentApi(t, api);
  return { api, server };
}

const capture = () => captureContext();

async function waitFor(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 250 && !check(); i++) await new Promise((r) => setTimeout(r, 20));
  assert.ok(check(), `timed out waiting for ${what}`);
}

test("logs prints the log; --tail, --timestamps, -c and pod/NAME select what", async (t) => {
  const { api, server } = await setup(t);
  const cases: { args: string[]; want: string }[] = [
    { args: ["web"], want: "one\ntwo\nthree\n" },
    { args: ["pod/web", "--tail", "2"], want: "two\nthree\n" },
    { args: ["web", "--tail=-1", "--timestamps"], want: `${FAKE_TIME} one\n${FAKE_TIME} two\n${FAKE_TIME} three\n` },
    { args: ["duo", "-c", "b"], want: "from b\n" },
    { args: ["web", "-p"], want: "" },
  ];
  for (const c of cases) {
    const { ctx, out, err } = capture();
    assert.equal(await runLogsCommand([...c.args, "--server", server.url], ctx), 0, c.args.join(" "));
    assert.equal(out(), c.want, c.args.join(" "));
    assert.equal(err(), "");
  }
  assert.deepEqual(api.calls.readLogs[2], { namespace: "default", name: "web", previous: false, follow: false, timestamps: true, container: "app" });
  assert.deepEqual(api.calls.readLogs[4], { namespace: "default", name: "web", previous: true, follow: false, timestamps: false, container: "app" });
});

test("logs: server errors are printed as kubectl does, exit 1", async (t) => {
  const { server } = await setup(t);
  const cases: { args: string[]; want: string }[] = [
    { args: ["nope"], want: 'Error from server (NotFound): pods "nope" not found\n' },
    { args: ["web", "-c", "x"], want: "Error from server (BadRequest): container x is not valid for pod web\n" },
  ];
  for (const c of cases) {
    const { ctx, out, err } = capture();
    assert.equal(await runLogsCommand([...c.args, "--server", server.url], ctx), 1, c.args.join(" "));
    assert.equal(err(), c.want);
    assert.equal(out(), "");
  }
});

test("logs -f streams new lines until Ctrl-C, then exits 0 and the agent's reader is released", async (t) => {
  const { api, server } = await setup(t);
  const { ctx, out, abort } = capture();
  const done = runLogsCommand(["web", "-f", "--tail", "1", "--server", server.url], ctx);
  await waitFor(() => out() === "three\n", "the tail");
  api.appendLog("default", "web", "app", "four");
  await waitFor(() => out() === "three\nfour\n", "the followed line");
  abort();
  assert.equal(await done, 0);
  await waitFor(() => api.activeLogReaders === 0, "the reader to stop");
});

test("logs -f ends with exit 0 when the agent ends the stream", async (t) => {
  const { server } = await setup(t);
  const { ctx, out } = capture();
  const done = runLogsCommand(["web", "-f", "--server", server.url], ctx);
  await waitFor(() => out() === "one\ntwo\nthree\n", "the log");
  await server.close();
  assert.equal(await done, 0);
});

test("logs: usage errors", async () => {
  const { ctx } = capture();
  await assert.rejects(runLogsCommand([], ctx), new UsageError("a pod name is required: probelet logs NAME"));
  await assert.rejects(runLogsCommand(["a", "b"], ctx), new UsageError("logs takes one pod, got a, b"));
  await assert.rejects(runLogsCommand(["a", "--tail=-2"], ctx), new UsageError('invalid value "-2" for --tail: must be -1 (all lines) or more'));
  await assert.rejects(runLogsCommand(["a", "--tail", "x"], ctx), new UsageError('invalid value "x" for --tail: must be an integer'));
});

test("logs without -c on a multi-container pod picks the default container as kubectl 1.32 does, with its notice", async (t) => {
  const api = new FakeAgentApi();
  const duo = pod("duo", ["a", "b"]);
  api.addPod({ ...duo, spec: { ...duo.spec, initContainers: [{ name: "setup", image: "busybox" }] } });
  api.addPod({ ...pod("noted", ["a", "b"]), metadata: { name: "noted", namespace: "default", annotations: { "kubectl.kubernetes.io/default-container": "b" } } });
  api.addPod({ ...pod("stale", ["a", "b"]), metadata: { name: "stale", namespace: "default", annotations: { "kubectl.kubernetes.io/default-container": "gone" } } });
  for (const name of ["duo", "noted", "stale"]) {
    api.appendLog("default", name, "a", `${name} from a`);
    api.appendLog("default", name, "b", `${name} from b`);
  }
  const server = await serveAgentApi(t, api);
  const cases: { name: string; out: string; err: string }[] = [
    { name: "duo", out: "duo from a\n", err: 'Defaulted container "a" out of: a, b, setup (init)\n' },
    { name: "noted", out: "noted from b\n", err: "" },
    { name: "stale", out: "stale from a\n", err: 'Default container name "gone" not found in pod stale\nDefaulted container "a" out of: a, b\n' },
  ];
  for (const c of cases) {
    const { ctx, out, err } = capture();
    assert.equal(await runLogsCommand([c.name, "--server", server.url], ctx), 0, c.name);
    assert.deepEqual([out(), err()], [c.out, c.err], c.name);
  }
});
