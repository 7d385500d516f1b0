// The restart-counting cases of container_probe.go (RunLivenessTest): liveness and startup
// probes over exec, httpGet, tcpSocket and grpc, for regular containers (161–179) and sidecars
// (184–202). Timing changes against upstream are noted per case and in docs/conformance.md.
import assert from "node:assert/strict";
import type { Pod, Probe } from "../../src/api/types.js";
import type { KubeEvent } from "../../src/apiserver/endpoints/host-interface.js";
import { containerStatusOf, type E2eEnv } from "./harness.js";
import type { PodKit } from "./pod-kit.js";
import { runLivenessTest } from "./probe-checks.js";
import { DEFAULT_OBSERVATION_MS, MINUTE, ZERO_RESTART_OBSERVATION_MS, type CaseContext, type ProbeCase } from "./probe-case.js";
import { busyBoxPod, execHandler, grpcHandler, grpcServerPod, httpGetHandler, livenessPod, startupPod, tcpSocketHandler, testWebServerPod, type Variant } from "./pod-specs.js";

/** restarts builds a case that only runs RunLivenessTest on the pod `build` returns. */
function restarts(numbers: [number, number], name: string, expected: number, timeoutMs: number, build: (kit: PodKit, variant: Variant) => Pod): ProbeCase {
  return {
    numbers,
    name,
    budgetMs: timeoutMs + 2 * MINUTE,
    async run({ env, variant }) {
      await runLivenessTest(env, build(env.kit, variant), expected, timeoutMs);
    },
  };
}

/** sidecarTimeout: some sidecar twins set timeoutSeconds 5 where the regular case leaves the default. */
const sidecarTimeout = (variant: Variant): Partial<Probe> => (variant === "sidecar" ? { timeoutSeconds: 5 } : {});

const catHealth = (kit: PodKit): Probe => ({ ...execHandler(["cat", kit.tmp("health")]), initialDelaySeconds: 15, timeoutSeconds: 5, failureThreshold: 1 });

/**
 * killToExitMs measures how long the probe-caused kill took: from the Killing event (as
 * observed) to the killed instance's finishedAt (second precision, truncated). The status that
 * first shows the restart may not carry lastState yet (the runtime's listing can lag behind the
 * new instance, e.g. containerd reporting the killed one's state as unknown for a moment), so
 * lastState is waited for, briefly.
 */
async function killToExitMs(env: E2eEnv, podName: string, containerName: string, killMessage: string): Promise<number> {
  const killing = env.eventLog.find((e) => e.object.involvedObject.name === podName && e.object.reason === "Killing" && e.object.message === killMessage);
  assert.ok(killing, `no Killing event "${killMessage}"\n${env.describe(podName)}`);
  const finishedAt = await env.waitFor(podName, `lastState.terminated of ${containerName}`, LAST_STATE_WAIT_MS, (p) => containerStatusOf(p, containerName)?.lastState?.terminated?.finishedAt);
  return Date.parse(finishedAt) - killing.at;
}

/** LAST_STATE_WAIT_MS bounds the wait for the killed instance to show up in lastState. */
const LAST_STATE_WAIT_MS = 5000;

/**
 * graceOverrideCase: 176/177 (199/200). Pod grace 500 s, probe grace 5 s: the restart must come
 * well within 40 s + 4 min. The process runtime signals the whole process group, so the command
 * ignores SIGTERM as a container's PID 1 would (kit.asPid1; on CRI the container's PID 1 does so
 * by itself); the kill then lasts the grace period and is measured: ≥ 3 s (SIGTERM did not end
 * it) and ≤ 20 s (5 s used, not 500 s).
 */
