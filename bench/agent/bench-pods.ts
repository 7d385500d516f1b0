// The pods the agent benches admit. Every container is a cheap host process that exits on
// SIGTERM (sleep's default disposition), so a kill never waits for the grace period, and
// sleeps no longer than the run's bound, so even a leaked process would not outlive the run
// by much (the harness still checks that none leaks).
import type { Container, Pod, Probe } from "../../src/api/types.js";

/** BENCH_NAMESPACE is the namespace of every bench pod. */
export const BENCH_NAMESPACE = "bench";

/** APP_CONTAINER is the name of each bench pod's single container. */
export const APP_CONTAINER = "app";

/** ProbeTiming is the timing part of a probe spec, in the API's whole seconds. */
export interface ProbeTiming {
  periodSeconds: number;
  timeoutSeconds: number;
  failureThreshold: number;
}

function pod(name: string, container: Container): Pod {
  // Grace 5 s: the apps exit on SIGTERM at once, so this only bounds a misbehaving one.
  return { metadata: { name, namespace: BENCH_NAMESPACE }, spec: { terminationGracePeriodSeconds: 5, containers: [container] } };
}

/** BENCH_IMAGE is what every bench container names (the process runtime ignores it; the API requires one). */
const BENCH_IMAGE = "busybox";

/** sleeper is a container that only sleeps (`sleep N`, N ≥ 1). */
export function sleeper(sleepSeconds: number): Container {
  return { name: APP_CONTAINER, image: BENCH_IMAGE, command: ["sleep", String(Math.max(1, Math.ceil(sleepSeconds)))] };
}

/**
 * fileHealthPod: the app creates `healthFile` when it starts and is healthy while the file
 * exists; its liveness probe is exec `test -f <file>`. Deleting the file makes it unhealthy at
 * a moment the bench controls; the restarted container creates the file again.
 */
export function fileHealthPod(name: string, healthFile: string, timing: ProbeTiming, sleepSeconds: number): Pod {
  const liveness: Probe = { exec: { command: ["test", "-f", healthFile] }, successThreshold: 1, ...timing };
  return pod(name, {
    name: APP_CONTAINER,
    image: BENCH_IMAGE,
    command: ["sh", "-c", `touch "$HEALTH_FILE" && exec sleep ${Math.max(1, Math.ceil(sleepSeconds))}`],
    env: [{ name: "HEALTH_FILE", value: healthFile }],
    livenessProbe: liveness,
  });
}

/**
 * httpProbedPod: a sleeper whose readiness and liveness probes are httpGet against the bench's
 * shared server (the process runtime's pod IP is the host loopback), on paths that name the pod
 * so the server sees each probe's first arrival.
 */
export function httpProbedPod(name: string, port: number, periodSeconds: number, sleepSeconds: number): Pod {
  const probe = (kind: string): Probe => ({ httpGet: { path: `/${kind}/${name}`, port }, periodSeconds, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 });
  return pod(name, { ...sleeper(sleepSeconds), readinessProbe: probe("ready"), livenessProbe: probe("live") });
}

/** ScaleProbes picks the scale bench's probe mix. */
export type ScaleProbes = "all" | "none";

/**
 * scalePod: a sleeper with three probes. Liveness is tcpSocket and readiness httpGet /healthz,
 * both against the one shared server; startup is exec `true` with failureThreshold 30: it runs
 * once per container (a startup worker holds after its first threshold crossing), so the fork
 * cost is paid at start and never in steady state. "none" gives the same pod without probes.
 */
export function scalePod(name: string, port: number, probes: ScaleProbes, periodSeconds: number, sleepSeconds: number): Pod {
  const container = sleeper(sleepSeconds);
  if (probes === "all") {
    const timing = { periodSeconds, timeoutSeconds: 1, successThreshold: 1 };
    container.startupProbe = { exec: { command: ["true"] }, ...timing, failureThreshold: 30 };
    container.livenessProbe = { tcpSocket: { port }, ...timing, failureThreshold: 3 };
    container.readinessProbe = { httpGet: { path: "/healthz", port }, ...timing, failureThreshold: 3 };
  }
  return pod(name, container);
}
