import assert from "node:assert/strict";
import { test } from "node:test";
import type { Pod } from "../api/types.js";
import { referencedNames, referencesObject } from "./volume-payload.js";

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
