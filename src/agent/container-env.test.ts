import assert from "node:assert/strict";
import { test } from "node:test";
import type { Container, Pod } from "../api/types.js";
import { keyValueBytes } from "../runtime/runtime.js";
import { ConfigObjectError, MemoryConfigObjects } from "../volumes/config-objects.js";
import { expandCommandAndArgs, isEnvVarName, resolveContainerEnv, type EnvResult } from "./container-env.js";

const node = { cpu: 4, memory: 8 * 2 ** 30, ephemeralStorage: 100 * 2 ** 30 };
const addresses = { podIP: "10.1.2.3", hostIP: "192.168.0.7" };

function pod(container: Container): Pod {
  return {
    metadata: { name: "web", namespace: "default", uid: "u-1", labels: { app: "a" }, annotations: { note: "n" } },
    spec: { containers: [container], nodeName: "node-1", serviceAccountName: "sa" },
  };
}

function objects(): MemoryConfigObjects {
  const o = new MemoryConfigObjects();
  o.putConfigMap({ metadata: { name: "cfg", namespace: "default" }, data: { mode: "fast", "1bad": "x", level: "3" } });
  o.putSecret({ metadata: { name: "creds", namespace: "default" }, data: { password: Buffer.from("s3cret").toString("base64") } });
  return o;
}

function resolve(container: Omit<Container, "name">, o = objects()): EnvResult {
  const c = { name: "app", ...container };
  return resolveContainerEnv({ pod: pod(c), addresses, objects: o, node }, c);
}

function envOf(result: EnvResult): Record<string, string> {
  assert.ok(result.ok, result.ok ? "" : result.message);
  return Object.fromEntries(result.env.map((e) => [e.key, e.value]));
}

test("env resolution table: each source resolves as makeEnvironmentVariables does", () => {
  const cases: [string, NonNullable<Container["env"]>, Record<string, string>][] = [
    ["configMapKeyRef", [{ name: "MODE", valueFrom: { configMapKeyRef: { name: "cfg", key: "mode" } } }], { MODE: "fast" }],
    ["secretKeyRef decodes base64", [{ name: "PW", valueFrom: { secretKeyRef: { name: "creds", key: "password" } } }], { PW: "s3cret" }],
    ["fieldRef metadata.name", [{ name: "N", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }], { N: "web" }],
    ["fieldRef metadata.namespace", [{ name: "N", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } }], { N: "default" }],
    ["fieldRef metadata.uid", [{ name: "N", valueFrom: { fieldRef: { fieldPath: "metadata.uid" } } }], { N: "u-1" }],
    ["fieldRef a label", [{ name: "N", valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } }], { N: "a" }],
    ["fieldRef an annotation", [{ name: "N", valueFrom: { fieldRef: { fieldPath: "metadata.annotations['note']" } } }], { N: "n" }],
    ["fieldRef spec.nodeName", [{ name: "N", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } }], { N: "node-1" }],
    ["fieldRef spec.serviceAccountName", [{ name: "N", valueFrom: { fieldRef: { fieldPath: "spec.serviceAccountName" } } }], { N: "sa" }],
    ["fieldRef status.hostIP", [{ name: "N", valueFrom: { fieldRef: { fieldPath: "status.hostIP" } } }], { N: "192.168.0.7" }],
    ["fieldRef status.hostIPs", [{ name: "N", valueFrom: { fieldRef: { fieldPath: "status.hostIPs" } } }], { N: "192.168.0.7" }],
    ["fieldRef status.podIP", [{ name: "N", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } }], { N: "10.1.2.3" }],
    ["fieldRef status.podIPs", [{ name: "N", valueFrom: { fieldRef: { fieldPath: "status.podIPs" } } }], { N: "10.1.2.3" }],
    ["resourceFieldRef limits.cpu defaults to the node's CPUs", [{ name: "C", valueFrom: { resourceFieldRef: { resource: "limits.cpu" } } }], { C: "4" }],
    ["resourceFieldRef limits.memory with divisor 1Mi defaults to the node's memory", [{ name: "M", valueFrom: { resourceFieldRef: { resource: "limits.memory", divisor: "1Mi" } } }], { M: "8192" }],
    ["resourceFieldRef limits.ephemeral-storage with divisor 1Gi", [{ name: "E", valueFrom: { resourceFieldRef: { resource: "limits.ephemeral-storage", divisor: "1Gi" } } }], { E: "100" }],
    ["resourceFieldRef requests.cpu unset is 0", [{ name: "C", valueFrom: { resourceFieldRef: { resource: "requests.cpu" } } }], { C: "0" }],
    ["$(VAR) expands against earlier variables only", [{ name: "A", value: "x" }, { name: "B", value: "$(A)-$(C)" }, { name: "C", value: "c" }], { A: "x", B: "x-$(C)", C: "c" }],
    ["$$ escapes a reference", [{ name: "A", value: "x" }, { name: "B", value: "$$(A)" }], { A: "x", B: "$(A)" }],
    ["optional configMapKeyRef of a missing object skips the variable", [{ name: "X", valueFrom: { configMapKeyRef: { name: "nope", key: "k", optional: true } } }], {}],
    ["optional secretKeyRef of a missing key skips the variable", [{ name: "X", valueFrom: { secretKeyRef: { name: "creds", key: "nope", optional: true } } }], {}],
  ];
  for (const [name, env, expected] of cases) assert.deepEqual(envOf(resolve({ env })), expected, name);
});

