// A pod's sysctls as the runtime gets them: securityContext.sysctls with each name written with
// dots (kuberuntime_sandbox.go generatePodSandboxConfig; component-helpers sysctl.NormalizeName).
import type { Pod } from "./types.js";

/**
 * normalizeSysctlName writes a sysctl with dots (component-helpers sysctl.NormalizeName): when
 * its first separator is a slash, slashes and dots swap ("net/ipv4/conf/eth0.100/x" →
 * "net.ipv4.conf.eth0/100.x").
 */
export function normalizeSysctlName(name: string): string {
  const firstSep = name.search(/[./]/);
  if (firstSep < 0 || name[firstSep] === ".") return name;
  return name.replace(/[./]/g, (c) => (c === "/" ? "." : "/"));
}

/** PodSysctl is one entry of securityContext.sysctls. */
export interface PodSysctl {
  name: string;
  value: string;
}

/** podSysctls reads securityContext.sysctls (as validated by the API server), names normalized. */
export function podSysctls(pod: Pod): PodSysctl[] {
  const raw = pod.spec.securityContext?.["sysctls"];
  if (!Array.isArray(raw)) return [];
  return raw
    .filter((s): s is { name: string; value?: unknown } => typeof s === "object" && s !== null && typeof (s as { name?: unknown }).name === "string")
    .map((s) => ({ name: normalizeSysctlName(s.name), value: typeof s.value === "string" ? s.value : "" }));
}
