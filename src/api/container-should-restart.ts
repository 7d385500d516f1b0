// Whether a container that exited is started again, and whether it can ever be (kubelet
// pkg/api/v1/pod/util.go ContainerShouldRestart, IsContainerRestartable and
// findMatchingContainerRestartRule, AllContainersCouldRestart, and pkg/kubelet/container/helpers.go
// ShouldAllContainersRestart, which reads only the pod and its statuses; with ContainerRestartRules
// and RestartAllContainersOnContainerExits on as in 1.37). Every restart
// decision of the agent goes through here: pod phase, init containers, computePodActions, probe
// kills and the probe workers.
import { allContainers } from "./pod-rules.js";
import type { Container, ContainerRestartRule, Pod, PodSpec, PodStatus } from "./types.js";

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

/** RESTART_ALL_CONTAINERS_ACTION is the rule action that restarts the pod in place. */
export const RESTART_ALL_CONTAINERS_ACTION = "RestartAllContainers";

/** allContainersCouldRestart: some container of the pod has a RestartAllContainers rule (podutil.AllContainersCouldRestart). */
export function allContainersCouldRestart(spec: PodSpec): boolean {
  return allContainers({ spec }).some((c) => (c.restartPolicyRules ?? []).some((r) => r.action === RESTART_ALL_CONTAINERS_ACTION));
}

/** triggersRestartAll: an exit with this code restarts the whole pod (its first matching rule says RestartAllContainers). */
export function triggersRestartAll(container: Container, exitCode: number): boolean {
  return matchingRestartRule(container, exitCode)?.action === RESTART_ALL_CONTAINERS_ACTION;
}

/**
 * shouldAllContainersRestart is kubelet ShouldAllContainersRestart: the stored status already
 * says AllContainersRestarting True, or a container's newest instance in the runtime
 * (`newestExit`: its exit code, undefined unless it exited) or its stored terminated state exited
 * with a code that triggers the reset.
 */
export function shouldAllContainersRestart(pod: Pod, newestExit: (name: string) => number | undefined, stored: PodStatus | undefined): boolean {
  if (stored?.conditions?.some((c) => c.type === "AllContainersRestarting" && c.status === "True")) return true;
  const storedStatuses = [...(stored?.initContainerStatuses ?? []), ...(stored?.containerStatuses ?? [])];
  for (const container of allContainers(pod)) {
    const exit = newestExit(container.name);
    if (exit !== undefined && triggersRestartAll(container, exit)) return true;
    const terminated = storedStatuses.find((s) => s.name === container.name)?.state?.terminated;
    if (terminated !== undefined && triggersRestartAll(container, terminated.exitCode)) return true;
  }
  return false;
}
