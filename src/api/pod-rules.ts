// The pod rules every floor asks, each written once (kubelet pkg/api/v1/pod/util.go, podutil):
// which init containers are sidecars, which containers a pod has and which of them run for the
// pod's whole life, which probe of a type a container carries, and whether a phase is terminal.
// Restart decisions are in container-should-restart.ts, the kubelet's own pod conditions in
// kubelet-pod-conditions.ts.
import type { Container, Pod, PodSpec, Probe } from "./types.js";

/** ProbeType is the kind of a container probe: the prober's worker key and the probe field it reads. */
export type ProbeType = "liveness" | "readiness" | "startup";

/** isRestartableInitContainer reports whether an init container is a sidecar: restartPolicy Always (podutil.IsRestartableInitContainer). */
export function isRestartableInitContainer(container: { restartPolicy?: string }): boolean {
  return container.restartPolicy === "Always";
}

/** isSidecarOf reports whether the container is one of the pod's restartable init containers. */
export function isSidecarOf(pod: Pod, container: Container): boolean {
  return (pod.spec.initContainers ?? []).some((c) => c.name === container.name && isRestartableInitContainer(c));
}

/** allContainers lists the init containers, then the regular ones; ephemeral containers are not among them (podutil.VisitContainers with InitContainers|Containers). */
export function allContainers(pod: { spec: PodSpec }): Container[] {
  return [...(pod.spec.initContainers ?? []), ...pod.spec.containers];
}

/**
 * sidecarsAndContainers lists the containers that run for the pod's whole life: the restartable
 * init containers, then the regular ones. The prober's workers, host ports (GetHostPorts) and
 * ContainersReady all count these.
 */
export function sidecarsAndContainers(spec: PodSpec): Container[] {
  return [...(spec.initContainers ?? []).filter(isRestartableInitContainer), ...spec.containers];
}

/** probeOf is the container's probe of a type, if it has one (the kubelet's prober switches on the probe type the same way). */
export function probeOf(container: Container, probeType: ProbeType): Probe | undefined {
  switch (probeType) {
    case "liveness":
      return container.livenessProbe;
    case "readiness":
      return container.readinessProbe;
    case "startup":
      return container.startupProbe;
  }
}

/** isPodPhaseTerminal reports whether a phase is Succeeded or Failed, which never changes again (podutil.IsPodPhaseTerminal). */
export function isPodPhaseTerminal(phase: string | undefined): phase is "Succeeded" | "Failed" {
  return phase === "Succeeded" || phase === "Failed";
}
