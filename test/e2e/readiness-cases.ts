// The readiness cases of container_probe.go: initial delay, failing readiness, exec readiness
// timeout, readiness right after startup (159, 160, 168, 175 and sidecars 182, 183, 191, 198),
// and readiness/liveness while the pod terminates (180, 181 and sidecars 203, 204).
import assert from "node:assert/strict";
import type { Pod } from "../../src/api/types.js";
import { containerStatusOf, isPodReady, isPodRunningReady } from "./harness.js";
import { sleep } from "./host.js";
import type { PodKit } from "./pod-kit.js";
import { POLL_MS, runReadinessFailTest, totalRestartCount } from "./probe-checks.js";
import { MINUTE, type CaseContext, type ProbeCase } from "./probe-case.js";
import { busyBoxPod, execHandler, httpGetHandler, probedContainerName, startupPod, terminationPod, testWebServerPod, type Probes } from "./pod-specs.js";

/** POD_START_MS bounds waiting for a pod to start or become ready (upstream PodStartTimeout is 5 min). */
const POD_START_MS = 2 * MINUTE;

/** readyCondition returns the pod's Ready condition. */
function readyCondition(pod: Pod | undefined) {
  return pod?.status?.conditions?.find((c) => c.type === "Ready");
}

/** terminationScript is upstream's SIGTERM-trapping script with its files under kit.tmp. */
function terminationScript(kit: PodKit, withLiveness: boolean, sleepOnTerm: number): string {
  const ready = kit.tmp("ready");
  const liveness = kit.tmp("liveness");
  return [
    "_term() {",
    `  rm -f ${ready}`,
    ...(withLiveness ? [`  rm -f ${liveness}`] : []),
    `  sleep ${sleepOnTerm}`,
    "  exit 0",
    "}",
    "trap _term SIGTERM",
    "",
    `touch ${ready}`,
    ...(withLiveness ? [`touch ${liveness}`] : []),
    "",
    "while true; do",
    '  echo \\"hello\\"',
    "  sleep 10",
    "done",
  ].join("\n");
}

/**
 * deleteAndWaitNotReady creates a terminating-probe pod, waits for Running+Ready, deletes it with
 * its own grace (30 s) and waits until an update published while the pod still exists shows it
 * NotReady (upstream: an informer on the pod, PodDelete timeout).
 */
async function deleteAndWaitNotReady({ env, variant, t }: CaseContext, withLiveness: boolean): Promise<{ podName: string; deletedAt: number }> {
  const kit = env.kit;
  const probes: Probes = {
    readiness: { ...execHandler(["cat", kit.tmp("ready")]), failureThreshold: 1, initialDelaySeconds: 5, periodSeconds: 2 },
    ...(withLiveness ? { liveness: { ...execHandler(["cat", kit.tmp("liveness")]), failureThreshold: 1, initialDelaySeconds: 5, periodSeconds: 1 } } : {}),
  };
  const pod = env.create(terminationPod(kit, variant, terminationScript(kit, withLiveness, withLiveness ? 20 : 30), probes));
  const podName = pod.metadata.name ?? "";
  await env.waitFor(podName, "pod Running and Ready", POD_START_MS, (p) => (isPodRunningReady(p) ? true : undefined));
  const deletedAt = Date.now();
  env.agent.deletePod(pod.metadata.namespace ?? "", podName);
  const notReady = await env.waitFor(podName, "pod NotReady while terminating", MINUTE, () =>
    env.podLog.find((seen) => seen.at >= deletedAt && seen.type !== "DELETED" && seen.object.metadata.name === podName && !isPodReady(seen.object)),
  );
  assert.ok(notReady.object.metadata.deletionTimestamp, "the NotReady update carries the deletionTimestamp");
  t.diagnostic(`NotReady published ${notReady.at - deletedAt} ms after the delete`);
  return { podName, deletedAt };
}