function graceOverrideCase(numbers: [number, number], name: string, probeKind: "liveness" | "startup"): ProbeCase {
  const timeoutMs = 40_000 + DEFAULT_OBSERVATION_MS;
  return {
    numbers,
    name,
    budgetMs: timeoutMs + 2 * MINUTE,
    async run({ env, variant, t }: CaseContext) {
      const kit = env.kit;
      const command = ["/bin/sh", "-c", kit.asPid1("sleep 1000")];
      const probes =
        probeKind === "liveness"
          ? { liveness: { ...httpGetHandler(kit, "/healthz", 8080), initialDelaySeconds: 10, failureThreshold: 1, terminationGracePeriodSeconds: 5 } }
          : {
              liveness: { ...execHandler(["/bin/true"]), initialDelaySeconds: 15, failureThreshold: 1 },
              startup: { ...execHandler(["/bin/cat", kit.tmp("startup")]), initialDelaySeconds: 10, failureThreshold: 1, terminationGracePeriodSeconds: 5 },
            };
      const base = busyBoxPod(kit, variant, probes, command);
      const pod: Pod = { ...base, spec: { ...base.spec, terminationGracePeriodSeconds: 500 } };
      const seen = await runLivenessTest(env, pod, 1, timeoutMs);
      // kubelet kuberuntime_manager.go: computePodActions vs computeInitContainerActions wording.
      const killMessage =
        variant === "container" ? `Container ${seen.containerName} failed ${probeKind} probe, will be restarted` : `Init container ${seen.containerName} failed ${probeKind} probe`;
      const killMs = await killToExitMs(env, seen.podName, seen.containerName, killMessage);
      t.diagnostic(`kill with probe grace 5 s took ${killMs} ms (to finishedAt, second precision)`);
      assert.ok(killMs >= 3000 && killMs <= 20_000, `kill took ${killMs} ms; expected the probe's 5 s grace, not the pod's 500 s or an immediate kill\n${env.describe(seen.podName)}`);
    },
  };
}

const NON_LOCAL_REDIRECT_BODY = 'Probe terminated redirects, Response body: <a href="http://0.0.0.0/">Found</a>.';

