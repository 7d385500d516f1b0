// The upstream pod recipes of test/e2e/common/node/container_probe.go (testWebServerPodSpec,
// busyBoxPodSpec, livenessPodSpec, startupPodSpec, gRPCServerPodSpec and their *Sidecar*
// twins) and its probe handler helpers, built through a PodKit so the same recipe runs on any
// runtime. Variant "sidecar" makes the probed container a restartable init container
// (restartPolicy Always) next to a main agnhost `pause` container, as the upstream sidecar specs do.
import { randomUUID } from "node:crypto";
import type { Container, Pod, Probe, ProbeHandler } from "../../src/api/types.js";
import { NAMESPACE } from "./harness.js";
import type { PodKit } from "./pod-kit.js";

/** Variant selects "Probing container" (regular) or "Probing restartable init container" (sidecar). */
export type Variant = "container" | "sidecar";

/** Probes are the probes of the probed container. */
export interface Probes {
  readiness?: Probe;
  liveness?: Probe;
  startup?: Probe;
}

/** execHandler is upstream's execHandler. */
export function execHandler(command: string[]): ProbeHandler {
  return { exec: { command } };
}

/** httpGetHandler is upstream's httpGetHandler with the port mapped by the kit. */
export function httpGetHandler(kit: PodKit, path: string, upstreamPort: number): ProbeHandler {
  return { httpGet: { path, port: kit.port(upstreamPort) } };
}

/** tcpSocketHandler is upstream's tcpSocketHandler with the port mapped by the kit. */
export function tcpSocketHandler(kit: PodKit, upstreamPort: number): ProbeHandler {
  return { tcpSocket: { port: kit.port(upstreamPort) } };
}

/** grpcHandler is a GRPCAction with the port mapped by the kit (service nil). */
export function grpcHandler(kit: PodKit, upstreamPort: number): ProbeHandler {
  return { grpc: { port: kit.port(upstreamPort) } };
}

/** probedContainerName is the container a case watches: the first init container for sidecars. */
export function probedContainerName(pod: Pod): string {
  const sidecar = pod.spec.initContainers?.[0];
  return sidecar?.restartPolicy === "Always" ? sidecar.name : (pod.spec.containers[0]?.name ?? "");
}

function withProbes(container: Container, probes: Probes): Container {
  return {
    ...container,
    ...(probes.liveness ? { livenessProbe: probes.liveness } : {}),
    ...(probes.readiness ? { readinessProbe: probes.readiness } : {}),
    ...(probes.startup ? { startupProbe: probes.startup } : {}),
  };
}

/**
 * podWith places the probed container per variant and names the pod `<prefix>[-sidecar]-<uuid>`;
 * the pod uses the host network when the kit says so (CRI pods).
 */
export function podWith(kit: PodKit, variant: Variant, prefix: string, probed: Container, labels?: Record<string, string>): Pod {
  const name = `${prefix}${variant === "sidecar" ? "-sidecar" : ""}-${randomUUID()}`;
  const metadata = { name, namespace: NAMESPACE, ...(labels ? { labels } : {}) };
  const network = kit.hostNetwork ? { hostNetwork: true } : {};
  if (variant === "container") return { metadata, spec: { ...network, containers: [probed] } };
  const main: Container = { name: "main", ...kit.agnhost("pause") };
  return { metadata, spec: { ...network, initContainers: [{ ...probed, restartPolicy: "Always" }], containers: [main] } };
}

/** testWebServerPod: agnhost test-webserver on (upstream) port 80 (`--port 80` for sidecars upstream). */
export function testWebServerPod(kit: PodKit, variant: Variant, probes: Probes, containerName = "test-webserver"): Pod {
  const container: Container = { name: containerName, ...kit.agnhost("test-webserver", { port: 80 }), ports: [{ containerPort: kit.port(80) }] };
  return podWith(kit, variant, "test-webserver", withProbes(container, probes));
}

/** busyBoxPod: a busybox container running `command`. */
export function busyBoxPod(kit: PodKit, variant: Variant, probes: Probes, command: string[]): Pod {
  return podWith(kit, variant, "busybox", withProbes({ name: "busybox", ...kit.busybox(command) }, probes), { test: "liveness" });
}

/** livenessPod: agnhost liveness on (upstream) port 8080; container "agnhost-container" (e2epod.NewAgnhostPod) or "sidecar". */
export function livenessPod(kit: PodKit, variant: Variant, probes: Probes): Pod {
  const name = variant === "sidecar" ? "sidecar" : "agnhost-container";
  const container: Container = { name, ...kit.agnhost("liveness", { port: 8080 }), ...(variant === "container" ? { ports: [{ containerPort: kit.port(8080) }] } : {}) };
  return podWith(kit, variant, variant === "sidecar" ? "test-liveness" : "liveness", withProbes(container, probes), { test: "liveness" });
}

/** startupPod: a busybox container ("busybox", or "sidecar") running `command`. */
export function startupPod(kit: PodKit, variant: Variant, probes: Probes, command: string[]): Pod {
  const name = variant === "sidecar" ? "sidecar" : "busybox";
  return podWith(kit, variant, "startup", withProbes({ name, ...kit.busybox(command) }, probes), { test: "startup" });
}

/** grpcServerPod: agnhost grpc-health-checking (gRPC on upstream 5000, HTTP on 8080), container "agnhost". */
export function grpcServerPod(kit: PodKit, variant: Variant, probes: Probes): Pod {
  const container: Container = {
    name: "agnhost",
    ...kit.agnhost("grpc-health-checking", { port: 5000, "http-port": 8080 }),
    ports: [{ containerPort: kit.port(5000) }, { containerPort: kit.port(8080) }],
  };
  return podWith(kit, variant, "test-grpc", withProbes(container, probes));
}

/**
 * terminationPod: the "mark readiness … while terminating" recipe: a bash script (agnhost image
 * upstream) named after the pod, pod grace 30 s; for sidecars a main pause container as well.
 */
export function terminationPod(kit: PodKit, variant: Variant, script: string, probes: Probes): Pod {
  const name = `probe-test-${randomUUID()}`;
  const container = withProbes({ name, ...kit.bash(script) }, probes);
  const pod = podWith(kit, variant, "probe-test", container);
  return { ...pod, metadata: { ...pod.metadata, name }, spec: { ...pod.spec, terminationGracePeriodSeconds: 30 } };
}
