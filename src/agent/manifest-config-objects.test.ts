// A manifest source's ConfigMaps and Secrets in the object store: created, updated and deleted
// as the file changes; an API object of the same name is never taken over.
import assert from "node:assert/strict";
import { test } from "node:test";
import { newApiStore } from "../apiserver/resources/registry.js";
import type { KubeObject } from "../apiserver/storage/object-store.js";
import { ManifestConfigObjects } from "./manifest-config-objects.js";

function configMap(name: string, data: Record<string, string>, extra: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default" }, data, ...extra } as KubeObject;
}

test("loading a file again updates only changed objects and deletes those it no longer holds", () => {
  const store = newApiStore();
  const objects = new ManifestConfigObjects(store);
  assert.deepEqual(objects.put("file:/a.yaml", [configMap("one", { k: "1" }), configMap("two", { k: "2" })]), []);
  const first = store.mustGet("configmaps", "default", "one");
  assert.deepEqual(objects.put("file:/a.yaml", [configMap("one", { k: "1" }), configMap("three", { k: "3" })]), []);
  assert.equal(store.mustGet("configmaps", "default", "one").metadata.resourceVersion, first.metadata.resourceVersion, "an unchanged object is not rewritten");
  assert.equal(store.get("configmaps", "default", "two"), undefined);
  objects.put("file:/a.yaml", [configMap("one", { k: "changed" }), configMap("three", { k: "3" })]);
  assert.deepEqual((store.mustGet("configmaps", "default", "one") as KubeObject & { data: unknown }).data, { k: "changed" });
  assert.equal(objects.loadedFromManifest("configmaps", "default", "one"), true);
  objects.put("file:/a.yaml", []);
  assert.deepEqual(store.list("configmaps").items, [], "a vanished file's objects are deleted");
});

test("an object the API created, or another file loaded, is left alone and the manifest's refused", () => {
  const store = newApiStore();
  store.create("configmaps", configMap("taken", { from: "api" }));
  const objects = new ManifestConfigObjects(store);
  objects.put("file:/b.yaml", [configMap("b", { k: "b" })]);
  assert.deepEqual(objects.put("file:/a.yaml", [configMap("taken", { from: "file" }), configMap("b", { k: "a" })]), [
    'configmaps "taken" already exists (from api)',
    'configmaps "b" already exists (from file:/b.yaml)',
  ]);
  assert.deepEqual((store.mustGet("configmaps", "default", "taken") as KubeObject & { data: unknown }).data, { from: "api" });
  assert.equal(objects.loadedFromManifest("configmaps", "default", "taken"), false);
  objects.put("file:/a.yaml", []);
  assert.notEqual(store.get("configmaps", "default", "taken"), undefined, "removing the file does not delete the API's object");
});

test("a refused object keeps its earlier version; an immutable one keeps its data; a new namespace is made", () => {
  const store = newApiStore();
  const objects = new ManifestConfigObjects(store);
  objects.put("file:/a.yaml", [configMap("frozen", { k: "1" }, { immutable: true }), configMap("kept", { k: "1" })]);
  assert.deepEqual(objects.put("file:/a.yaml", [configMap("frozen", { k: "2" }, { immutable: true })], [{ resource: "configmaps", namespace: "default", name: "kept" }]), [
    'ConfigMap "frozen" is invalid:',
    "  * data: Forbidden: field is immutable when `immutable` is set",
  ]);
  assert.deepEqual((store.mustGet("configmaps", "default", "frozen") as KubeObject & { data: unknown }).data, { k: "1" });
  assert.notEqual(store.get("configmaps", "default", "kept"), undefined);
  objects.put("file:/c.yaml", [{ ...configMap("elsewhere", {}), metadata: { name: "elsewhere", namespace: "team" } }]);
  assert.notEqual(store.get("namespaces", undefined, "team"), undefined);
});