/** LIVENESS_CASES are the restart-counting cases. */
export const LIVENESS_CASES: readonly ProbeCase[] = [
  restarts([161, 184], 'should be restarted with a exec "cat /tmp/health" liveness probe', 1, DEFAULT_OBSERVATION_MS, (kit, v) =>
    busyBoxPod(kit, v, { liveness: catHealth(kit) }, ["/bin/sh", "-c", `echo ok >${kit.tmp("health")}; sleep 10; rm -rf ${kit.tmp("health")}; sleep 600`]),
  ),
  // Timing: 0-restart window 4 min → 40 s (ZERO_RESTART_OBSERVATION_MS).
  restarts([162, 185], 'should *not* be restarted with a exec "cat /tmp/health" liveness probe', 0, ZERO_RESTART_OBSERVATION_MS, (kit, v) =>
    busyBoxPod(kit, v, { liveness: catHealth(kit) }, ["/bin/sh", "-c", `echo ok >${kit.tmp("health")}; sleep 600`]),
  ),
  restarts([163, 186], "should be restarted with a /healthz http liveness probe", 1, DEFAULT_OBSERVATION_MS, (kit, v) =>
    livenessPod(kit, v, { liveness: { ...httpGetHandler(kit, "/healthz", 8080), initialDelaySeconds: 15, failureThreshold: 1, ...sidecarTimeout(v) } }),
  ),
  // Timing: 0-restart window 4 min → 40 s.
  restarts([164, 187], "should *not* be restarted with a tcp:8080 liveness probe", 0, ZERO_RESTART_OBSERVATION_MS, (kit, v) =>
    livenessPod(kit, v, { liveness: { ...tcpSocketHandler(kit, 8080), initialDelaySeconds: 15, failureThreshold: 1, ...sidecarTimeout(v) } }),
  ),
  // Timing: CrashLoopBackOff scaled 10 s…300 s → 1 s…8 s; bound 2 + 4 + 8 min → 5 min.
  {
    ...restarts([165, 188], "should have monotonically increasing restart count", 5, 5 * MINUTE, (kit, v) =>
      livenessPod(kit, v, { liveness: { ...httpGetHandler(kit, "/healthz", 8080), initialDelaySeconds: 5, failureThreshold: 1 } }),
    ),
    options: { backoff: { initialMs: 1000, maxMs: 8000 } },
  },
  // Timing: 0-restart window 4 min → 40 s.
  restarts([166, 189], "should *not* be restarted with a /healthz http liveness probe", 0, ZERO_RESTART_OBSERVATION_MS, (kit, v) =>
    testWebServerPod(kit, v, { liveness: { ...httpGetHandler(kit, "/", 80), initialDelaySeconds: 15, timeoutSeconds: 5, failureThreshold: 5 } }),
  ),
  restarts([167, 190], "should be restarted with an exec liveness probe with timeout [MinimumKubeletVersion:1.20]", 1, DEFAULT_OBSERVATION_MS, (kit, v) =>
    busyBoxPod(kit, v, { liveness: { ...execHandler(["/bin/sh", "-c", "sleep 10"]), initialDelaySeconds: 15, timeoutSeconds: 1, failureThreshold: 1 } }, ["/bin/sh", "-c", "sleep 600"]),
  ),
  restarts([169, 192], "should be restarted with a failing exec liveness probe that took longer than the timeout", 1, DEFAULT_OBSERVATION_MS, (kit, v) =>
    busyBoxPod(kit, v, { liveness: { ...execHandler(["/bin/sh", "-c", "sleep 10 & exit 1"]), initialDelaySeconds: 15, timeoutSeconds: 1, failureThreshold: 1 } }, [
      "/bin/sh",
      "-c",
      "sleep 600",
    ]),
  ),
  restarts([170, 193], "should be restarted with a local redirect http liveness probe", 1, DEFAULT_OBSERVATION_MS, (kit, v) =>
    livenessPod(kit, v, { liveness: { ...httpGetHandler(kit, `/redirect?loc=${encodeURIComponent("/healthz")}`, 8080), initialDelaySeconds: 15, failureThreshold: 1 } }),
  ),
  // Timing: 0-restart window 4 min → 40 s.
  {
    numbers: [171, 194],
    name: "should *not* be restarted with a non-local redirect http liveness probe",
    budgetMs: ZERO_RESTART_OBSERVATION_MS + 3 * MINUTE,
    async run({ env, variant }) {
      const kit = env.kit;
      const liveness = { ...httpGetHandler(kit, `/redirect?loc=${encodeURIComponent("http://0.0.0.0/")}`, 8080), initialDelaySeconds: 15, failureThreshold: 1 };
      const seen = await runLivenessTest(env, livenessPod(kit, variant, { liveness }), 0, ZERO_RESTART_OBSERVATION_MS);
      // Upstream waits up to framework.PodEventTimeout (2 min) for the event.
      const warning = await env.waitFor(seen.podName, "a ProbeWarning event", 2 * MINUTE, () =>
        env.events(seen.podName).find((e: KubeEvent) => e.reason === "ProbeWarning" && e.involvedObject.kind === "Pod" && e.message.includes(NON_LOCAL_REDIRECT_BODY)),
      );
      assert.equal(warning.type, "Warning");
    },
  },
  restarts([172, 195], "should be restarted startup probe fails", 1, DEFAULT_OBSERVATION_MS, (kit, v) =>
    startupPod(
      kit,
      v,
      {
        liveness: { ...execHandler(["/bin/true"]), initialDelaySeconds: 15, failureThreshold: 1 },
        startup: { ...execHandler(["/bin/false"]), initialDelaySeconds: 15, failureThreshold: 3 },
      },
      ["/bin/sh", "-c", "sleep 600"],
    ),
  ),
  // Timing: 0-restart window 4 min → 40 s (liveness would have fired at 15, 25 and 35 s).
  restarts([173, 196], "should *not* be restarted by liveness probe because startup probe delays it", 0, ZERO_RESTART_OBSERVATION_MS, (kit, v) =>
    startupPod(
      kit,
      v,
      {
        liveness: { ...execHandler(["/bin/false"]), initialDelaySeconds: 15, failureThreshold: 1 },
        startup: { ...execHandler(["/bin/false"]), initialDelaySeconds: 15, failureThreshold: 60 },
      },
      ["/bin/sh", "-c", "sleep 600"],
    ),
  ),
  restarts([174, 197], "should be restarted by liveness probe after startup probe enables it", 1, DEFAULT_OBSERVATION_MS, (kit, v) =>
    startupPod(
      kit,
      v,
      {
        liveness: { ...execHandler(["/bin/false"]), initialDelaySeconds: 15, failureThreshold: 1 },
        startup: { ...execHandler(["cat", kit.tmp("startup")]), initialDelaySeconds: 15, failureThreshold: 60 },
      },
      ["/bin/sh", "-c", `sleep 10; echo ok >${kit.tmp("startup")}; sleep 600`],
    ),
  ),
  graceOverrideCase([176, 199], "should override timeoutGracePeriodSeconds when LivenessProbe field is set", "liveness"),
  graceOverrideCase([177, 200], "should override timeoutGracePeriodSeconds when StartupProbe field is set", "startup"),
  // Timing: 0-restart window 4 min → 40 s.
  restarts([178, 201], "should *not* be restarted with a GRPC liveness probe", 0, ZERO_RESTART_OBSERVATION_MS, (kit, v) =>
    grpcServerPod(kit, v, { liveness: { ...grpcHandler(kit, 5000), initialDelaySeconds: 15, timeoutSeconds: 5, failureThreshold: 1 } }),
  ),
  restarts([179, 202], "should be restarted with a GRPC liveness probe", 1, DEFAULT_OBSERVATION_MS, (kit, v) =>
    grpcServerPod(kit, v, { liveness: { ...grpcHandler(kit, 2333), initialDelaySeconds: 60, timeoutSeconds: 5, failureThreshold: 1 } }),
  ),
];
