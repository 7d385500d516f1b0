// The probe-driven part of the kubelet's computePodActions: which running containers to
// keep, which to kill (and why), which to start again, and whether the whole pod must go
// (kubelet pkg/kubelet/kuberuntime/kuberuntime_manager.go computePodActions and
// kuberuntime_container.go computeInitContainerActions). Pure: it reads results, never waits.
import type { Container, ContainerStatus, Pod } from "../api/types.js";
import type { Result } from "../prober/results/cached-result.js";
import { containerShouldRestart, isContainerRestartable } from "../api/container-should-restart.js";
import { isRestartableInitContainer } from "../api/pod-rules.js";

/** ProbeKillReason names the probe that caused a kill (kubelet reasonLivenessProbe / reasonStartupProbe). */
export type ProbeKillReason = "liveness" | "startup";

/** ResultLookup is the read side of a ResultsManager, keyed by full container ID. */
export interface ResultLookup {
  get(containerId: string): Result | undefined;
}

/** ContainerActionsInput is everything computeContainerActions reads. */
export interface ContainerActionsInput {
  /** The current desired pod (spec and restart policy). */
  pod: Pod;
  /** The runtime's view of the regular containers (latest instance per name). */
  containerStatuses: readonly ContainerStatus[];
  /** The runtime's view of the init containers; only running sidecars are inspected. */
  initContainerStatuses?: readonly ContainerStatus[];
  /** Liveness results by container ID. */
  liveness: ResultLookup;
  /** Startup results by container ID. */
  startup: ResultLookup;
  /** specChanged reports a container whose spec hash differs from the running instance's. */
  specChanged?: (containerName: string) => boolean;
}

/** KeepDecision leaves a running container alone. */
export interface KeepDecision {
  action: "keep";
  name: string;
  containerId: string;
  /** True for a restartable init container. */
  sidecar: boolean;
}

/** KillDecision stops a running container; `message` is the Killing event's text. */
export interface KillDecision {
  action: "kill";
  name: string;
  containerId: string;
  sidecar: boolean;
  message: string;
  /** The probe that caused the kill; absent for a definition change. */
  reason?: ProbeKillReason;
  /** Whether the container is started again after the kill. */
  restart: boolean;
}

/** ContainerDecision is the verdict for one running container. */
export type ContainerDecision = KeepDecision | KillDecision;

/** PodActions is computeContainerActions' answer. */
export interface PodActions {
  /** One decision per running container: sidecars first, then regular containers, spec order. */
  decisions: ContainerDecision[];
  /**
   * Regular containers to start: those killed with restart, plus non-running ones the restart
   * policy brings back (kubelet ShouldContainerBeRestarted).
   */
  containersToStart: string[];
  /** Sidecars killed by a probe or spec change, to start again (cleared when killPod). */
  initContainersToStart: string[];
  /** No regular container is kept and none is to start: kill the whole pod. */
  killPod: boolean;
}

/** runningId returns the container ID of a running status, or undefined when not running. */
function runningId(status: ContainerStatus | undefined): string | undefined {
  if (status?.state?.running === undefined || !status.containerID) return undefined;
  return status.containerID;
}

/**
 * shouldContainerBeRestarted decides whether a container that is not running is started
 * (kubelet container/helpers.go ShouldContainerBeRestarted): never once the pod is being
 * deleted; always when it never ran; else ContainerShouldRestart on the last exit code.
 */
export function shouldContainerBeRestarted(pod: Pod, status: ContainerStatus | undefined, container?: Container): boolean {
  if (pod.metadata.deletionTimestamp !== undefined) return false;
  if (status === undefined) return true;
  if (status.state?.running !== undefined) return false;
  // A waiting container with no previous run was created but never started: start it.
  const exited = status.state?.terminated ?? status.lastState?.terminated;
  if (exited === undefined) return true;
  return containerShouldRestart(container ?? { name: status.name }, pod.spec, exited.exitCode);
}

/**
 * sidecarDecision follows computeInitContainerActions for a running sidecar: startup (only
 * with a startup probe; no result yet means wait), then a definition change, then liveness
 * (only with a liveness probe). Sidecars are always restarted and their messages say "Init container".
 */
