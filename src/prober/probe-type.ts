// Probe types and the kubelet's names for them.

import type { ProbeType } from "../api/pod-rules.js";

export type { ProbeType };

/** PROBE_TYPES lists the types in the order the kubelet's AddPod creates workers. */
export const PROBE_TYPES: readonly ProbeType[] = ["startup", "readiness", "liveness"];

/** probeTypeLabel is the capitalised name used in events and metrics ("Liveness"). */
export function probeTypeLabel(type: ProbeType): "Liveness" | "Readiness" | "Startup" {
  switch (type) {
    case "liveness":
      return "Liveness";
    case "readiness":
      return "Readiness";
    case "startup":
      return "Startup";
  }
}
