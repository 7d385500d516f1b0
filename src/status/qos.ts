// A pod's QoS class (pkg/apis/core/v1/helper/qos GetPodQOS / ComputePodQOS, as the kubelet puts
// it in status.qosClass): only cpu and memory count, summed over init and regular containers.
import type { Container, Pod, PodQOSClass } from "../api/types.js";
import { parseMilliQuantity } from "../api/quantity.js";

const QOS_RESOURCES = ["cpu", "memory"] as const;

/** quantities reads the positive cpu and memory quantities of one resources map (requests or limits), in thousandths. */
function quantities(list: unknown): Map<string, number> {
  const out = new Map<string, number>();
  if (typeof list !== "object" || list === null) return out;
  for (const name of QOS_RESOURCES) {
    const raw = (list as Record<string, unknown>)[name];
    const value = typeof raw === "number" || typeof raw === "string" ? parseMilliQuantity(String(raw)) : undefined;
    if (value !== undefined && value > 0) out.set(name, value);
  }
  return out;
}

/**
 * containerResources reads a container's requests and limits; a resource with a limit and no
 * request has the limit as its request, as the API server's defaulting gives it
 * (pkg/apis/core/v1/defaults.go SetDefaults_Pod), which probelet's admission does not fill in.
 */
function containerResources(c: Container): { requests: Map<string, number>; limits: Map<string, number> } {
  const limits = quantities(c.resources?.["limits"]);
  const requests = quantities(c.resources?.["requests"]);
  const given = typeof c.resources?.["requests"] === "object" && c.resources["requests"] !== null ? (c.resources["requests"] as Record<string, unknown>) : {};
  for (const [name, value] of limits) if (given[name] === undefined) requests.set(name, value);
  return { requests, limits };
}

function sameQuantity(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));
}

/**
 * podQOSClass: BestEffort when no container requests or limits cpu or memory; Guaranteed when
 * every container limits both and the summed requests equal the summed limits; else Burstable.
 */
export function podQOSClass(pod: Pod): PodQOSClass {
  const requests = new Map<string, number>();
  const limits = new Map<string, number>();
  let guaranteed = true;
  for (const c of [...pod.spec.containers, ...(pod.spec.initContainers ?? [])]) {
    const own = containerResources(c);
    for (const [name, value] of own.requests) requests.set(name, (requests.get(name) ?? 0) + value);
    for (const [name, value] of own.limits) limits.set(name, (limits.get(name) ?? 0) + value);
    if (!QOS_RESOURCES.every((name) => own.limits.has(name))) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return "BestEffort";
  for (const [name, request] of requests) {
    const limit = limits.get(name);
    if (limit === undefined || !sameQuantity(limit, request)) guaranteed = false;
  }
  return guaranteed && requests.size === limits.size ? "Guaranteed" : "Burstable";
}
