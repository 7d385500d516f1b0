// Pure builders for the pod conditions the kubelet owns: ContainersReady, Ready,
// Initialized and PodReadyToStartContainers (kubelet pkg/kubelet/status/generate.go), plus
// the rule that keeps a condition's lastTransitionTime until its status value flips.
import type { ContainerStatus, PodCondition, PodPhase, PodSpec } from "../api/types.js";

/** ConditionReason holds the reason strings the kubelet writes on pod conditions. */
export const ConditionReason = {
  /** No container statuses are known at all. */
  UnknownContainerStatuses: "UnknownContainerStatuses",
  /** Every container is known and the pod has Succeeded. */
  PodCompleted: "PodCompleted",
  /** The pod has Failed; its containers may still be terminating. */
  PodFailed: "PodFailed",
  /** At least one container is unknown or not ready. */
  ContainersNotReady: "ContainersNotReady",
  /** At least one init container has not completed (or a sidecar has not started). */
  ContainersNotInitialized: "ContainersNotInitialized",
  /** Containers are ready but a readiness gate is missing or not True. */
  ReadinessGatesNotReady: "ReadinessGatesNotReady",
} as const;

/** goSlice renders names the way Go's %s renders a []string: "[a b c]". */
function goSlice(names: readonly string[]): string {
  return `[${names.join(" ")}]`;
}

/**
 * allStatuses concatenates init and regular statuses like the kubelet's
 * `append(InitContainerStatuses, ContainerStatuses...)`; undefined means "no statuses at all"
 * (Go's nil slice), which the builders report as UnknownContainerStatuses.
 */
function allStatuses(
  containerStatuses: readonly ContainerStatus[] | undefined,
  initContainerStatuses: readonly ContainerStatus[] | undefined,
): readonly ContainerStatus[] | undefined {
  if (containerStatuses === undefined && initContainerStatuses === undefined) return undefined;
  return [...(initContainerStatuses ?? []), ...(containerStatuses ?? [])];
}

/** statusByName returns the first status with the given container name (podutil.GetContainerStatus). */
function statusByName(statuses: readonly ContainerStatus[], name: string): ContainerStatus | undefined {
  return statuses.find((s) => s.name === name);
}

/** isSidecar reports whether an init container is restartable (restartPolicy Always). */
function isSidecar(container: { restartPolicy?: string }): boolean {
  return container.restartPolicy === "Always";
}

/**
 * generateContainersReadyCondition builds ContainersReady (kubelet generate.go
 * GenerateContainersReadyCondition): sidecars are considered first, then regular containers;
 * plain init containers never count. A container without a status is "unknown", one whose
 * status is not ready is "unready".
 */
export function generateContainersReadyCondition(
  spec: PodSpec,
  containerStatuses: readonly ContainerStatus[] | undefined,
  initContainerStatuses: readonly ContainerStatus[] | undefined,
  phase: PodPhase | undefined,
): PodCondition {
  const statuses = allStatuses(containerStatuses, initContainerStatuses);
  if (statuses === undefined) {
    return { type: "ContainersReady", status: "False", reason: ConditionReason.UnknownContainerStatuses };
  }
  const unknown: string[] = [];
  const unready: string[] = [];
  const considered = [...(spec.initContainers ?? []).filter(isSidecar), ...spec.containers];
  for (const container of considered) {
    const status = statusByName(statuses, container.name);
    if (status === undefined) unknown.push(container.name);
    else if (!status.ready) unready.push(container.name);
  }
  // kubelet: a Succeeded pod whose containers are all known is "completed", and a Failed pod
  // is never ready, even while its containers are still being torn down.
  if (phase === "Succeeded" && unknown.length === 0) {
    return { type: "ContainersReady", status: "False", reason: ConditionReason.PodCompleted };
  }
  if (phase === "Failed") {
    return { type: "ContainersReady", status: "False", reason: ConditionReason.PodFailed };
  }
  const messages: string[] = [];
  if (unknown.length > 0) messages.push(`containers with unknown status: ${goSlice(unknown)}`);
  if (unready.length > 0) messages.push(`containers with unready status: ${goSlice(unready)}`);
  if (messages.length > 0) {
    return { type: "ContainersReady", status: "False", reason: ConditionReason.ContainersNotReady, message: messages.join(", ") };
  }
  return { type: "ContainersReady", status: "True" };
}

