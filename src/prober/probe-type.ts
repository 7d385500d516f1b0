// Probe types and the kubelet's names for them.

/** ProbeType is the kind of probe a worker runs. */
export type ProbeType = "liveness" | "readiness" | "startup";

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
