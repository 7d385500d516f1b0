// A sandbox's containers grouped by name as each sync sees them: the newest instance and the one
// before it, from which the pod's status and kuberuntime's decisions are made (kubelet
// kubecontainer.PodStatus, its ContainerStatuses sorted newest first by getPodContainerStatuses);
// and the waiting reasons kuberuntime decides when it does not start a container (the reason cache).
import type { ContainerInfo } from "../runtime/runtime.js";

/** ContainerInstances are the runtime's instances of one container name, newest first. */
export interface ContainerInstances {
  current?: ContainerInfo;
  previous?: ContainerInfo;
}

/** Waiting is a waiting reason the agent decided on (back-off, start errors). */
export interface Waiting {
  reason: string;
  message: string;
}

/** groupInstances groups a sandbox's containers by name, newest attempt first. */
export function groupInstances(infos: readonly ContainerInfo[]): Map<string, ContainerInstances> {
  const byName = new Map<string, ContainerInfo[]>();
  for (const info of infos) byName.set(info.name, [...(byName.get(info.name) ?? []), info]);
  const out = new Map<string, ContainerInstances>();
  for (const [name, list] of byName) {
    list.sort((a, b) => b.attempt - a.attempt || b.createdAt - a.createdAt);
    out.set(name, { ...(list[0] ? { current: list[0] } : {}), ...(list[1] ? { previous: list[1] } : {}) });
  }
  return out;
}
