import assert from "node:assert/strict";
import { test } from "node:test";
import type { Pod } from "../api/types.js";
import { lintSecurityContext } from "./lint-security-context.js";

const pod: Pod = {
  metadata: { name: "p", namespace: "default" },
  spec: {
    securityContext: { runAsUser: 65534, runAsNonRoot: true },
    initContainers: [{ name: "init", command: ["true"], securityContext: { runAsUser: 1000 } }],
    containers: [{ name: "app", command: ["true"] }, { name: "net", command: ["true"], securityContext: { runAsUser: 1000, capabilities: { add: ["NET_ADMIN"] } } }],
  },
};

test("lint warns, per container, about the securityContext field a non-root process-runtime agent cannot apply (the pod's fields count)", () => {
  assert.deepEqual(lintSecurityContext(pod, { uid: 1000, gid: 1000, supervised: true }), [
    "spec.containers[0]: securityContext.runAsUser on the process runtime needs the agent to run as root (to run the container as uid 65534); it runs as uid 1000: on the process runtime the container would wait (CreateContainerConfigError)",
    "spec.containers[1]: securityContext.capabilities.add on the process runtime needs the agent to run as root (to grant capabilities); it runs as uid 1000: on the process runtime the container would wait (CreateContainerConfigError)",
  ]);
});

test("lint has nothing to say about securityContext as root", () => {
  assert.deepEqual(lintSecurityContext(pod, { uid: 0, gid: 0, supervised: true }), []);
});
