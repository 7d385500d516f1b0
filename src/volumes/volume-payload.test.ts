import assert from "node:assert/strict";
import { test } from "node:test";
import type { Pod } from "../api/types.js";
import { MemoryConfigObjects } from "./config-objects.js";
import { referencedNames, referencesObject, volumePayload } from "./volume-payload.js";

test("referencedNames finds every ConfigMap and Secret a pod reads: env, envFrom, init containers, configMap, secret and projected volumes", () => {
  const pod: Pod = {
    metadata: { name: "p", namespace: "apps" },
    spec: {
      initContainers: [{ name: "init", envFrom: [{ secretRef: { name: "init-secret" } }] }],
      containers: [
        {
          name: "app",
          envFrom: [{ configMapRef: { name: "from-cm" } }],
          env: [
            { name: "A", valueFrom: { configMapKeyRef: { name: "key-cm", key: "a" } } },
            { name: "B", valueFrom: { secretKeyRef: { name: "key-secret", key: "b" } } },
            { name: "C", value: "literal" },
          ],
        },
      ],
      volumes: [
        { name: "v1", configMap: { name: "vol-cm" } },
        { name: "v2", secret: { secretName: "vol-secret" } },
        { name: "v3", projected: { sources: [{ configMap: { name: "proj-cm" } }, { secret: { name: "proj-secret" } }, { downwardAPI: { items: [] } }] } },
      ],
    },
  };
  assert.deepEqual([...referencedNames(pod, "ConfigMap")].sort(), ["from-cm", "key-cm", "proj-cm", "vol-cm"]);
  assert.deepEqual([...referencedNames(pod, "Secret")].sort(), ["init-secret", "key-secret", "proj-secret", "vol-secret"]);
  assert.equal(referencesObject(pod, "Secret", "proj-secret"), true);
  assert.equal(referencesObject(pod, "ConfigMap", "vol-secret"), false);
});

test("#139168: a Secret value that is not UTF-8 is written to its file as its exact bytes (secret and projected volumes)", async () => {
  const raw = Buffer.from([0xff, 0xfe, 0x41]);
  const objects = new MemoryConfigObjects();
  objects.putSecret({ metadata: { name: "bin", namespace: "default" }, data: { key: raw.toString("base64") } });
  const pod: Pod = { metadata: { name: "p", namespace: "default", uid: "u" }, spec: { containers: [{ name: "c" }] } };
  const ctx = { pod, objects, addresses: { podIP: "10.0.0.1", hostIP: "10.0.0.2" }, node: { cpu: 1, memory: 1, ephemeralStorage: 1 } };
  assert.deepEqual((await volumePayload(ctx, { name: "s", secret: { secretName: "bin" } })).get("key")?.data, raw);
  assert.deepEqual((await volumePayload(ctx, { name: "p", projected: { sources: [{ secret: { name: "bin" } }] } })).get("key")?.data, raw);
});