/** READINESS_CASES are the readiness and termination cases. */
export const READINESS_CASES: readonly ProbeCase[] = [
  {
    numbers: [159, 182],
    name: "with readiness probe should not be ready before initial delay and never restart",
    budgetMs: POD_START_MS + MINUTE,
    async run({ env, variant }) {
      const kit = env.kit;
      const pod = env.create(testWebServerPod(kit, variant, { readiness: { ...httpGetHandler(kit, "/", 80), initialDelaySeconds: 15 } }));
      const name = pod.metadata.name ?? "";
      const p = await env.waitFor(name, "pod Ready", POD_START_MS, (current) => (isPodReady(current) ? current : undefined));
      assert.ok(isPodRunningReady(p), `pod ${name} should be ready`);
      // A single-probed-container pod became ready when that container did.
      const readyTime = Date.parse(readyCondition(p)?.lastTransitionTime ?? "");
      const startedTime = Date.parse(containerStatusOf(p, "test-webserver")?.state?.running?.startedAt ?? "");
      assert.ok(Number.isFinite(readyTime) && Number.isFinite(startedTime), env.describe(name));
      assert.ok(readyTime - startedTime >= 15_000, `Pod became ready before its 15s initial delay: started ${startedTime}, ready ${readyTime}\n${env.describe(name)}`);
      assert.equal(totalRestartCount(p), 0, `pod should have a restart count of 0\n${env.describe(name)}`);
    },
  },
  {
    numbers: [160, 183],
    name: "with readiness probe that fails should never be ready and never restart",
    budgetMs: 3 * MINUTE,
    async run({ env, variant }) {
      const kit = env.kit;
      const pod = env.create(testWebServerPod(kit, variant, { readiness: httpGetHandler(kit, "/", 81) }));
      const name = pod.metadata.name ?? "";
      // gomega.Consistently for 1 min, every 1 s.
      const deadline = Date.now() + MINUTE;
      for (let i = 0; Date.now() < deadline && i < 70; i++) {
        assert.equal(isPodReady(env.get(name)), false, `pod should not be ready\n${env.describe(name)}`);
        await sleep(1000);
      }
      const p = env.get(name);
      assert.equal(isPodRunningReady(p), false, `pod ${name} should be not ready`);
      assert.equal(p?.status?.phase, "Running", `the container runs, only readiness fails\n${env.describe(name)}`);
      assert.ok(!env.podLog.some((s) => s.object.metadata.name === name && isPodReady(s.object)), "no update was ever Ready");
      assert.equal(totalRestartCount(p), 0, `pod should have a restart count of 0\n${env.describe(name)}`);
    },
  },
  {
    numbers: [168, 191],
    name: "should not be ready with an exec readiness probe timeout [MinimumKubeletVersion:1.20]",
    budgetMs: 4 * MINUTE,
    async run({ env, variant }) {
      const readiness = { ...execHandler(["/bin/sh", "-c", "sleep 10"]), initialDelaySeconds: 15, timeoutSeconds: 1, failureThreshold: 1 };
      const pod = busyBoxPod(env.kit, variant, { readiness }, ["/bin/sh", "-c", "sleep 600"]);
      // Upstream waits for "not Pending" for the regular container only.
      await runReadinessFailTest(env, pod, MINUTE, variant === "container");
    },
  },
  {
    numbers: [175, 198],
    name: "should be ready immediately after startupProbe succeeds",
    budgetMs: 4 * MINUTE,
    async run({ env, variant, t }) {
      const kit = env.kit;
      const cmd = ["/bin/sh", "-c", `echo ok >${kit.tmp("health")}; sleep 32; echo ok >${kit.tmp("startup")}; sleep 600`];
      const probes: Probes = {
        readiness: { ...execHandler(["/bin/cat", kit.tmp("health")]), initialDelaySeconds: 0, periodSeconds: 30 },
        startup: { ...execHandler(["/bin/cat", kit.tmp("startup")]), initialDelaySeconds: 0, failureThreshold: 120, periodSeconds: 5 },
      };
      const pod = env.create(startupPod(kit, variant, probes, cmd));
      const name = pod.metadata.name ?? "";
      const container = probedContainerName(pod);
      // t0: the probed container reports started (upstream: WaitForPodContainerStarted, i.e. containerStatuses[0]).
      const runningSince = await env.waitFor(name, `${container} running`, POD_START_MS, (p) => containerStatusOf(p, container)?.state?.running?.startedAt);
      await env.waitFor(name, `${container} started`, POD_START_MS, (p) => (containerStatusOf(p, container)?.started === true ? true : undefined));
      const startedTime = Date.now();
      await env.waitFor(name, "pod Ready", POD_START_MS, (p) => (isPodReady(p) ? true : undefined));
      const readyTime = Date.now();
      const p = env.get(name);
      assert.ok(isPodRunningReady(p), `pod ${name} should be ready`);
      const readyIn = readyTime - startedTime;
      t.diagnostic(`container running since ${runningSince}, started after ${(startedTime - Date.parse(runningSince)) / 1000}s, ready ${readyIn} ms after started`);
      assert.ok(startedTime - Date.parse(runningSince) >= 30_000, "sanity: the startup probe cannot succeed before the file appears at 32 s");
      assert.ok(readyIn >= 0, "Pod became ready before startupProbe succeeded");
      assert.ok(readyIn <= 25_000, `Pod became ready in ${readyIn} ms, more than 25s after startupProbe succeeded\n${env.describe(name)}`);
    },
  },
  {
    numbers: [180, 203],
    name: "should mark readiness on pods to false while pod is in progress of terminating when a pod has a readiness probe",
    budgetMs: 4 * MINUTE,
    async run(ctx) {
      await deleteAndWaitNotReady(ctx, false);
    },
  },
  {
    numbers: [181, 204],
    name: "should mark readiness on pods to false and disable liveness probes while pod is in progress of terminating",
    budgetMs: 5 * MINUTE,
    async run(ctx) {
      const { env } = ctx;
      const { podName } = await deleteAndWaitNotReady(ctx, true);
      // gomega.Consistently for 1 min, every framework.Poll (2 s): no "failed liveness probe" event.
      const deadline = Date.now() + MINUTE;
      for (let i = 0; Date.now() < deadline && i < 40; i++) {
        const bad = env.eventLog.find((e) => e.object.involvedObject.name === podName && e.object.message.includes("failed liveness probe"));
        assert.equal(bad, undefined, `should not see liveness probe failures: ${bad?.object.message}\n${env.describe(podName)}`);
        await sleep(POLL_MS);
      }
    },
  },
];
