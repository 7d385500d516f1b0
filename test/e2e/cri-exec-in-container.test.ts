// CRI only: exec probes run inside the container, not on the host. A readiness probe reads
// /etc/probelet-image, which exists only in the busybox image; a liveness probe tests a file the
// container's own command created in the container's /tmp. Neither file exists on the host, so
// a probe run on the host would keep the pod unready and restart it.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { describe, test } from "node:test";
import { assertNoCriLeftoversAfterAll, criRuntimeFactory } from "./cri-runtime-factory.js";
import { PAUSE_SCRIPT } from "./cri-pod-kit.js";
import { containerStatusOf, E2eEnv, isPodRunningReady } from "./harness.js";
import { sleep } from "./host.js";
import { MINUTE } from "./probe-case.js";
import { execHandler, podWith } from "./pod-specs.js";

/** IMAGE_ONLY_FILE is in the busybox image (scripts/containerd.sh) and not on a normal host. */
const IMAGE_ONLY_FILE = "/etc/probelet-image";

/** probeCount reads prober_probe_total for one probe type, result and pod from the agent's metrics. */
async function probeCount(env: E2eEnv, probeType: string, result: string, pod: string): Promise<number> {
  const text = await env.agent.probeMetrics();
  let total = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith("prober_probe_total{")) continue;
    if (!line.includes(`probe_type="${probeType}"`) || !line.includes(`result="${result}"`) || !line.includes(`pod="${pod}"`)) continue;
    total += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return total;
}

describe("CRI exec probes", () => {
  assertNoCriLeftoversAfterAll();
  const skip = criRuntimeFactory.available();

  test(
    "[cri] exec probes run inside the container: an image-only file makes the pod Ready, a file the container wrote keeps it alive",
    { timeout: 4 * MINUTE, ...(skip !== undefined ? { skip } : {}) },
    async (t) => {
      const marker = `/tmp/probelet-e2e-${randomUUID()}`;
      assert.equal(existsSync(IMAGE_ONLY_FILE), false, `${IMAGE_ONLY_FILE} exists on the host: the test could not tell host from container`);
      assert.equal(existsSync(marker), false, `${marker} exists on the host`);

      const env = await E2eEnv.start(t, criRuntimeFactory);
      const kit = env.kit;
      const container = {
        name: "busybox",
        ...kit.busybox(["/bin/sh", "-c", `touch ${marker}; ${PAUSE_SCRIPT}`]),
        readinessProbe: { ...execHandler(["cat", IMAGE_ONLY_FILE]), periodSeconds: 2 },
        livenessProbe: { ...execHandler(["test", "-f", marker]), initialDelaySeconds: 1, periodSeconds: 1, failureThreshold: 1 },
      };
      const pod = env.create(podWith(kit, "container", "exec-inside", container));
      const name = pod.metadata.name ?? "";
      assert.equal(pod.spec.hostNetwork, true, "CRI pods use the host network");

      await env.waitFor(name, "pod Running and Ready", 2 * MINUTE, (p) => (isPodRunningReady(p) ? true : undefined));
      // At least 5 liveness probes succeeded (period 1 s), none failed.
      let live = 0;
      for (let i = 0; i < 60 && live < 5; i++) {
        live = await probeCount(env, "Liveness", "successful", name);
        if (live < 5) await sleep(1000);
      }
      t.diagnostic(`liveness successes: ${live}, readiness successes: ${await probeCount(env, "Readiness", "successful", name)}`);
      assert.ok(live >= 5, `expected ≥ 5 successful liveness probes, saw ${live}\n${env.describe(name)}`);
      assert.equal(await probeCount(env, "Liveness", "failed", name), 0, `a liveness probe failed\n${env.describe(name)}`);
      assert.equal(await probeCount(env, "Readiness", "failed", name), 0, `a readiness probe failed\n${env.describe(name)}`);

      const current = env.get(name);
      assert.ok(isPodRunningReady(current), env.describe(name));
      assert.equal(containerStatusOf(current, "busybox")?.restartCount, 0, env.describe(name));
      assert.deepEqual(
        env.events(name).filter((e) => e.reason === "Unhealthy"),
        [],
        "no Unhealthy event",
      );
      // The container wrote its file in its own /tmp: still nothing on the host.
      assert.equal(existsSync(marker), false, `${marker} appeared on the host: the container's /tmp is the host's`);
    },
  );
});
