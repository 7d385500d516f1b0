// When a worker keeps probing a container that is not running (kubelet worker.go doProbe,
// non-running branch), and the feature switches that change kubelet behaviour across versions.
import type { Container, ContainerStatus, Pod, PodStatus } from "../api/types.js";
import { containerShouldRestart } from "../kuberuntime/container-should-restart.js";
import { shouldAllContainersRestart } from "../kuberuntime/restart-all-containers.js";

/**
 * WorkerFeatures are the kubelet feature gates that change worker behaviour. Defaults follow
 * kubelet 1.37 (docs/feature-gates.md).
 */
export interface WorkerFeatures {
  /**
   * ContainerRestartRules (beta, on since 1.35): a terminated container keeps its worker only if it
   * would be restarted for its exit code. Off: only "terminated ∧ Never ∧ not a sidecar" stops it.
   */
  containerRestartRules: boolean;
  /**
   * Preserve probe state across an agent restart (ChangeContainerStatusOnKubeletRestart=false,
   * deprecated and off since 1.35): running containers that predate the manager keep their
   * results, and a started sidecar's startup result is Success (kubernetes#137146).
   */
  preserveStateOnRestart: boolean;
}

/** DEFAULT_WORKER_FEATURES are kubelet 1.37's defaults. */
export const DEFAULT_WORKER_FEATURES: WorkerFeatures = { containerRestartRules: true, preserveStateOnRestart: true };

/** isRestartableInitContainer reports whether an init container is a sidecar (restartPolicy Always). */
export function isRestartableInitContainer(container: Container): boolean {
  return container.restartPolicy === "Always";
}

/** isSidecarOf reports whether the container is one of the pod's restartable init containers. */
export function isSidecarOf(pod: Pod, container: Container): boolean {
  return (pod.spec.initContainers ?? []).some((c) => c.name === container.name && isRestartableInitContainer(c));
}

/**
 * containerShouldKeepProbing decides whether a worker whose container is not running goes on:
 * while it will run again, or while the whole pod restarts in place (RestartAllContainers,
 * ShouldAllContainersRestart on the pod's status `podStatus`).
 */
export function containerShouldKeepProbing(pod: Pod, container: Container, status: ContainerStatus, features: WorkerFeatures, podStatus?: PodStatus): boolean {
  const terminated = status.state?.terminated;
  if (!terminated) return true; // waiting: it will run again
  if (features.containerRestartRules) return containerShouldRestart(container, pod.spec, terminated.exitCode) || shouldAllContainersRestart(pod, () => undefined, podStatus);
  return pod.spec.restartPolicy !== "Never" || isSidecarOf(pod, container);
}

/** RESTART_GRACE_MS: containers started this long before the manager count as restart survivors. */
const RESTART_GRACE_MS = 10_000;

/**
 * survivedManagerRestart: with restart preservation on (the 1.37 default), a running container
 * that started more than 10 s before the probe manager outlived an agent restart, and keeps its
 * previous probe state instead of initial values (kubelet §I.1).
 */
export function survivedManagerRestart(status: ContainerStatus, managerStart: number, features: WorkerFeatures): boolean {
  if (!features.preserveStateOnRestart || !status.state?.running) return false;
  const startedAt = Date.parse(status.state.running.startedAt ?? "");
  return !Number.isNaN(startedAt) && startedAt < managerStart - RESTART_GRACE_MS;
}
