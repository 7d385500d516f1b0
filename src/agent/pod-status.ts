// Building a core/v1 PodStatus from what the runtime reports (kubelet kubelet_pods.go
// generateAPIPodStatus, convertToAPIContainerStatuses and getPhase). Pure functions.
import type { Container, ContainerState, ContainerStatus, Pod, PodCondition, PodPhase, PodStatus, VolumeMountStatus } from "../api/types.js";
import type { ContainerInfo } from "../runtime/runtime.js";
import {
  generateAllContainersRestartingCondition,
  generateContainersReadyCondition,
  generateInitializedCondition,
  generatePodReadyCondition,
  generatePodReadyToStartContainersCondition,
  type SandboxNotReadyMessage,
  updateCondition,
} from "../status/generate.js";
import { isPodPhaseTerminal, isRestartableInitContainer } from "../api/pod-rules.js";
import { allContainersCouldRestart, containerShouldRestart } from "../api/container-should-restart.js";
import { truncateTerminationMessages } from "../kuberuntime/termination-message.js";
import { podQOSClass } from "../status/qos.js";
import type { ContainerInstances, Waiting } from "../kuberuntime/container-instance-groups.js";

/** iso renders ms since the epoch as an RFC 3339 time with second precision, like metav1.Time. */
export function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");
}

/** terminatedState renders an exited instance. */
export function terminatedState(info: ContainerInfo, runtimeType: string): ContainerState {
  return {
    terminated: {
      exitCode: info.exitCode,
      reason: info.reason,
      ...(info.message ? { message: info.message } : {}),
      ...(info.startedAt ? { startedAt: iso(info.startedAt) } : {}),
      finishedAt: iso(info.finishedAt),
      containerID: `${runtimeType}://${info.id}`,
    },
  };
}

/**
 * containerStatus renders one container's status. An exited instance that will be restarted
 * shows as waiting (with the agent's reason) and moves to lastState, as the kubelet shows
 * CrashLoopBackOff; `ready`/`started` are left false for the probe manager to fill in.
 */
export function containerStatus(spec: Container, instances: ContainerInstances | undefined, waiting: Waiting | undefined, runtimeType: string, defaultWaitingReason: string): ContainerStatus {
  const current = instances?.current;
  // kubelet convertToAPIContainerStatuses: imageID is the runtime's digested image ref (CRI image_ref).
  const status: ContainerStatus = { name: spec.name, ready: false, restartCount: current?.attempt ?? 0, image: spec.image ?? "", imageID: current?.imageRef ?? "" };
  if (current) status.containerID = `${runtimeType}://${current.id}`;
  const lastExited = current?.state === "exited" && waiting ? current : instances?.previous;
  if (lastExited && lastExited.state === "exited") status.lastState = terminatedState(lastExited, runtimeType);
  if (waiting) {
    status.state = { waiting: { reason: waiting.reason, message: waiting.message } };
  } else if (!current || current.state === "created" || current.state === "unknown") {
    status.state = { waiting: { reason: defaultWaitingReason } };
  } else if (current.state === "running") {
    status.state = { running: { startedAt: iso(current.startedAt) } };
  } else {
    status.state = terminatedState(current, runtimeType);
  }
  status.started = false;
  const mounts = volumeMountStatuses(spec);
  if (mounts.length > 0) status.volumeMounts = mounts;
  return status;
}

/**
 * volumeMountStatuses reports a container's volume mounts as the kubelet does (kubelet_pods.go
 * convertToAPIContainerStatuses, RecursiveReadOnlyMounts GA): name and path, and for a read-only
 * mount readOnly with its recursive mode, Disabled: neither runtime supports recursive read-only
 * mounts, and resolveRecursiveReadOnly then resolves IfPossible to Disabled and refuses Enabled
 * (the status still says Disabled).
 */
export function volumeMountStatuses(spec: Container): VolumeMountStatus[] {
  return (spec.volumeMounts ?? []).map((m) => {
    const status: VolumeMountStatus = { name: m.name, mountPath: m.mountPath };
    if (m.readOnly === true) {
      status.readOnly = true;
      status.recursiveReadOnly = "Disabled";
    }
    return status;
  });
}

