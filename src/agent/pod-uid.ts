// Stable pod UIDs for manifests, like the kubelet's static pods: the UID is a hash of the pod's
// source and content, so the same manifest maps to the same UID across agent restarts and an
// edited manifest becomes a new pod (kubelet pkg/kubelet/config/common.go applyDefaults).
import { createHash } from "node:crypto";
import type { Pod } from "../api/types.js";
import { stableJson } from "../util/stable-json.js";

/** podUidFor derives a UUID-shaped UID from the pod's source and its manifest (sans status/uid). */
export function podUidFor(pod: Pod, source: string): string {
  const { status: _status, ...rest } = pod;
  const content = { ...rest, metadata: { ...rest.metadata, uid: undefined, resourceVersion: undefined, creationTimestamp: undefined } };
  const hex = createHash("sha256").update(source).update("\u0000").update(stableJson(content)).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