/**
 * generatePodReadyCondition builds Ready (kubelet generate.go GeneratePodReadyCondition): it
 * copies ContainersReady when that is not True, otherwise requires every readiness gate's
 * condition (looked up in `conditions`) to exist and be True.
 */
export function generatePodReadyCondition(
  spec: PodSpec,
  conditions: readonly PodCondition[] | undefined,
  containerStatuses: readonly ContainerStatus[] | undefined,
  initContainerStatuses: readonly ContainerStatus[] | undefined,
  phase: PodPhase | undefined,
): PodCondition {
  const containersReady = generateContainersReadyCondition(spec, containerStatuses, initContainerStatuses, phase);
  if (containersReady.status !== "True") return { ...containersReady, type: "Ready" };
  const messages: string[] = [];
  for (const gate of spec.readinessGates ?? []) {
    const condition = (conditions ?? []).find((c) => c.type === gate.conditionType);
    // Go's %q of a plain condition type: JSON quoting matches it for printable text.
    const quoted = JSON.stringify(gate.conditionType);
    if (condition === undefined) {
      messages.push(`corresponding condition of pod readiness gate ${quoted} does not exist.`);
    } else if (condition.status !== "True") {
      messages.push(`the status of pod readiness gate ${quoted} is not "True", but ${condition.status}`);
    }
  }
  if (messages.length > 0) {
    return { type: "Ready", status: "False", reason: ConditionReason.ReadinessGatesNotReady, message: messages.join(", ") };
  }
  return { type: "Ready", status: "True" };
}

/**
 * isInitContainerInitialized: a sidecar counts once it has started; a plain init container
 * once it is ready, which the prober manager sets when it exited 0 (kubelet generate.go).
 */
function isInitContainerInitialized(container: { restartPolicy?: string }, status: ContainerStatus): boolean {
  return isSidecar(container) ? status.started === true : status.ready;
}

/**
 * hasAnyRegularContainerStarted reports whether a regular container is running or has
 * terminated, proof that initialization finished before (kubelet HasAnyRegularContainerStarted).
 */
function hasAnyRegularContainerStarted(spec: PodSpec, statuses: readonly ContainerStatus[]): boolean {
  const regular = new Set(spec.containers.map((c) => c.name));
  return statuses.some((s) => regular.has(s.name) && (s.state?.running !== undefined || s.state?.terminated !== undefined));
}

/**
 * generateInitializedCondition builds Initialized (kubelet generate.go
 * GeneratePodInitializedCondition): init containers missing a status are "unknown", those not
 * yet initialized are "incomplete"; a Succeeded pod or any started regular container means
 * initialized.
 */
export function generateInitializedCondition(
  spec: PodSpec,
  containerStatuses: readonly ContainerStatus[] | undefined,
  initContainerStatuses: readonly ContainerStatus[] | undefined,
  phase: PodPhase | undefined,
  oldConditions?: readonly PodCondition[],
): PodCondition {
  const initContainers = spec.initContainers ?? [];
  const statuses = allStatuses(containerStatuses, initContainerStatuses);
  if (statuses === undefined && initContainers.length > 0) {
    return { type: "Initialized", status: "False", reason: ConditionReason.UnknownContainerStatuses };
  }
  const known = statuses ?? [];
  const unknown: string[] = [];
  const incomplete: string[] = [];
  for (const container of initContainers) {
    const status = statusByName(known, container.name);
    if (status === undefined) unknown.push(container.name);
    else if (!isInitContainerInitialized(container, status)) incomplete.push(container.name);
  }
  if (phase === "Succeeded" && unknown.length === 0) {
    return { type: "Initialized", status: "True", reason: ConditionReason.PodCompleted };
  }
  // kubelet: sidecars restarting after initialization must not flip Initialized back.
  if (hasAnyRegularContainerStarted(spec, known)) return { type: "Initialized", status: "True" };
  const messages: string[] = [];
  if (unknown.length > 0) messages.push(`containers with unknown status: ${goSlice(unknown)}`);
  if (incomplete.length > 0) messages.push(`containers with incomplete status: ${goSlice(incomplete)}`);
  if (messages.length > 0) {
    // RestartAllContainersOnContainerExits (on in 1.37): init containers run again in an in-place
    // restart, but a pod that was initialized stays so.
    if (oldConditions?.some((c) => c.type === "Initialized" && c.status === "True")) return { type: "Initialized", status: "True" };
    return { type: "Initialized", status: "False", reason: ConditionReason.ContainersNotInitialized, message: messages.join(", ") };
  }
  return { type: "Initialized", status: "True" };
}

