// Probe target resolution shared by httpGet and tcpSocket probes (kubelet pkg/probe/util.go
// ResolveContainerPort, and the host fallback in pkg/probe/http/request.go and prober.go).
// grpc probes never come here: their port is a plain number and their host is always the pod IP.
import type { Container, IntOrString } from "../api/types.js";

// Go's int is 64 bits wide; strconv.Atoi reports "value out of range" beyond it.
const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);
const DECIMAL = /^[+-]?[0-9]+$/;

/**
 * resolveContainerPort turns a probe's port (number or name) into a port number.
 *
 * Follows kubelet ResolveContainerPort: a number is used as is; a name is looked up in the
 * probed container's own `ports[].name` (yielding `containerPort`, never `hostPort`), and if
 * no port has that name the string is parsed as a decimal number ("last ditch"). The result
 * must lie in 1..65535. Errors carry the kubelet's texts, e.g. `invalid port number: 0` or
 * Go's `strconv.Atoi: parsing "abc": invalid syntax`.
 */
export function resolveContainerPort(port: IntOrString, container: Container): number {
  let resolved: number | bigint;
  if (typeof port === "number") {
    resolved = port;
  } else if (typeof port === "string") {
    const named = findPortByName(container, port);
    resolved = named ?? atoi(port);
  } else {
    throw new Error(`intOrString had no kind: ${renderUnknown(port)}`);
  }
  if (typeof resolved === "number" && Number.isInteger(resolved) && resolved > 0 && resolved < 65536) {
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

/**
 * atoi parses like Go's strconv.Atoi (optional sign, decimal digits, 64-bit range) and throws
 * Go's *NumError text on failure. Values beyond JavaScript's safe range come back as bigint so
 * the "invalid port number" message still prints them exactly.
 */
function atoi(text: string): number | bigint {
  if (!DECIMAL.test(text)) {
    throw new Error(`strconv.Atoi: parsing ${goQuote(text)}: invalid syntax`);
  }
  const value = BigInt(text);
  if (value > INT64_MAX || value < INT64_MIN) {
    throw new Error(`strconv.Atoi: parsing ${goQuote(text)}: value out of range`);
  }
  return Number.isSafeInteger(Number(value)) ? Number(value) : value;
}

/** goQuote approximates Go's %q for the strings that reach it here. */
function goQuote(text: string): string {
  return JSON.stringify(text);
}

/** renderUnknown prints a port value of neither kind (only reachable from untyped input). */
function renderUnknown(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
