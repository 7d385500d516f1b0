// The end of a pod's life (issue 12 items 8 and 11): a pod whose containers all finished keeps
// its stopped sandbox, with PodReadyToStartContainers False (kubelet SyncTerminatingPod →
// killPodWithSyncResult, generate.go); a deleted pod keeps probing readiness until its containers
// stop, so it stays Ready while its readiness passes (prober worker.go doProbe stops only liveness
// and startup on deletion; the endpoint controllers, not the kubelet, stop sending it traffic).
// Titled `[<runtime>] Pod end: …` for every runtime factory.
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { LABEL_POD_UID } from "../../src/kuberuntime/labels.js";
import type { Container, Pod } from "../../src/api/types.js";
import { containerStatusOf, E2eEnv, NAMESPACE } from "./harness.js";
import type { PodKit } from "./pod-kit.js";
import { runtimeTest, type RuntimeFactory } from "./runtime-factory.js";

const WAIT_MS = 30_000;

function endPod(kit: PodKit, prefix: string, container: Container, spec: Partial<Pod["spec"]> = {}): Pod {
  const name = `${prefix}-${Math.random().toString(36).slice(2, 10)}`;
  return { metadata: { name, namespace: NAMESPACE }, spec: { ...(kit.hostNetwork ? { hostNetwork: true } : {}), containers: [container], ...spec } };
}

const condition = (pod: Pod | undefined, type: string): string | undefined => pod?.status?.conditions?.find((c) => c.type === type)?.status;

/** registerPodEndCases declares the pod end cases for one runtime (call inside a describe). */
export function registerPodEndCases(factory: RuntimeFactory): void {
  runtimeTest(factory, `[${factory.name}] Pod end: a pod whose containers all finished has its sandbox stopped (kept until deletion) and PodReadyToStartContainers False`, { timeout: 60_000 }, async (t) => {
    const env = await E2eEnv.start(t, factory);
    const container: Container = { name: "job", ...env.kit.busybox(["/bin/sh", "-c", "exit 0"]) };
    const pod = env.create(endPod(env.kit, "finished", container, { restartPolicy: "Never" }));
    const name = pod.metadata.name!;
    await env.waitFor(name, "phase Succeeded and PodReadyToStartContainers False", WAIT_MS, (p) => (p?.status?.phase === "Succeeded" && condition(p, "PodReadyToStartContainers") === "False" ? true : undefined), 100);
    const sandboxes = await env.runtime.listPodSandboxes({ labels: { [LABEL_POD_UID]: pod.metadata.uid ?? "" } });
    assert.deepEqual(sandboxes.map((s) => s.state), ["notready"], "one sandbox, stopped, still there");
    assert.equal(containerStatusOf(env.get(name), "job")?.state?.terminated?.exitCode, 0, "the container's status is kept");
  });

  runtimeTest(factory, `[${factory.name}] Pod end: readiness during termination stays the kubelet's: a deleted pod whose readiness passes stays Ready until it fails or the containers stop`, { timeout: 60_000 }, async (t) => {
    const env = await E2eEnv.start(t, factory);
    const ready = env.kit.tmp("ready");
    // SIGTERM is trapped: the file goes 2 s later and the container keeps running until SIGKILL.
    const script = `touch ${ready}; trap 'sleep 2; rm -f ${ready}' TERM; while true; do sleep 0.2; done`;
    const container: Container = {
      name: "web",
      ...env.kit.busybox(["/bin/sh", "-c", script]),
      readinessProbe: { exec: { command: ["/bin/cat", ready] }, periodSeconds: 1, failureThreshold: 1 },
    };
    const name = env.create(endPod(env.kit, "terminating", container, { terminationGracePeriodSeconds: 10 })).metadata.name!;
    await env.waitFor(name, "Ready", WAIT_MS, (p) => (condition(p, "Ready") === "True" ? true : undefined), 100);
    const deletedAt = Date.now();
    env.agent.deletePod(NAMESPACE, name);
    await sleep(1200);
    const during = env.get(name);
    assert.ok(during?.metadata.deletionTimestamp, "the pod is terminating");
    assert.equal(condition(during, "Ready"), "True", `still Ready 1.2 s into the grace period\n${env.describe(name)}`);
    assert.ok(containerStatusOf(during, "web")?.state?.running, "its container still runs");
    const unready = await env.waitFor(name, "Ready False while terminating", WAIT_MS, (p) => (p && condition(p, "Ready") === "False" ? p : undefined), 100);
    t.diagnostic(`Ready turned False ${Date.now() - deletedAt} ms after the deletion`);
    assert.ok(containerStatusOf(unready, "web")?.state?.running, `readiness turned it not Ready while its container still ran\n${env.describe(name)}`);
  });
}