/**
 * defaultWaitingReason is the waiting reason of a container that has no instance yet (kubelet
 * kubelet_pods.go convertToAPIContainerStatuses): PodInitializing for every container, init or
 * regular, of a pod with init containers, ContainerCreating otherwise.
 */
export function defaultWaitingReason(pod: Pod): "PodInitializing" | "ContainerCreating" {
  return (pod.spec.initContainers ?? []).length > 0 ? "PodInitializing" : "ContainerCreating";
}

/** RESTARTING_ALL_CONTAINERS is the reason of a container removed by a RestartAllContainers reset (kubelet RestartingAllContainers). */
export const RESTARTING_ALL_CONTAINERS = "RestartingAllContainers";

/**
 * restartable: a container that stopped with `exitCode` will run again (ContainerShouldRestart),
 * or was removed by a RestartAllContainers reset (its termination reason says so).
 */
function restartable(spec: Container, pod: Pod, terminated: { exitCode: number; reason?: string }): boolean {
  return containerShouldRestart(spec, pod.spec, terminated.exitCode) || terminated.reason === RESTARTING_ALL_CONTAINERS;
}

/**
 * podPhase is kubelet kubelet_pods.go getPhase with ContainerRestartRules and
 * RestartAllContainersOnContainerExits on (1.37), counter for counter: a plain init container
 * that failed and will not restart fails the pod, one running or not yet run keeps it Pending;
 * a sidecar counts while it runs (Pending until started, unless a regular container has
 * already run); then Running while a regular container runs, and once none does, Running while a
 * stopped one will restart, else Succeeded when all exited 0 and Failed otherwise. `podIsTerminal`
 * (a pod whose containers were all stopped for good, SyncTerminatingPod) skips the restart
 * question. A container without a status counts as unknown (Pending).
 */
export function podPhase(pod: Pod, initStatuses: readonly ContainerStatus[], statuses: readonly ContainerStatus[], podIsTerminal = false): PodPhase {
  const statusOf = (name: string): ContainerStatus | undefined => initStatuses.find((x) => x.name === name) ?? statuses.find((x) => x.name === name);
  // kubecontainer.HasAnyActiveRegularContainerStarted: a regular container has an instance.
  const podHasInitialized = pod.spec.containers.some((c) => statusOf(c.name)?.containerID);
  let pendingRestartableInit = 0;
  let pendingRegularInit = 0;
  let failedInitNotRestartable = 0;
  for (const spec of pod.spec.initContainers ?? []) {
    if (isRestartableInitContainer(spec)) continue;
    const s = statusOf(spec.name);
    const stopped = s?.state?.terminated ?? (s?.state?.waiting ? s.lastState?.terminated : undefined);
    if (s === undefined || s.state?.running || (s.state?.terminated === undefined && stopped === undefined)) pendingRegularInit++;
    else if (stopped !== undefined && stopped.exitCode !== 0 && !restartable(spec, pod, stopped)) failedInitNotRestartable++;
  }
  let unknown = 0;
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let stoppedNotRestartable = 0;
  let succeeded = 0;
  for (const spec of (pod.spec.initContainers ?? []).filter(isRestartableInitContainer)) {
    const s = statusOf(spec.name);
    if (s === undefined) unknown++;
    else if (s.state?.running) {
      if (s.started !== true) pendingRestartableInit++;
      running++;
    } else if (s.state?.terminated) {
      // A stopped sidecar does not count.
    } else if (s.state?.waiting) {
      if (s.lastState?.terminated === undefined) {
        pendingRestartableInit++;
        waiting++;
      }
    } else {
      pendingRestartableInit++;
      unknown++;
    }
  }
  for (const spec of pod.spec.containers) {
    const s = statusOf(spec.name);
    const last = s?.state?.terminated ?? (s?.state?.waiting ? s.lastState?.terminated : undefined);
    if (s === undefined) unknown++;
    else if (s.state?.running) running++;
    else if (last !== undefined) {
      stopped++;
      if (!restartable(spec, pod, last)) stoppedNotRestartable++;
      if (s.state?.terminated?.exitCode === 0) succeeded++;
    } else if (s.state?.waiting) waiting++;
    else unknown++;
  }
  if (failedInitNotRestartable > 0) return "Failed";
  if (pendingRegularInit > 0 || (pendingRestartableInit > 0 && !podHasInitialized) || waiting > 0) return "Pending";
  if (running > 0 && unknown === 0) return "Running";
  if (running === 0 && stopped > 0 && unknown === 0) {
    if (podIsTerminal) return stopped === succeeded ? "Succeeded" : "Failed";
    if (stopped !== stoppedNotRestartable) return "Running";
    return stopped === succeeded ? "Succeeded" : "Failed";
  }
  return "Pending";
}

