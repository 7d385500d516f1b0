import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { captureContext, serveSelectingAgentApi } from "../../test/cli-harness.js";
import { FakeAgentApi } from "../../test/fakes/fake-agent-api.js";
import type { Pod } from "../api/types.js";
import { UsageError } from "./args.js";
import { runDeleteCommand } from "./delete-command.js";

function pod(name: string, app: string, namespace = "default"): Pod {
  return { metadata: { name, namespace, uid: `uid-${name}`, labels: { app } }, spec: { containers: [{ name: "app", image: "busybox" }] } };
}

async function setup(t: TestContext) {
  const api = new FakeAgentApi();
  for (const p of [pod("a1", "a"), pod("a2", "a"), pod("b1", "b"), pod("a3", "a", "prod")]) api.addPod(p);
  const server = await serveSelectingAgentApi(t, api);
  return { api, server };
}

async function del(url: string, ...args: string[]) {
  const c = captureContext();
  const code = await runDeleteCommand([...args, "--wait=false", "--server", url], c.ctx);
  return { code, out: c.out(), err: c.err() };
}

test("delete pods -l app=a deletes only the app=a pods of the namespace (issue 13's bug report)", async (t) => {
  const { api, server } = await setup(t);
  const run = await del(server.url, "pods", "-l", "app=a");
  assert.equal(run.code, 0, run.err);
  assert.equal(run.out, 'pod "a1" deleted\npod "a2" deleted\n');
  assert.deepEqual(api.calls.deletePod.map((c) => `${c.namespace}/${c.name}`), ["default/a1", "default/a2"]);
  const list = server.requests.find((r) => r.method === "GET" && r.path === "/api/v1/namespaces/default/pods");
  assert.equal(list?.query.get("labelSelector"), "app=a");
  const none = await del(server.url, "pods", "-l", "app=zzz");
  assert.equal(none.code, 0);
  assert.equal(none.err, "No resources found in default namespace.\n");
  const bad = await del(server.url, "pods", "-l", "app in a");
  assert.equal(bad.code, 1);
  assert.match(bad.err, /^Error from server \(BadRequest\): unable to parse requirement/);
  assert.equal(api.calls.deletePod.length, 2, "a refused selector deletes nothing");
});

test("delete pods --all deletes every pod of the namespace and no other", async (t) => {
  const { api, server } = await setup(t);
  const run = await del(server.url, "po", "--all", "-n", "prod");
  assert.equal(run.out, 'pod "a3" deleted\n');
  assert.deepEqual(api.calls.deletePod.map((c) => `${c.namespace}/${c.name}`), ["prod/a3"]);
});

test("delete -f deletes the objects a manifest names and reports kinds the agent does not serve", async (t) => {
  const { api, server } = await setup(t);
  const dir = await mkdtemp(join(tmpdir(), "probelet-delete-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, "objects.yaml");
  await writeFile(file, [
    "apiVersion: v1\nkind: Pod\nmetadata: {name: b1}\nspec: {containers: [{name: app, image: busybox}]}",
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: prod}\ndata: {a: b}",
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}",
  ].join("\n---\n"));
  const run = await del(server.url, "-f", file);
  assert.equal(run.code, 1);
  assert.match(run.out, /^pod "b1" deleted\n/);
  assert.match(run.err, new RegExp(`error: unable to recognize "${file}": no matches for kind "Deployment" in version "apps/v1"`));
  assert.deepEqual(api.calls.deletePod.map((c) => c.name), ["b1"]);
  assert.ok(server.requests.some((r) => r.method === "DELETE" && r.path === "/api/v1/namespaces/prod/configmaps/settings"), "the ConfigMap is deleted by its resource path");
});

test("delete: selection usage errors", async () => {
  const { ctx } = captureContext();
  await assert.rejects(runDeleteCommand(["pods", "a1", "-l", "app=a"], ctx), new UsageError("name cannot be provided when a selector is specified"));
  await assert.rejects(runDeleteCommand(["pods", "-l", "app=a", "--all"], ctx), new UsageError("--all and --selector cannot be given together"));
  await assert.rejects(runDeleteCommand(["pods", "-f", "x.yaml"], ctx), new UsageError("-f cannot be combined with TYPE, NAME, --selector or --all"));
  await assert.rejects(runDeleteCommand(["nodes", "--all"], ctx), new UsageError('the server doesn\'t have a resource type "nodes"'));
});