/** PodSandboxNotReady is the reason of a False PodReadyToStartContainers (kubelet types PodSandboxNotReadyReason). */
export const POD_SANDBOX_NOT_READY = "PodSandboxNotReady";

/**
 * SandboxNotReadyMessage says why a new sandbox is needed (kubelet types PodSandboxNotReadyMsg*,
 * returned by kuberuntime/util PodSandboxChanged): none exists, or the newest is not ready.
 */
export type SandboxNotReadyMessage = "no pod sandbox exists" | "pod sandbox is not ready";

/**
 * generatePodReadyToStartContainersCondition is True once the pod sandbox (with networking)
 * exists, else False with reason PodSandboxNotReady and why (kubelet generate.go, since
 * kubernetes#135300). `notReady` is absent when the sandbox is ready.
 */
export function generatePodReadyToStartContainersCondition(notReady?: SandboxNotReadyMessage): PodCondition {
  if (notReady === undefined) return { type: "PodReadyToStartContainers", status: "True" };
  return { type: "PodReadyToStartContainers", status: "False", reason: POD_SANDBOX_NOT_READY, message: notReady };
}

/** RESTART_ALL_CONTAINERS_STARTED is the reason of a True AllContainersRestarting (kubelet RestartAllContainersStarted). */
export const RESTART_ALL_CONTAINERS_STARTED = "RestartAllContainersStarted";

/**
 * generateAllContainersRestartingCondition is kubelet GenerateAllContainersRestartingCondition,
 * for a pod with a RestartAllContainers rule: False with PodCompleted or PodFailed in a terminal
 * phase; True while a reset is asked for and containers are still to be removed (`restarting`);
 * False otherwise.
 */
export function generateAllContainersRestartingCondition(phase: PodPhase | undefined, restarting: boolean): PodCondition {
  if (phase === "Succeeded") return { type: "AllContainersRestarting", status: "False", reason: ConditionReason.PodCompleted };
  if (phase === "Failed") return { type: "AllContainersRestarting", status: "False", reason: ConditionReason.PodFailed };
  if (!restarting) return { type: "AllContainersRestarting", status: "False" };
  return { type: "AllContainersRestarting", status: "True", reason: RESTART_ALL_CONTAINERS_STARTED, message: "container exited with restart policy rule" };
}

/**
 * formatConditionTime renders epoch milliseconds as metav1.Time does on the wire: RFC 3339
 * in UTC with whole seconds ("2026-01-01T00:00:00Z").
 */
export function formatConditionTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

/**
 * updateCondition returns a copy of `conditions` with `newCondition` replacing the condition
 * of the same type in place (appended when missing). lastTransitionTime is carried over when
 * the status value is unchanged and set to `now` otherwise (kubelet status_manager.go
 * updateLastTransitionTime).
 */
export function updateCondition(conditions: readonly PodCondition[] | undefined, newCondition: PodCondition, now: string): PodCondition[] {
  const result = [...(conditions ?? [])];
  const index = result.findIndex((c) => c.type === newCondition.type);
  const old = index === -1 ? undefined : result[index];
  const lastTransitionTime = old !== undefined && old.status === newCondition.status && old.lastTransitionTime !== undefined ? old.lastTransitionTime : now;
  const updated: PodCondition = { ...newCondition, lastTransitionTime };
  if (index === -1) result.push(updated);
  else result[index] = updated;
  return result;
}
