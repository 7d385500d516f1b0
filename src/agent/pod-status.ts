// Building a core/v1 PodStatus from what the runtime reports (kubelet kubelet_pods.go
// generateAPIPodStatus, convertToAPIContainerStatuses and getPhase). Pure functions.
import type { Container, ContainerState, ContainerStatus, Pod, PodCondition, PodPhase, PodStatus } from "../api/types.js";
import type { ContainerInfo } from "../runtime/runtime.js";
import {
  generateContainersReadyCondition,
  generateInitializedCondition,
  generatePodReadyCondition,
  generatePodReadyToStartContainersCondition,
  updateCondition,
} from "../status/generate.js";
import { isRestartableInitContainer } from "../prober/worker-policy.js";

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
  const status: ContainerStatus = { name: spec.name, ready: false, restartCount: current?.attempt ?? 0, image: spec.image ?? "", imageID: "" };
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
  return status;
}

/**
 * podPhase follows kubelet getPhase: pending initialization or waiting containers → Pending;
 * running containers → Running; all stopped → Succeeded/Failed by restart policy and exit codes.
 */
export function podPhase(pod: Pod, initStatuses: readonly ContainerStatus[], statuses: readonly ContainerStatus[]): PodPhase {
  const policy = pod.spec.restartPolicy ?? "Always";
  let pendingInit = 0;
  let failedInit = false;
  for (const spec of pod.spec.initContainers ?? []) {
    if (isRestartableInitContainer(spec)) continue;
    const s = initStatuses.find((x) => x.name === spec.name);
    const t = s?.state?.terminated ?? (s?.state?.waiting ? s.lastState?.terminated : undefined);
    if (t?.exitCode === 0 && s?.state?.terminated) continue;
    if (t && t.exitCode !== 0) failedInit = true;
    pendingInit++;
  }
  if (failedInit && policy === "Never") return "Failed";
  if (pendingInit > 0) return "Pending";
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const spec of pod.spec.containers) {
    const s = statuses.find((x) => x.name === spec.name);
    if (!s || s.state?.waiting) {
      if (s?.lastState?.terminated) stopped++;
      else waiting++;
    } else if (s.state?.running) {
      running++;
    } else if (s.state?.terminated) {
      stopped++;
      if (s.state.terminated.exitCode === 0) succeeded++;
    }
  }
  if (waiting > 0) return "Pending";
  if (running > 0) return "Running";
  if (stopped > 0) {
    if (policy === "Always") return "Running";
    if (stopped === succeeded) return "Succeeded";
    if (policy === "Never") return "Failed";
    return "Running";
  }
  return "Pending";
}

/** PodStatusInput is everything buildPodStatus reads. */
export interface PodStatusInput {
  pod: Pod;
  previous: PodStatus | undefined;
  initContainerStatuses: ContainerStatus[];
  containerStatuses: ContainerStatus[];
  sandboxReady: boolean;
  podIP: string;
  hostIP: string;
  startTime: number;
  now: number;
}

/**
 * buildPodStatus assembles phase, conditions (with lastTransitionTime kept unless a status
 * flips), IPs and container statuses. Ready/ContainersReady must be recomputed after the probe
 * manager has filled in `ready` — call refreshReadyConditions then.
 */
export function buildPodStatus(input: PodStatusInput): PodStatus {
  const { pod, previous } = input;
  const phase = podPhase(pod, input.initContainerStatuses, input.containerStatuses);
  const status: PodStatus = {
    phase,
    conditions: previous?.conditions ?? [],
    hostIP: input.hostIP,
    podIP: input.podIP,
    podIPs: input.podIP ? [{ ip: input.podIP }] : [],
    startTime: iso(input.startTime),
    initContainerStatuses: input.initContainerStatuses,
    containerStatuses: input.containerStatuses,
  };
  const now = iso(input.now);
  const set = (c: PodCondition): void => {
    status.conditions = updateCondition(status.conditions, c, now);
  };
  set(generatePodReadyToStartContainersCondition(input.sandboxReady));
  set(generateInitializedCondition(pod.spec, input.containerStatuses, input.initContainerStatuses, phase));
  set({ type: "PodScheduled", status: "True" });
  return status;
}

/** refreshReadyConditions recomputes ContainersReady and Ready from the containers' ready flags. */
export function refreshReadyConditions(pod: Pod, status: PodStatus, now: number): void {
  const at = iso(now);
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
  const order = ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"];
  status.conditions.sort((a, b) => order.indexOf(a.type) - order.indexOf(b.type));
}

/** UNKNOWN_LAST_STATE_MESSAGE is the kubelet's message for a running container that vanished from the runtime. */
export const UNKNOWN_LAST_STATE_MESSAGE = "The container could not be located when the pod was deleted.  The container used to be Running";

/**
 * keepLostHistory fills in what the runtime no longer knows from the previous status, when the
 * runtime lists no earlier instance of the container (its containers did not outlive a killed
 * agent, or were collected). As kubelet convertToAPIContainerStatuses does with the API
 * server's copy: with no instance yet, the old restart count stays (plus one for an instance
 * that was running and vanished, unless the pod is being deleted) and a vanished running
 * instance becomes a ContainerStatusUnknown (137) last state. Beyond the kubelet, a new
 * instance keeps that last state too (the kubelet would show none once it starts).
 */
export function keepLostHistory(status: ContainerStatus, instances: ContainerInstances | undefined, old: ContainerStatus | undefined, deleting: boolean): void {
  if (!old || instances?.previous || (status.containerID !== undefined && status.containerID === old.containerID)) return;
  const wasRunning = old.state?.running !== undefined && old.containerID !== undefined;
  const lost: ContainerState | undefined = wasRunning
    ? { terminated: { exitCode: 137, reason: "ContainerStatusUnknown", message: UNKNOWN_LAST_STATE_MESSAGE, ...(old.containerID ? { containerID: old.containerID } : {}) } }
    : old.state?.terminated
      ? old.state
      : old.lastState;
  if (!status.lastState && lost?.terminated) status.lastState = structuredClone(lost);
  if (!instances?.current) status.restartCount = old.restartCount + (wasRunning && !deleting ? 1 : 0);
}
