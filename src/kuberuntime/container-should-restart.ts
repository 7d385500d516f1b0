// Whether a container that exited is started again, and whether it can ever be (kubelet
// pkg/api/v1/pod/util.go ContainerShouldRestart, IsContainerRestartable and
// findMatchingContainerRestartRule, with ContainerRestartRules and RestartAllContainersOnContainerExits
// on as in 1.37). Every restart
// decision of the agent goes through here: pod phase, init containers, computePodActions, probe
// kills and the probe workers.
import type { Container, ContainerRestartRule, PodSpec } from "../api/types.js";

/**
 * matchingRestartRule returns the first rule whose exit-code condition matches, in list order;
 * a rule without exitCodes or with an unknown operator never matches
 * (kubelet findMatchingContainerRestartRule).
 */
export function matchingRestartRule(container: Container, exitCode: number): ContainerRestartRule | undefined {
  for (const rule of container.restartPolicyRules ?? []) {
    if (rule.exitCodes === undefined) continue;
    const listed = (rule.exitCodes.values ?? []).includes(exitCode);
    if (rule.exitCodes.operator === "In" && listed) return rule;
    if (rule.exitCodes.operator === "NotIn" && !listed) return rule;
  }
  return undefined;
}

/** restartsOnExit applies one restart policy value to an exit code; undefined for an unknown value. */
function restartsOnExit(policy: string | undefined, exitCode: number): boolean | undefined {
  if (policy === "Always") return true;
  if (policy === "OnFailure") return exitCode !== 0;
  if (policy === "Never") return false;
  return undefined;
}

/**
 * containerShouldRestart decides whether a container that exited with `exitCode` is started
 * again (kubelet podutil.ContainerShouldRestart): only when the container sets its own
 * restartPolicy are its restartPolicyRules evaluated, first match wins (action Restart or
 * RestartAllContainers → yes: the latter restarts it with the whole pod);
 * then the container's restartPolicy; then the pod's, where an unset or unknown policy means
 * Always. A sidecar (init container with restartPolicy Always) therefore always restarts.
 */
export function containerShouldRestart(container: Container, pod: PodSpec, exitCode: number): boolean {
  if (container.restartPolicy !== undefined) {
    const action = matchingRestartRule(container, exitCode)?.action;
    if (action === "Restart" || action === "RestartAllContainers") return true;
    const own = restartsOnExit(container.restartPolicy, exitCode);
    if (own !== undefined) return own;
  }
  return restartsOnExit(pod.restartPolicy, exitCode) ?? true;
}

/**
 * isContainerRestartable reports whether a container could restart at all, whatever its exit
 * code (kubelet podutil.IsContainerRestartable): with its own restartPolicy, any Restart rule or
 * a policy other than Never; otherwise a pod policy other than Never. computePodActions uses it
 * for a container killed by a probe, which is still running, so no exit code exists yet.
 */
export function isContainerRestartable(pod: PodSpec, container: Container): boolean {
  if (container.restartPolicy !== undefined) {
    if ((container.restartPolicyRules ?? []).some((rule) => rule.action === "Restart")) return true;
    return container.restartPolicy !== "Never";
  }
  return pod.restartPolicy !== "Never";
}
