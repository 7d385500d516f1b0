// Downward-API values of a pod, as the kubelet computes them for env vars and downwardAPI volume
// files (pkg/fieldpath/fieldpath.go ExtractFieldPathAsString and FormatMap,
// pkg/kubelet/kubelet_pods.go podFieldSelectorRuntimeValue, pkg/api/v1/resource/helpers.go
// ExtractContainerResourceValue, pkg/kubelet/kubelet_resources.go defaultPodLimitsForDownwardAPI).
import { goQuote } from "../api/field-errors.js";
import { parseQuantityExact } from "../api/quantity.js";
import type { Container, Pod, ResourceFieldSelector } from "../api/types.js";
import { splitSubscriptedPath } from "../api/validation-env-sources.js";

/** PodAddresses are the runtime facts a downward-API value may name. */
export interface PodAddresses {
  podIP: string;
  hostIP: string;
}

/** NodeAllocatable is what an unset container limit stands for (the node's allocatable resources). */
export interface NodeAllocatable {
  /** CPU cores. */
  cpu: number;
  /** Bytes. */
  memory: number;
  /** Bytes. */
  ephemeralStorage: number;
}

/** formatMap renders labels or annotations as the kubelet writes them: sorted `k="v"` lines (fieldpath.FormatMap). */
export function formatMap(map: Readonly<Record<string, string>>): string {
  return Object.keys(map)
    .sort()
    .map((k) => `${k}=${goQuote(map[k]!)}`)
    .join("\n");
}

/**
 * podFieldValue returns the value of a validated fieldRef path (ExtractFieldPathAsString plus the
 * status and spec fields the kubelet answers itself), or undefined for a path it does not know.
 */
export function podFieldValue(pod: Pod, fieldPath: string, addresses: PodAddresses): string | undefined {
  const { path, subscript } = splitSubscriptedPath(fieldPath);
  const meta = pod.metadata;
  if (subscript !== undefined) {
    if (path === "metadata.labels") return meta.labels?.[subscript] ?? "";
    if (path === "metadata.annotations") return meta.annotations?.[subscript] ?? "";
    return undefined;
  }
  switch (path) {
    case "metadata.name":
      return meta.name ?? "";
    case "metadata.namespace":
      return meta.namespace ?? "";
    case "metadata.uid":
      return meta.uid ?? "";
    case "metadata.labels":
      return formatMap(meta.labels ?? {});
    case "metadata.annotations":
      return formatMap(meta.annotations ?? {});
    case "spec.nodeName":
      return pod.spec.nodeName ?? "";
    case "spec.serviceAccountName":
      return pod.spec.serviceAccountName ?? "";
    case "status.hostIP":
    case "status.hostIPs":
      return addresses.hostIP;
    case "status.podIP":
    case "status.podIPs":
      return addresses.podIP;
    default:
      return undefined;
  }
}

// A container's limit or request in base units; an unset limit is the node's allocatable.
function resourceAmount(container: Container, resource: string, node: NodeAllocatable): number {
  const [kind, name] = resource.split(".", 2) as [string, string];
  const list = (container.resources?.[kind] ?? {}) as Record<string, unknown>;
  const raw = list[name];
  const value = typeof raw === "string" || typeof raw === "number" ? parseQuantityExact(String(raw)) : undefined;
  if (value !== undefined) return value;
  if (kind === "requests") return 0;
  if (name === "cpu") return node.cpu;
  if (name === "memory") return node.memory;
  if (name === "ephemeral-storage") return node.ephemeralStorage;
  return 0;
}

/**
 * containerResourceValue renders a resourceFieldRef: the amount divided by the divisor (default
 * 1, as is a zero divisor: ExtractContainerResourceValue), rounded up; CPU in millicores before division (convertResourceCPUToString and
 * convertResourceMemoryToString).
 */
export function containerResourceValue(fs: ResourceFieldSelector, container: Container, node: NodeAllocatable): string {
  const amount = resourceAmount(container, fs.resource, node);
  // An unset divisor, or the "0" the API server defaults it to, is 1.
  const given = fs.divisor === undefined || fs.divisor === "" ? undefined : parseQuantityExact(String(fs.divisor));
  const divisor = given === undefined || given === 0 ? 1 : given;
  if (fs.resource.endsWith(".cpu")) return String(Math.ceil(Math.round(amount * 1000) / Math.round(divisor * 1000)));
  return String(Math.ceil(amount / divisor));
}