/** PodStatusInput is everything buildPodStatus reads. */
export interface PodStatusInput {
  pod: Pod;
  previous: PodStatus | undefined;
  initContainerStatuses: ContainerStatus[];
  containerStatuses: ContainerStatus[];
  /** Why the pod's sandbox is not ready; absent when it is. */
  sandboxNotReady?: SandboxNotReadyMessage | undefined;
  podIP: string;
  hostIP: string;
  startTime: number;
  now: number;
  /** True for the final status of a pod whose containers were all stopped (SyncTerminatingPod). */
  podIsTerminal?: boolean;
  /** A RestartAllContainers reset is asked for and containers are still to be removed (KEP-5532). */
  allContainersRestarting?: boolean;
}

/**
 * buildPodStatus assembles phase, conditions (with lastTransitionTime kept unless a status
 * flips), IPs and container statuses. Ready/ContainersReady must be recomputed after the probe
 * manager has filled in `ready` — call refreshReadyConditions then.
 */
export function buildPodStatus(input: PodStatusInput): PodStatus {
  const { pod, previous } = input;
  // kubelet generateAPIPodStatus: a terminal phase never changes again (an attempted change is
  // an illegal phase transition, and the old phase is kept).
  const before = previous?.phase;
  const phase = isPodPhaseTerminal(before) ? before : podPhase(pod, input.initContainerStatuses, input.containerStatuses, input.podIsTerminal);
  const status: PodStatus = {
    phase,
    conditions: previous?.conditions ?? [],
    hostIP: input.hostIP,
    // kubelet generateAPIPodStatus: hostIPs lists the node's IPs, hostIP first.
    hostIPs: input.hostIP ? [{ ip: input.hostIP }] : [],
    // Without a sandbox there is no pod IP: podIP and podIPs are absent (omitempty).
    ...(input.podIP ? { podIP: input.podIP, podIPs: [{ ip: input.podIP }] } : {}),
    startTime: iso(input.startTime),
    initContainerStatuses: input.initContainerStatuses,
    containerStatuses: input.containerStatuses,
    // kubelet generateAPIPodStatus: the QoS class is computed once and then kept (ComputePodQOS).
    qosClass: previous?.qosClass ?? podQOSClass(pod),
  };
  const now = iso(input.now);
  const set = (c: PodCondition): void => {
    status.conditions = updateCondition(status.conditions, c, now);
  };
  set(generatePodReadyToStartContainersCondition(input.sandboxNotReady));
  set(generateInitializedCondition(pod.spec, input.containerStatuses, input.initContainerStatuses, phase, previous?.conditions));
  set({ type: "PodScheduled", status: "True" });
  if (allContainersCouldRestart(pod.spec)) set(generateAllContainersRestartingCondition(phase, input.allContainersRestarting === true));
  // kubelet status_manager.go normalizeStatus: the pod's messages share 12 KiB evenly.
  truncateTerminationMessages(pod.spec.containers.length + (pod.spec.initContainers ?? []).length, [...input.initContainerStatuses, ...input.containerStatuses]);
  return status;
}

/**
 * refreshReadyConditions recomputes Initialized, ContainersReady and Ready from the containers'
 * ready flags, which the probe manager sets (kubelet generateAPIPodStatus generates the
 * conditions after probeManager.UpdatePodStatus: a completed init container counts once ready).
 * `previous` is the status stored before: a pod it says was initialized stays so while a
 * RestartAllContainers reset runs its init containers again (GeneratePodInitializedCondition).
 */
