// The probe linter: warnings about probe configurations that are valid but risky, written like the
// API server's warnings (`<field path>: <what and why>`). It never rejects anything: the kubelet
// runs these probes as they are. Run on a defaulted pod, so every timing field has its value.
import { isRestartableInitContainer } from "./pod-rules.js";
import type { Container, Pod, Probe, ProbeHandler } from "./types.js";

/** A liveness initialDelaySeconds at or above this, with no startupProbe, suggests a startupProbe. */
export const LONG_INITIAL_DELAY_SECONDS = 30;

/** handlerOf keeps only a probe's handler (exec, httpGet, tcpSocket, grpc), for comparing checks. */
function handlerOf(probe: Probe): ProbeHandler {
  const { exec, httpGet, tcpSocket, grpc } = probe;
  return { ...(exec ? { exec } : {}), ...(httpGet ? { httpGet } : {}), ...(tcpSocket ? { tcpSocket } : {}), ...(grpc ? { grpc } : {}) };
}

/** lintContainer lists the warnings of one container's probes; `path` is the container's field path. */
function lintContainer(container: Container, path: string): string[] {
  const warnings: string[] = [];
  const probes = [
    ["livenessProbe", container.livenessProbe],
    ["readinessProbe", container.readinessProbe],
    ["startupProbe", container.startupProbe],
  ] as const;
  for (const [field, probe] of probes) {
    if (!probe) continue;
    const timeout = probe.timeoutSeconds ?? 1;
    const period = probe.periodSeconds ?? 10;
    if (timeout >= period) {
      // The worker waits for a probe before its next tick (kubelet worker.run: one doProbe per tick).
      warnings.push(`${path}.${field}.timeoutSeconds: ${timeout} is not below periodSeconds (${period}): a probe that times out delays the next one, so failures are counted more slowly than the spec says`);
    }
  }
  const liveness = container.livenessProbe;
  if (liveness) {
    if ((liveness.failureThreshold ?? 3) === 1) {
      warnings.push(`${path}.livenessProbe.failureThreshold: 1 restarts the container after a single failed probe; one slow answer (a GC pause, a busy disk) is enough`);
    }
    const readiness = container.readinessProbe;
    if (readiness && JSON.stringify(handlerOf(liveness)) === JSON.stringify(handlerOf(readiness))) {
      warnings.push(`${path}.livenessProbe: checks the same as readinessProbe; when that check fails because of load or a dependency, the container is restarted instead of only taken out of service`);
    }
    const delay = liveness.initialDelaySeconds ?? 0;
    if (!container.startupProbe && delay >= LONG_INITIAL_DELAY_SECONDS) {
      warnings.push(`${path}.livenessProbe.initialDelaySeconds: ${delay} waits that long on every start; a startupProbe protects a slow start and lets liveness act at once after it`);
    }
  }
  return warnings;
}

/**
 * lintPod returns the probe warnings of a (defaulted) pod: regular containers and restartable init
 * containers (sidecars), the only ones that may have probes.
 */
export function lintPod(pod: Pod): string[] {
  const warnings: string[] = [];
  (pod.spec.initContainers ?? []).forEach((c, i) => {
    if (isRestartableInitContainer(c)) warnings.push(...lintContainer(c, `spec.initContainers[${i}]`));
  });
  pod.spec.containers.forEach((c, i) => warnings.push(...lintContainer(c, `spec.containers[${i}]`)));
  return warnings;
}