test("resourceFieldRef reads the container's limits and requests, CPU in millicores with divisor 1m, rounded up", () => {
  const resources = { limits: { cpu: "250m", memory: "100Mi" }, requests: { cpu: "1500m", memory: "64Mi" } };
  const env = envOf(
    resolve({
      resources,
      env: [
        { name: "LIMIT_M", valueFrom: { resourceFieldRef: { resource: "limits.cpu", divisor: "1m" } } },
        { name: "LIMIT_CORES", valueFrom: { resourceFieldRef: { resource: "limits.cpu" } } },
        { name: "REQ_CORES", valueFrom: { resourceFieldRef: { resource: "requests.cpu" } } },
        { name: "MEM_MI", valueFrom: { resourceFieldRef: { resource: "limits.memory", divisor: "1Mi" } } },
        { name: "REQ_BYTES", valueFrom: { resourceFieldRef: { resource: "requests.memory" } } },
      ],
    }),
  );
  assert.deepEqual(env, { LIMIT_M: "250", LIMIT_CORES: "1", REQ_CORES: "2", MEM_MI: "100", REQ_BYTES: String(64 * 2 ** 20) });
});

test("envFrom comes first, with its prefix, and env overrides it; env values may reference envFrom variables", () => {
  const env = resolve({
    envFrom: [{ configMapRef: { name: "cfg" }, prefix: "CFG_" }, { secretRef: { name: "creds" } }],
    env: [{ name: "CFG_mode", value: "slow" }, { name: "SUMMARY", value: "$(CFG_level)/$(password)" }],
  });
  assert.ok(env.ok);
  assert.deepEqual(env.env, [
    { key: "CFG_mode", value: "slow" },
    { key: "CFG_1bad", value: "x" },
    { key: "CFG_level", value: "3" },
    { key: "password", value: "s3cret" },
    { key: "SUMMARY", value: "3/s3cret" },
  ]);
  assert.deepEqual(env.warnings, []);
});

test("envFrom keys that are not valid variable names are skipped with the kubelet's InvalidEnvironmentVariableNames event", () => {
  const result = resolve({ envFrom: [{ configMapRef: { name: "cfg" } }] });
  assert.deepEqual(envOf(result), { mode: "fast", level: "3" });
  assert.deepEqual(result.warnings, [
    {
      reason: "InvalidEnvironmentVariableNames",
      message: "Keys [1bad] from the EnvFrom configMap default/cfg were skipped since they are considered invalid environment variable names.",
    },
  ]);
});

test("missing required sources fail with the kubelet's messages; optional envFrom sources are skipped", () => {
  const cases: [string, Omit<Container, "name">, string][] = [
    ["configMapKeyRef, object missing", { env: [{ name: "X", valueFrom: { configMapKeyRef: { name: "x", key: "y" } } }] }, 'configmap "x" not found'],
    ["configMapKeyRef, key missing", { env: [{ name: "X", valueFrom: { configMapKeyRef: { name: "cfg", key: "y" } } }] }, "couldn't find key y in ConfigMap default/cfg"],
    ["secretKeyRef, object missing", { env: [{ name: "X", valueFrom: { secretKeyRef: { name: "x", key: "y" } } }] }, 'secret "x" not found'],
    ["secretKeyRef, key missing", { env: [{ name: "X", valueFrom: { secretKeyRef: { name: "creds", key: "y" } } }] }, "couldn't find key y in Secret default/creds"],
    ["envFrom configMapRef missing", { envFrom: [{ configMapRef: { name: "x" } }] }, 'configmap "x" not found'],
    ["envFrom secretRef missing", { envFrom: [{ secretRef: { name: "x" } }] }, 'secret "x" not found'],
  ];
  for (const [name, container, message] of cases) {
    const result = resolve(container);
    assert.equal(result.ok, false, name);
    assert.equal(result.ok ? "" : result.message, message, name);
  }
  assert.deepEqual(envOf(resolve({ envFrom: [{ configMapRef: { name: "x", optional: true } }, { secretRef: { name: "y", optional: true } }] })), {});
});

