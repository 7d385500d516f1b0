// KEP-5532 RestartAllContainers (RestartAllContainersOnContainerExits, beta and on since 1.36):
// a container that exits with a code whose first matching restartPolicyRule has the action
// RestartAllContainers restarts the whole pod in place, init containers included. The pure
// decisions of the kubelet (pkg/kubelet/container/helpers.go ShouldAllContainersRestart,
// AllContainersRestartCleanedUp; kuberuntime_manager.go getContainersToReset; pkg/api/v1/pod
// AllContainersCouldRestart).
import type { Container, Pod, PodSpec, PodStatus } from "../api/types.js";
import type { ContainerInfo } from "../runtime/runtime.js";
import { matchingRestartRule } from "./container-should-restart.js";

/** RESTART_ALL_CONTAINERS_ACTION is the rule action that restarts the pod in place. */
export const RESTART_ALL_CONTAINERS_ACTION = "RestartAllContainers";

/** allContainersCouldRestart: some container of the pod has a RestartAllContainers rule (podutil.AllContainersCouldRestart). */
export function allContainersCouldRestart(spec: PodSpec): boolean {
  return [...(spec.initContainers ?? []), ...spec.containers].some((c) => (c.restartPolicyRules ?? []).some((r) => r.action === RESTART_ALL_CONTAINERS_ACTION));
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
  for (const container of [...(pod.spec.initContainers ?? []), ...pod.spec.containers]) {
    const exit = newestExit(container.name);
    if (exit !== undefined && triggersRestartAll(container, exit)) return true;
    const terminated = storedStatuses.find((s) => s.name === container.name)?.state?.terminated;
    if (terminated !== undefined && triggersRestartAll(container, terminated.exitCode)) return true;
  }
  return false;
}

/** ContainerToReset is one instance the reset removes; a running one is killed first, without grace. */
export interface ContainerToReset {
  spec: Container;
  info: ContainerInfo;
  kill: boolean;
}

/**
 * containersToReset lists every instance of every container, in the order the kubelet removes
 * them (computePodActions with restartAllContainers, getContainersToReset): the other regular
 * containers, the other init containers, then the ones whose exit triggered the reset (regular,
 * then init), so the trigger's termination stays readable until the end.
 */
export function containersToReset(pod: Pod, listed: readonly ContainerInfo[]): ContainerToReset[] {
  const newestFirst = [...listed].sort((a, b) => b.attempt - a.attempt || b.createdAt - a.createdAt);
  const split = (specs: readonly Container[]): [ContainerToReset[], ContainerToReset[]] => {
    const sources: ContainerToReset[] = [];
    const targets: ContainerToReset[] = [];
    for (const spec of specs) {
      for (const info of newestFirst.filter((c) => c.name === spec.name)) {
        if (info.state === "exited") (triggersRestartAll(spec, info.exitCode) ? sources : targets).push({ spec, info, kill: false });
        else targets.push({ spec, info, kill: true });
      }
    }
    return [sources, targets];
  };
  const [initSources, initTargets] = split(pod.spec.initContainers ?? []);
  const [sources, targets] = split(pod.spec.containers);
  return [...targets, ...initTargets, ...sources, ...initSources];
}
