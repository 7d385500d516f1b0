// The upstream check helpers of test/e2e/common/node/container_probe.go: runLivenessTest
// (RunLivenessTest / RunSidecarLivenessTest) and runReadinessFailTest, on an E2eEnv.
import assert from "node:assert/strict";
import type { Pod } from "../../src/api/types.js";
import { containerStatusOf, isPodReady, NAMESPACE, type E2eEnv } from "./harness.js";
import { sleep } from "./host.js";
import { probedContainerName } from "./pod-specs.js";

/** POLL_MS is upstream's restart-count poll interval (2 s). */
export const POLL_MS = 2000;

/** LivenessObservation is what runLivenessTest saw. */
export interface LivenessObservation {
  podName: string;
  containerName: string;
  initialRestartCount: number;
  observedRestarts: number;
  /** Wall-clock ms when the container was first seen out of Waiting. */
  leftWaitingAt: number;
}

/**
 * runLivenessTest creates the pod, waits for the probed container (the first container, or the
 * sidecar) to leave Waiting, records its restartCount, then polls every 2 s until
 * timeout + 10 s × initial restarts: expecting N > 0 passes as soon as ≥ N restarts are seen;
 * expecting 0 fails on any restart; the count must never decrease (checked on every poll and on
 * every pod update the agent published).
 */
export async function runLivenessTest(env: E2eEnv, pod: Pod, expectNumRestarts: number, timeoutMs: number): Promise<LivenessObservation> {
  const podName = pod.metadata.name ?? "";
  const containerName = probedContainerName(pod);
  env.create(pod);
  await env.waitFor(podName, `container ${containerName} not waiting`, timeoutMs, (p) => {
    const state = containerStatusOf(p, containerName)?.state;
    return state?.running || state?.terminated ? true : undefined;
  });
  const leftWaitingAt = Date.now();
  const initialRestartCount = restartCountOf(env.get(podName), containerName);
  const deadline = Date.now() + timeoutMs + initialRestartCount * 10_000;
  let lastRestartCount = initialRestartCount;
  let observedRestarts = 0;
  const maxPolls = Math.ceil((deadline - Date.now()) / POLL_MS) + 1;
  for (let i = 0; Date.now() < deadline && i <= maxPolls; i++) {
    const current = env.get(podName);
    assert.ok(current, `pod ${podName} disappeared during the liveness test\n${env.describe(podName)}`);
    const restartCount = restartCountOf(current, containerName);
    assert.ok(
      restartCount >= lastRestartCount,
      `Restart count should increment monotonically: restart count of pod ${NAMESPACE}/${podName} changed from ${lastRestartCount} to ${restartCount}`,
    );
    observedRestarts = restartCount - initialRestartCount;
    if (expectNumRestarts > 0 && observedRestarts >= expectNumRestarts) break;
    lastRestartCount = restartCount;
    await sleep(Math.min(POLL_MS, Math.max(1, deadline - Date.now())));
  }
  if (expectNumRestarts === 0) assert.ok(Date.now() >= deadline - POLL_MS, "the observation window was cut short");
  assertMonotonicRestarts(env, podName, containerName);
  const failed = (expectNumRestarts === 0 && observedRestarts > 0) || (expectNumRestarts > 0 && observedRestarts < expectNumRestarts);
  assert.ok(
    !failed,
    `pod ${NAMESPACE}/${podName} - expected number of restarts: ${expectNumRestarts}, found restarts: ${observedRestarts}.\n${env.describe(podName)}`,
  );
  return { podName, containerName, initialRestartCount, observedRestarts, leftWaitingAt };
}

/**
 * runReadinessFailTest creates the pod, optionally waits until it is no longer Pending, then
 * checks every 2 s for `notReadyUntilMs` that the pod is not Ready. (Upstream polls a stale pod
 * object here; this reads the current status, and also checks every update published in between.)
 */
export async function runReadinessFailTest(env: E2eEnv, pod: Pod, notReadyUntilMs: number, waitForNotPending: boolean): Promise<void> {
  const podName = pod.metadata.name ?? "";
  env.create(pod);
  if (waitForNotPending) {
    await env.waitFor(podName, "pod not Pending", 120_000, (p) => (p?.status?.phase !== undefined && p.status.phase !== "Pending" ? true : undefined));
  }
  const deadline = Date.now() + notReadyUntilMs;
  for (let i = 0; Date.now() < deadline && i <= Math.ceil(notReadyUntilMs / POLL_MS) + 1; i++) {
    assert.equal(isPodReady(env.get(podName)), false, `pod ${NAMESPACE}/${podName} - expected to be not ready\n${env.describe(podName)}`);
    await sleep(Math.min(POLL_MS, Math.max(1, deadline - Date.now())));
  }
  assertNeverReady(env, podName);
}

/** restartCountOf reads one container's restartCount (0 when it has no status yet). */
export function restartCountOf(pod: Pod | undefined, containerName: string): number {
  return containerStatusOf(pod, containerName)?.restartCount ?? 0;
}

/** totalRestartCount is upstream's getRestartCount: the sum over init and regular containers. */
export function totalRestartCount(pod: Pod | undefined): number {
  return [...(pod?.status?.initContainerStatuses ?? []), ...(pod?.status?.containerStatuses ?? [])].reduce((sum, s) => sum + s.restartCount, 0);
}

/** assertMonotonicRestarts checks the container's restartCount never went down in any published update. */
export function assertMonotonicRestarts(env: E2eEnv, podName: string, containerName: string): void {
  let last = 0;
  for (const seen of env.podLog) {
    if (seen.object.metadata.name !== podName) continue;
    const count = restartCountOf(seen.object, containerName);
    assert.ok(count >= last, `a published update of ${podName} lowered ${containerName}'s restartCount from ${last} to ${count}`);
    last = count;
  }
}

/** assertNeverReady checks that no published update of the pod had Ready=True. */
export function assertNeverReady(env: E2eEnv, podName: string): void {
  const ready = env.podLog.find((seen) => seen.object.metadata.name === podName && isPodReady(seen.object));
  assert.equal(ready, undefined, `pod ${podName} was published Ready at ${ready ? new Date(ready.at).toISOString() : ""}\n${env.describe(podName)}`);
}
