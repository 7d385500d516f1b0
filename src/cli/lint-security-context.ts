// The lint rule for securityContext fields the process runtime cannot honour when the agent is
// not root (see src/runtime/process/container-world.ts): the agent would hold such a container
// back (CreateContainerConfigError) rather than run it without them, so lint says so before.
import type { Pod } from "../api/types.js";
import { containerSecurity } from "../kuberuntime/security-context.js";
import { agentHost, securityProblem } from "../runtime/process/container-world.js";

/**
 * lintSecurityContext warns, for each container, about the first securityContext field (its own
 * or the pod's) a process-runtime agent running as this user could not apply. Nothing as root.
 */
export function lintSecurityContext(pod: Pod, host = agentHost(true)): string[] {
  const warnings: string[] = [];
  for (const [field, list] of [["initContainers", pod.spec.initContainers ?? []], ["containers", pod.spec.containers]] as const) {
    list.forEach((c, i) => {
      const security = containerSecurity(pod, c);
      const problem = security ? securityProblem(security, host) : undefined;
      if (problem !== undefined) warnings.push(`spec.${field}[${i}]: ${problem}: on the process runtime the container would wait (CreateContainerConfigError)`);
    });
  }
  return warnings;
}
