// Namespaces, ConfigMaps and Secrets created through the API survive an agent restart on the same
// state directory, owner-only on disk; resourceVersions keep growing across the restart; what a
// manifest loaded is not saved (the manifest loads it again); a damaged file is skipped.
import assert from "node:assert/strict";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { FakeClock } from "../../test/fakes/fake-clock.js";
import { FakeRuntime } from "../../test/fakes/fake-runtime.js";
import type { KubeObject } from "../apiserver/storage/object-store.js";
import { Agent } from "./agent.js";
import { startLocalApiServer } from "../apiserver/local-api-server.js";

async function stateDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "probelet-api-objects-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function restoredAgent(dir: string): Promise<Agent> {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const agent = new Agent({ api: startLocalApiServer(clock), runtime: new FakeRuntime(clock), stateDir: dir, clock, nodeName: "node-a" });
  await agent.restore();
  return agent;
}

const namespace = (name: string): KubeObject => ({ apiVersion: "v1", kind: "Namespace", metadata: { name }, spec: { finalizers: ["kubernetes"] }, status: { phase: "Active" } }) as KubeObject;
const configMap = (name: string, ns = "team"): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: ns }, data: { k: "v" } }) as KubeObject;
const secret = (name: string): KubeObject => ({ apiVersion: "v1", kind: "Secret", metadata: { name, namespace: "team" }, type: "Opaque", data: { password: "c2VjcmV0" } }) as KubeObject;

test("namespaces, configmaps and secrets created through the API come back after a restart with their UIDs, and resourceVersions keep growing", async (t) => {
  const dir = await stateDir(t);
  const first = await restoredAgent(dir);
  const ns = first.store.create("namespaces", namespace("team"));
  const cm = first.store.create("configmaps", configMap("cfg"));
  const sec = first.store.create("secrets", secret("creds"));
  first.putConfigObjects("file:/m/app.yaml", [configMap("from-file", "default")]);
  // More changes than a fresh store makes while restoring, so only a continued counter is above them.
  for (let i = 0; i < 50; i++) first.store.modify("configmaps", "team", "cfg", (c) => ({ ...c, metadata: { ...c.metadata, labels: { n: String(i) } } }));
  const before = Number(first.store.resourceVersion);
  await first.close();

  const second = await restoredAgent(dir);
  t.after(() => second.close());
  assert.equal(second.store.get("namespaces", undefined, "team")?.metadata.uid, ns.metadata.uid);
  assert.equal(second.store.get("configmaps", "team", "cfg")?.metadata.uid, cm.metadata.uid);
  assert.deepEqual((second.store.get("secrets", "team", "creds") as KubeObject & { data: unknown }).data, { password: "c2VjcmV0" });
  assert.equal(second.store.get("secrets", "team", "creds")?.metadata.creationTimestamp, sec.metadata.creationTimestamp);
  assert.equal(second.store.get("configmaps", "default", "from-file"), undefined, "a manifest's object is the manifest's to load again");
  assert.ok(Number(second.store.resourceVersion) > before, "the restarted store continues above every resourceVersion handed out before");
  assert.ok(Number(second.store.create("configmaps", configMap("later")).metadata.resourceVersion) > before);
});

test("the saved objects are owner-only: files 0600 in a 0700 directory, the resourceVersion mark too", async (t) => {
  const dir = await stateDir(t);
  const agent = await restoredAgent(dir);
  agent.store.create("namespaces", namespace("team"));
  agent.store.create("secrets", secret("creds"));
  await agent.close();
  assert.equal((await stat(join(dir, "state", "objects"))).mode & 0o777, 0o700);
  for (const file of ["namespaces.json", "secrets.json"]) assert.equal((await stat(join(dir, "state", "objects", file))).mode & 0o777, 0o600, file);
  assert.equal((await stat(join(dir, "state", "revision"))).mode & 0o777, 0o600);
});

test("a deleted object stays deleted after a restart; a damaged file is skipped and the others still restore", async (t) => {
  const dir = await stateDir(t);
  const first = await restoredAgent(dir);
  first.store.create("namespaces", namespace("team"));
  first.store.create("configmaps", configMap("gone"));
  first.store.create("configmaps", configMap("kept"));
  first.store.create("secrets", secret("creds"));
  first.store.delete("configmaps", "team", "gone");
  await first.close();
  await writeFile(join(dir, "state", "objects", "secrets.json"), "{not json");
  const second = await restoredAgent(dir);
  t.after(() => second.close());
  assert.deepEqual(second.store.list("configmaps", { namespace: "team" }).items.map((o) => o.metadata.name), ["kept"]);
  assert.deepEqual(second.store.list("secrets").items, []);
});
