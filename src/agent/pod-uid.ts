// Stable pod UIDs for manifests, like the kubelet's static pods: the UID is a hash of the pod's
// source and content, so the same manifest maps to the same UID across agent restarts and an
// edited manifest becomes a new pod (kubelet pkg/kubelet/config/common.go applyDefaults).
import { createHash } from "node:crypto";
import type { Pod } from "../api/types.js";

/** podUidFor derives a UUID-shaped UID from the pod's source and its manifest (sans status/uid). */
export function podUidFor(pod: Pod, source: string): string {
  const { status: _status, ...rest } = pod;
  const content = { ...rest, metadata: { ...rest.metadata, uid: undefined, resourceVersion: undefined, creationTimestamp: undefined } };
  const hex = createHash("sha256").update(source).update("\u0000").update(stableJson(content)).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** stableJson serialises with sorted object keys, so equal content always hashes alike. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

const hashes = new WeakMap<object, string>();

/**
 * containerHash is the kubelet-style hash of a container spec, stored as an annotation to detect
 * changes. Admitted specs never change, so the hash is computed once per spec object.
 */
export function containerHash(container: object): string {
  let hash = hashes.get(container);
  if (hash === undefined) {
    hash = createHash("sha256").update(stableJson(container)).digest("hex").slice(0, 8);
    hashes.set(container, hash);
  }
  return hash;
}
