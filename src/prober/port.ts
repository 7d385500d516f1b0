// Probe target resolution shared by httpGet and tcpSocket probes (kubelet pkg/probe/util.go
// ResolveContainerPort, and the host fallback in pkg/probe/http/request.go and prober.go).
// grpc probes never come here: their port is a plain number and their host is always the pod IP.
import { goQuote } from "../api/field-errors.js";
import type { Container, IntOrString } from "../api/types.js";

/**
 * resolveContainerPort turns a probe's port (number or name) into a port number.
 *
 * Follows kubelet 1.37 ResolveContainerPort: a number is used as is; a name is looked up in the
 * probed container's own `ports[].name` (yielding `containerPort`, never `hostPort`); a name no
 * port has is an error, `port "<name>" not found` (1.35 parsed it as a number as a last
 * resort; 1.37 no longer does, so "8080" is a name like any other). The result must lie in
 * 1..65535, else `invalid port number: 0`.
 */
export function resolveContainerPort(port: IntOrString, container: Container): number {
  let resolved: number;
  if (typeof port === "number") {
    resolved = port;
  } else if (typeof port === "string") {
    const named = findPortByName(container, port);
    if (named === undefined) throw new Error(`port ${goQuote(port)} not found`);
    resolved = named;
  } else {
    throw new Error(`intOrString had no kind: ${renderUnknown(port)}`);
  }
  if (Number.isInteger(resolved) && resolved > 0 && resolved < 65536) {
    return resolved;
  }
  throw new Error(`invalid port number: ${String(resolved)}`);
}

/**
 * findPortByName returns the containerPort of the container's first port named `name`, or
 * undefined. Like the kubelet it compares against the name as stored, so "" matches an
 * unnamed port.
 */
export function findPortByName(container: Container, name: string): number | undefined {
  for (const p of container.ports ?? []) {
    if ((p.name ?? "") === name) return p.containerPort;
  }
  return undefined;
}

/**
 * resolveProbeHost picks the address an httpGet or tcpSocket probe dials: the action's own
 * `host` when it is non-empty, otherwise the pod IP (kubelet request.go / prober.go). An empty
 * result is dialled as the local host (see src/probe/address.ts dialHost).
 */
export function resolveProbeHost(actionHost: string | undefined, podIP: string): string {
  return actionHost !== undefined && actionHost !== "" ? actionHost : podIP;
}


/** renderUnknown prints a port value of neither kind (only reachable from untyped input). */
function renderUnknown(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