test("an object that could not be read fails the container with the reader's message, even through an optional reference", () => {
  const unsynced = objects();
  unsynced.configMap = () => {
    throw new ConfigObjectError("failed to sync configmap cache: timed out waiting for the condition");
  };
  for (const env of [[{ name: "M", valueFrom: { configMapKeyRef: { name: "cfg", key: "mode" } } }], [{ name: "M", valueFrom: { configMapKeyRef: { name: "cfg", key: "mode", optional: true } } }]]) {
    const result = resolve({ env }, unsynced);
    assert.deepEqual(result.ok ? "resolved" : result.message, "failed to sync configmap cache: timed out waiting for the condition");
  }
});

test("secret values never appear in a failure message or a warning", () => {
  const o = objects();
  o.putSecret({ metadata: { name: "bad", namespace: "default" }, data: { "not valid!": Buffer.from("hunter2").toString("base64") } });
  const result = resolve({ envFrom: [{ secretRef: { name: "bad" } }], env: [{ name: "X", valueFrom: { secretKeyRef: { name: "bad", key: "missing" } } }] }, o);
  assert.equal(result.ok, false);
  assert.ok(!JSON.stringify(result).includes("hunter2"));
  assert.match(result.warnings[0]?.message ?? "", /^Keys \[not valid!\] from the EnvFrom secret default\/bad were skipped/);
});

test("isEnvVarName follows IsEnvVarName: a C-like name with '-' and '.', not '.', '..' or a leading '..'", () => {
  for (const ok of ["A", "a-b", "a.b", "_x", "-x"]) assert.ok(isEnvVarName(ok), ok);
  for (const bad of ["1a", "", ".", "..", "..a", "a b", "a=b"]) assert.ok(!isEnvVarName(bad), bad);
});

test("#136325: `$` before a multi-byte character stays whole in env values, command and args", () => {
  const c: Container = { name: "app", command: ["sh", "-c", "echo a$é"], args: ["$中文", "$(X)$€"], env: [{ name: "X", value: "a$é" }] };
  const result = resolveContainerEnv({ pod: pod(c), addresses, objects: objects(), node }, c);
  assert.deepEqual(envOf(result), { X: "a$é" });
  assert.deepEqual(expandCommandAndArgs(c, result.ok ? result.env : []), { command: ["sh", "-c", "echo a$é"], args: ["$中文", "a$é$€"] });
});

test("#139168: a Secret value that is not UTF-8 keeps its exact bytes in env, envFrom and $(VAR) references", () => {
  const o = objects();
  const raw = Buffer.from([0xff, 0xfe, 0x41]);
  o.putSecret({ metadata: { name: "bin", namespace: "default" }, data: { key: raw.toString("base64") } });
  const result = resolve({ envFrom: [{ secretRef: { name: "bin" }, prefix: "F_" }], env: [{ name: "RAW", valueFrom: { secretKeyRef: { name: "bin", key: "key" } } }, { name: "REF", value: "x$(RAW)é" }, { name: "PLAIN", value: "é" }] }, o);
  assert.ok(result.ok);
  const byName = new Map(result.env.map((kv) => [kv.key, kv]));
  assert.deepEqual(keyValueBytes(byName.get("RAW")!), raw);
  assert.deepEqual(keyValueBytes(byName.get("F_key")!), raw);
  assert.deepEqual(keyValueBytes(byName.get("REF")!), Buffer.concat([Buffer.from("x"), raw, Buffer.from("é")]));
  // The text form keeps U+FFFD for display; valid UTF-8 carries no bytes field.
  assert.equal(byName.get("RAW")!.value, "\ufffd\ufffdA");
  assert.deepEqual(byName.get("PLAIN"), { key: "PLAIN", value: "é" });
});
