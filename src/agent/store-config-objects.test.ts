import assert from "node:assert/strict";
import { test } from "node:test";
import { ObjectStore } from "../apiserver/storage/object-store.js";
import { FakeClock } from "../../test/fakes/fake-clock.js";
import type { ConfigObjectChange } from "../volumes/config-objects.js";
import { storeConfigObjects } from "./store-config-objects.js";

test("storeConfigObjects reads ConfigMaps and Secrets from the object store and reports each later change once", () => {
  const store = new ObjectStore(new FakeClock());
  const objects = storeConfigObjects(store);
  store.create("configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cfg", namespace: "default" }, data: { a: "1" } });
  const changes: ConfigObjectChange[] = [];
  const stop = objects.onChange((c) => changes.push(c));
  assert.deepEqual(changes, [], "objects stored before the subscription are not replayed");
  assert.deepEqual(objects.configMap("default", "cfg")?.data, { a: "1" });
  assert.equal(objects.secret("default", "cfg"), undefined);
  store.create("secrets", { apiVersion: "v1", kind: "Secret", metadata: { name: "s", namespace: "prod" }, data: { p: "cA==" } });
  store.delete("configmaps", "default", "cfg");
  assert.deepEqual(changes, [
    { kind: "Secret", namespace: "prod", name: "s" },
    { kind: "ConfigMap", namespace: "default", name: "cfg" },
  ]);
  assert.equal(objects.configMap("default", "cfg"), undefined);
  stop();
  store.create("configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "later", namespace: "default" } });
  assert.equal(changes.length, 2, "no notification after unsubscribing");
});
