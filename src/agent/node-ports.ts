// Host ports at pod admission: the kubelet's NodePorts predicate (pkg/kubelet/lifecycle/
// predicate.go generalFilter → scheduler AdmissionCheck → nodeports.Fits; scheduler util
// GetHostPorts, framework HostPortInfo.CheckConflict). A pod is refused when one of its host ports
// is already used by an active pod; "0.0.0.0" (or no hostIP) conflicts with every address.
// Where pods share the host's network namespace (the process runtime without pod networks), every
// container port is a host port, as the API server's defaulting makes it for hostNetwork pods, so
// two pods declaring the same containerPort conflict there. Beyond the kubelet: a probe aimed at a
// port another pod owns on that shared network is named in a warning, since it can succeed
// through that pod's server.
import type { Container, Pod, Probe } from "../api/types.js";
import { resolveContainerPort } from "../prober/port.js";

/** NODE_PORTS_REASON is the rejection reason (nodeports.Name, the predicate's name). */
export const NODE_PORTS_REASON = "NodePorts";

/** NODE_PORTS_MESSAGE is the rejection message (PredicateFailureError.Error with nodeports.ErrReason). */
export const NODE_PORTS_MESSAGE = "Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports";

/** PROBE_PORT_IN_USE is the reason of the warning event about a probe aimed at another pod's port (beyond the kubelet). */
export const PROBE_PORT_IN_USE = "ProbePortInUse";

/** HostPort is one port a pod takes on the node. */
interface HostPort {
  hostIP: string;
  protocol: string;
  port: number;
}

/** BIND_ALL is HostPortInfo's DefaultBindAllHostIP. */
const BIND_ALL = "0.0.0.0";

/**
 * portContainers are the containers whose ports a pod holds while it runs (GetHostPorts: the
 * regular containers and the restartable init containers).
 */
function portContainers(pod: Pod): Container[] {
  return [...(pod.spec.initContainers ?? []).filter((c) => c.restartPolicy === "Always"), ...pod.spec.containers];
}

/** hostPortsOf lists a pod's host ports; with sharedNetwork a non-hostNetwork pod's container ports count. */
export function hostPortsOf(pod: Pod, sharedNetwork: boolean): HostPort[] {
  const shared = sharedNetwork && pod.spec.hostNetwork !== true;
  const ports: HostPort[] = [];
  for (const container of portContainers(pod)) {
    for (const p of container.ports ?? []) {
      const port = shared ? p.containerPort : (p.hostPort ?? 0);
      if (port > 0) ports.push({ hostIP: p.hostIP || BIND_ALL, protocol: p.protocol || "TCP", port });
    }
  }
  return ports;
}

/** conflicts is HostPortInfo.CheckConflict: the same protocol and port on the same address, or either on every address. */
function conflicts(a: HostPort, b: HostPort): boolean {
  return a.port === b.port && a.protocol === b.protocol && (a.hostIP === b.hostIP || a.hostIP === BIND_ALL || b.hostIP === BIND_ALL);
}

/** fitsHostPorts is nodeports.Fits: none of the pod's host ports is used by the active pods. */
export function fitsHostPorts(pod: Pod, active: readonly Pod[], sharedNetwork: boolean): boolean {
  const used = active.flatMap((p) => hostPortsOf(p, sharedNetwork));
  return hostPortsOf(pod, sharedNetwork).every((want) => !used.some((u) => conflicts(want, u)));
}

/** PROBE_KINDS names each probe field as the kubelet's events do. */
const PROBE_KINDS = [["livenessProbe", "Liveness"], ["readinessProbe", "Readiness"], ["startupProbe", "Startup"]] as const;

/** probePort is the pod-IP port a probe dials, or undefined (exec, another host, an unresolvable name). */
function probePort(probe: Probe, container: Container): number | undefined {
  const target = probe.httpGet ?? probe.tcpSocket;
  if (target !== undefined) {
    if (target.host !== undefined && target.host !== "") return undefined;
    try {
      return resolveContainerPort(target.port, container);
    } catch {
      return undefined;
    }
  }
  return probe.grpc?.port;
}

/**
 * probePortsOfOthers finds, on a shared host network, the probes of a pod that aim at a TCP port
 * it does not declare while another active pod does, as warning texts, e.g. `Readiness probe of
 * container app dials port 8080, a port of pod default/web: it can succeed through that pod's
 * server`. Empty when pods have their own network.
 */
export function probePortsOfOthers(pod: Pod, active: readonly Pod[], sharedNetwork: boolean): string[] {
  if (!sharedNetwork && pod.spec.hostNetwork !== true) return [];
  const own = new Set(hostPortsOf(pod, true).filter((p) => p.protocol === "TCP").map((p) => p.port));
  const warnings: string[] = [];
  for (const container of [...(pod.spec.initContainers ?? []), ...pod.spec.containers]) {
    for (const [field, kind] of PROBE_KINDS) {
      const probe = container[field];
      const port = probe === undefined ? undefined : probePort(probe, container);
      if (port === undefined || own.has(port)) continue;
      const owner = active.find((other) => hostPortsOf(other, sharedNetwork).some((p) => p.port === port && p.protocol === "TCP"));
      if (owner === undefined) continue;
      const ref = `${owner.metadata.namespace ?? "default"}/${owner.metadata.name ?? ""}`;
      warnings.push(`${kind} probe of container ${container.name} dials port ${port}, a port of pod ${ref}: it can succeed through that pod's server`);
    }
  }
  return warnings;
}
