// KEP-5532 RestartAllContainers (RestartAllContainersOnContainerExits, beta and on since 1.36):
// a container that exits with a code whose first matching restartPolicyRule has the action
// RestartAllContainers restarts the whole pod in place, init containers included. Which
// instances the reset removes, in the kubelet's order (kuberuntime_manager.go
// getContainersToReset); whether a pod restarts in place is a pod rule
// (src/api/container-should-restart.ts).
import { triggersRestartAll } from "../api/container-should-restart.js";
import type { Container, Pod } from "../api/types.js";
import type { ContainerInfo } from "../runtime/runtime.js";

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
