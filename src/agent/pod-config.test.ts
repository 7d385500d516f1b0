// The pod config's merge, as the kubelet's podStorage.merge: a source's new set diffed against
// what it had, the operations in the kubelet's order, refusals kept out.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Pod } from "../api/types.js";
import { PodConfig, type PodUpdate } from "./pod-config.js";

function pod(name: string, uid: string, extra: Partial<Pod> = {}): Pod {
  return { metadata: { name, namespace: "default", uid }, spec: { containers: [{ name: "app", image: "img" }] }, ...extra };
}

/** recording is a PodConfig whose updates are kept as `OP source name…` lines. */
function recording(refuse?: (pod: Pod, source: string) => string[] | undefined): { config: PodConfig; seen: string[] } {
  const seen: string[] = [];
  const updates = (u: PodUpdate): void => void seen.push(`${u.op} ${u.source} ${u.pods.map((p) => p.metadata.name).join(",")}`);
  return { config: new PodConfig(refuse === undefined ? { updates } : { updates, refuse }), seen };
}

test("a source's set is diffed against what it had: removals first, then additions; an unchanged set sends nothing", () => {
  const { config, seen } = recording();
  config.set("file:/a", [pod("web", "u1"), pod("db", "u2")]);
  config.set("file:/a", [pod("db", "u2"), pod("cache", "u3")]);
  config.set("file:/a", [pod("db", "u2"), pod("cache", "u3")]);
  assert.deepEqual(seen, ["ADD file:/a web,db", "REMOVE file:/a web", "ADD file:/a cache"]);
  assert.deepEqual(config.pods("file:/a").map((p) => p.metadata.name), ["db", "cache"]);
});

test("a changed spec is an UPDATE, a deletion a DELETE, a new generation alone an UPDATE, a status alone a RECONCILE", () => {
  const { config, seen } = recording();
  const base = pod("web", "u1", { status: { phase: "Pending" } });
  config.put("api", base);
  config.put("api", { ...base, status: { phase: "Running" } });
  config.put("api", { ...base, status: { phase: "Running" }, spec: { containers: [{ name: "app", image: "img:2" }] } });
  config.put("api", { ...base, status: { phase: "Running" }, spec: { containers: [{ name: "app", image: "img:2" }] }, metadata: { ...base.metadata, generation: 2 } });
  config.put("api", { ...base, status: { phase: "Running" }, spec: { containers: [{ name: "app", image: "img:2" }] }, metadata: { ...base.metadata, generation: 2, deletionTimestamp: "2026-01-01T00:00:00Z", deletionGracePeriodSeconds: 30 } });
  config.remove("api", base);
  config.remove("api", base);
  assert.deepEqual(seen, ["ADD api web", "RECONCILE api web", "UPDATE api web", "UPDATE api web", "DELETE api web", "REMOVE api web"]);
});

test("put replaces a pod of the same name in its source (removal first) and keeps the copy it had when nothing changed", () => {
  const { config, seen } = recording();
  const first = pod("web", "u1", { metadata: { name: "web", namespace: "default", uid: "u1", creationTimestamp: "2026-01-01T00:00:00Z" } });
  config.put("file:/a", first);
  const again = config.put("file:/a", pod("web", "u1", { metadata: { name: "web", namespace: "default", uid: "u1", creationTimestamp: "2026-01-02T00:00:00Z" } }));
  assert.deepEqual(again, { ok: true, pod: first });
  config.put("file:/a", pod("web", "u2"));
  assert.deepEqual(seen, ["ADD file:/a web", "REMOVE file:/a web", "ADD file:/a web"]);
  assert.deepEqual(config.pods("file:/a").map((p) => p.metadata.uid), ["u2"]);
});

test("of two pods of one name in a set the later is kept", () => {
  const { config, seen } = recording();
  config.set("file:/a", [pod("web", "u1"), pod("web", "u2")]);
  assert.deepEqual(seen, ["ADD file:/a web"]);
  assert.deepEqual(config.pods("file:/a").map((p) => p.metadata.uid), ["u2"]);
});

test("a refused pod is not kept, and a later set of its source offers it again", () => {
  let taken = true;
  const { config, seen } = recording((p, source) => (taken && source !== "api" ? [`pods "${p.metadata.name ?? ""}" already exists (from api)`] : undefined));
  assert.deepEqual(config.put("file:/a", pod("web", "u1")), { ok: false, errors: ['pods "web" already exists (from api)'] });
  assert.deepEqual(config.set("file:/a", [pod("web", "u1"), pod("db", "u2")]).map((r) => r.errors), [['pods "web" already exists (from api)'], ['pods "db" already exists (from api)']]);
  assert.deepEqual(seen, []);
  taken = false;
  config.set("file:/a", [pod("web", "u1")]);
  assert.deepEqual(seen, ["ADD file:/a web"]);
  assert.equal(config.sourceOf("default", "web"), "file:/a");
  assert.equal(config.sourceOf("default", "db"), undefined);
});
