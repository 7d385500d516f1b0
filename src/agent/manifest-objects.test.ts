// The non-pod objects of a manifest: ConfigMaps and Secrets checked as the API server's create
// checks them, with its field paths and messages, Secret values never quoted; other kinds skipped.
import assert from "node:assert/strict";
import { test } from "node:test";
import { collectManifestObject, emptyManifestObjects } from "./manifest-objects.js";

function collect(...objects: Record<string, unknown>[]) {
  const into = emptyManifestObjects();
  for (const object of objects) collectManifestObject(object, "app.yaml", into);
  return into;
}

test("a ConfigMap is stored as created through the API: namespace defaulted, server-set metadata dropped", () => {
  const { configObjects, errors } = collect({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cfg", uid: "u", resourceVersion: "7", labels: { a: "b" } }, data: { k: "v" } });
  assert.deepEqual(errors, []);
  assert.deepEqual(configObjects, [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cfg", namespace: "default", labels: { a: "b" } }, data: { k: "v" } }]);
});

test("a Secret's stringData is merged into data as base64 and its type defaults to Opaque", () => {
  const { configObjects } = collect({ apiVersion: "v1", kind: "Secret", metadata: { name: "s", namespace: "prod" }, stringData: { password: "pw" } });
  assert.deepEqual(configObjects, [{ apiVersion: "v1", kind: "Secret", metadata: { name: "s", namespace: "prod" }, type: "Opaque", data: { password: "cHc=" } }]);
});

test("a Secret over 1 MiB, bad base64 and an invalid key are refused with the API server's messages, naming the object for keep", () => {
  const big = Buffer.alloc(1024 * 1024 + 1).toString("base64");
  const into = collect(
    { apiVersion: "v1", kind: "Secret", metadata: { name: "big" }, data: { blob: big } },
    { apiVersion: "v1", kind: "Secret", metadata: { name: "b64" }, data: { k: "not base64!" } },
    { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "keys", namespace: "ns" }, data: { "a/b": "x" } },
  );
  assert.deepEqual(into.configObjects, []);
  assert.deepEqual(into.refused, [
    { resource: "secrets", namespace: "default", name: "big" },
    { resource: "secrets", namespace: "default", name: "b64" },
    { resource: "configmaps", namespace: "ns", name: "keys" },
  ]);
  assert.deepEqual(into.errors, [
    'app.yaml: Secret "big" is invalid:',
    "  * data: Too long: must have at most 1048576 bytes",
    'app.yaml: Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3',
    'app.yaml: ConfigMap "keys" is invalid:',
    "  * data[a/b]: Invalid value: \"a/b\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
  ]);
});

test("a Secret value of the wrong type is refused without quoting it; a ConfigMap's is quoted as the API server does", () => {
  const into = collect(
    { apiVersion: "v1", kind: "Secret", metadata: { name: "s" }, stringData: { token: 12345678 } },
    { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { n: 12345678 } },
  );
  assert.doesNotMatch(into.errors[0] ?? "", /12345678/);
  assert.match(into.errors[0] ?? "", /stringData\[token\]: Invalid value: \(redacted\): must be a string/);
  assert.match(into.errors[1] ?? "", /data\[n\]: Invalid value: 12345678: must be a string/);
});

test("objects of other kinds, and core kinds the agent does not load, are skipped with a warning naming them", () => {
  const into = collect({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" } }, { apiVersion: "v1", kind: "Service", metadata: { name: "svc" } });
  assert.deepEqual(into.configObjects, []);
  assert.deepEqual(into.errors, []);
  assert.deepEqual(into.warnings, [
    'app.yaml: skipping Deployment "web" (apps/v1): probelet runs Pods and loads ConfigMaps and Secrets from manifests; other kinds need a cluster',
    'app.yaml: skipping Service "svc" (v1): probelet runs Pods and loads ConfigMaps and Secrets from manifests; other kinds need a cluster',
  ]);
});