function sidecarDecision(input: ContainerActionsInput, container: Container, containerId: string): ContainerDecision {
  const base = { name: container.name, containerId, sidecar: true };
  const kill = (message: string, reason?: ProbeKillReason): KillDecision =>
    reason === undefined ? { ...base, action: "kill", message, restart: true } : { ...base, action: "kill", message, reason, restart: true };
  if (container.startupProbe !== undefined) {
    const startup = input.startup.get(containerId);
    if (startup === "Failure") return kill(`Init container ${container.name} failed startup probe`, "startup");
    if (startup !== "Success") return { ...base, action: "keep" };
  }
  if (input.specChanged?.(container.name) === true) return kill(`Init container ${container.name} definition changed`);
  if (container.livenessProbe !== undefined && input.liveness.get(containerId) === "Failure") {
    return kill(`Init container ${container.name} failed liveness probe`, "liveness");
  }
  return { ...base, action: "keep" };
}

/**
 * regularDecision follows computePodActions for a running regular container, first match
 * wins: definition changed (restart regardless of policy), liveness Failure, startup Failure
 * for this container ID, else keep. Whether a probe-killed container comes back is
 * IsContainerRestartable (it is still running: no exit code to match rules against); a
 * definition change always restarts. With a restart the message gains ", will be restarted".
 */
function regularDecision(input: ContainerActionsInput, container: Container, containerId: string): ContainerDecision {
  const base = { name: container.name, containerId, sidecar: false };
  let message: string;
  let reason: ProbeKillReason | undefined;
  let restart = isContainerRestartable(input.pod.spec, container);
  if (input.specChanged?.(container.name) === true) {
    message = `Container ${container.name} definition changed`;
    restart = true;
  } else if (input.liveness.get(containerId) === "Failure") {
    message = `Container ${container.name} failed liveness probe`;
    reason = "liveness";
  } else if (input.startup.get(containerId) === "Failure") {
    message = `Container ${container.name} failed startup probe`;
    reason = "startup";
  } else {
    return { ...base, action: "keep" };
  }
  if (restart) message = `${message}, will be restarted`;
  return reason === undefined ? { ...base, action: "kill", message, restart } : { ...base, action: "kill", message, reason, restart };
}

/**
 * computeContainerActions decides, per running container, keep or kill from the cached
 * liveness/startup results of that exact container ID (so a Failure left by an old instance
 * never kills its replacement), and whether the pod as a whole must be killed.
 */
export function computeContainerActions(input: ContainerActionsInput): PodActions {
  const { pod } = input;
  const decisions: ContainerDecision[] = [];
  const containersToStart: string[] = [];
  let initContainersToStart: string[] = [];

  for (const container of (pod.spec.initContainers ?? []).filter(isRestartableInitContainer)) {
    const id = runningId(input.initContainerStatuses?.find((s) => s.name === container.name));
    if (id === undefined) continue;
    const decision = sidecarDecision(input, container, id);
    decisions.push(decision);
    if (decision.action === "kill") initContainersToStart.push(container.name);
  }

  let keepCount = 0;
  for (const container of pod.spec.containers) {
    const status = input.containerStatuses.find((s) => s.name === container.name);
    const id = runningId(status);
    if (id === undefined) {
      if (shouldContainerBeRestarted(pod, status, container)) containersToStart.push(container.name);
      continue;
    }
    const decision = regularDecision(input, container, id);
    decisions.push(decision);
    if (decision.action === "keep") keepCount++;
    else if (decision.restart) containersToStart.push(container.name);
  }

  // kubelet: nothing left running and nothing to start means the pod is done; sidecars must
  // not keep it alive, so their restarts are dropped.
  const killPod = keepCount === 0 && containersToStart.length === 0;
  if (killPod) {
    initContainersToStart = [];
    for (const d of decisions) if (d.action === "kill" && d.sidecar) d.restart = false;
  }
  return { decisions, containersToStart, initContainersToStart, killPod };
}