export function refreshReadyConditions(pod: Pod, status: PodStatus, now: number, previous: PodStatus | undefined): void {
  const at = iso(now);
  status.conditions = updateCondition(status.conditions, generateInitializedCondition(pod.spec, status.containerStatuses, status.initContainerStatuses, status.phase, previous?.conditions), at);
  status.conditions = updateCondition(
    status.conditions,
    generateContainersReadyCondition(pod.spec, status.containerStatuses, status.initContainerStatuses, status.phase),
    at,
  );
  status.conditions = updateCondition(
    status.conditions,
    generatePodReadyCondition(pod.spec, status.conditions, status.containerStatuses, status.initContainerStatuses, status.phase),
    at,
  );
  const order = ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled", "AllContainersRestarting"];
  status.conditions.sort((a, b) => order.indexOf(a.type) - order.indexOf(b.type));
}

/** REMOVED_BY_RESTART_ALL_MESSAGE is the kubelet's message for a container a RestartAllContainers reset removed. */
export const REMOVED_BY_RESTART_ALL_MESSAGE = "The container is removed because RestartAllContainers in place";

/**
 * removedByRestartAll renders a container that a RestartAllContainers reset removed from the
 * runtime (kubelet convertToAPIContainerStatuses, podRestarting): waiting, reason
 * RestartingAllContainers, the same as its last state (exit code 137), one restart more.
 */
export function removedByRestartAll(status: ContainerStatus, old: ContainerStatus): void {
  status.state = { waiting: { reason: RESTARTING_ALL_CONTAINERS, message: REMOVED_BY_RESTART_ALL_MESSAGE } };
  status.lastState = { terminated: { exitCode: 137, reason: RESTARTING_ALL_CONTAINERS, message: REMOVED_BY_RESTART_ALL_MESSAGE } };
  status.restartCount = old.restartCount + 1;
}

/** UNKNOWN_LAST_STATE_MESSAGE is the kubelet's message for a running container that vanished from the runtime. */
export const UNKNOWN_LAST_STATE_MESSAGE = "The container could not be located when the pod was deleted.  The container used to be Running";

/**
 * keepLostHistory fills in what the runtime no longer knows from the previous status, when the
 * runtime lists no earlier instance of the container (its containers did not outlive a killed
 * agent, or were collected). As kubelet convertToAPIContainerStatuses does with the API
 * server's copy: with no instance yet, the old restart count stays (plus one for an instance
 * that was running and vanished, unless the pod is being deleted) and a vanished running
 * instance becomes a ContainerStatusUnknown (137) last state. A new instance keeps that last
 * state too, and the same instance keeps the previous status's last state (kubelet
 * convertContainerStatus carries LastTerminationState over when the runtime lost the earlier one).
 */
export function keepLostHistory(status: ContainerStatus, instances: ContainerInstances | undefined, old: ContainerStatus | undefined, deleting: boolean): void {
  if (!old || instances?.previous) return;
  if (status.containerID !== undefined && status.containerID === old.containerID) {
    // kubelet convertContainerStatus (RestartAllContainersOnContainerExits, on in 1.37): with no
    // earlier instance in the runtime (a RestartAllContainers reset removes them all), the same
    // instance keeps the last termination its previous status had, also once it exits itself.
    if (!status.lastState?.terminated && old.lastState?.terminated) status.lastState = structuredClone(old.lastState);
    return;
  }
  const wasRunning = old.state?.running !== undefined && old.containerID !== undefined;
  const lost: ContainerState | undefined = wasRunning
    ? { terminated: { exitCode: 137, reason: "ContainerStatusUnknown", message: UNKNOWN_LAST_STATE_MESSAGE, ...(old.containerID ? { containerID: old.containerID } : {}) } }
    : old.state?.terminated
      ? old.state
      : old.lastState;
  if (!status.lastState && lost?.terminated) status.lastState = structuredClone(lost);
  if (!instances?.current) status.restartCount = old.restartCount + (wasRunning && !deleting ? 1 : 0);
}
