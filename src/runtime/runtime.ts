// The container runtime interface: what the agent asks of a runtime, shaped after the kubelet's
// use of CRI v1 (RuntimeService) but in domain types only. Two implementations: the embedded
// process runtime (src/runtime/process/) and containerd over CRI (src/runtime/cri/).
import type { CommandRunner } from "../probe/command-runner.js";

/** Labels are string key/values attached to sandboxes and containers so the agent can find them again. */
export type Labels = Record<string, string>;

/** PodSandboxConfig describes a pod's sandbox (CRI PodSandboxConfig). */
export interface PodSandboxConfig {
  podUid: string;
  name: string;
  namespace: string;
  /** Incremented when the sandbox is re-created. */
  attempt: number;
  hostNetwork: boolean;
  /** Directory under which container log files are written. */
  logDirectory: string;
  labels: Labels;
  annotations: Labels;
}

/** SandboxState mirrors CRI's SANDBOX_READY / SANDBOX_NOTREADY. */
export type SandboxState = "ready" | "notready";

/** PodSandboxStatus is a sandbox as the runtime reports it. */
export interface PodSandboxStatus {
  id: string;
  podUid: string;
  name: string;
  namespace: string;
  attempt: number;
  state: SandboxState;
  /** The pod IP ("" when none). */
  podIP: string;
  /** Creation time, ms since the epoch. */
  createdAt: number;
  labels: Labels;
  annotations: Labels;
}

/** KeyValue is one environment variable given to a container. */
export interface KeyValue {
  key: string;
  value: string;
}

/** ContainerConfig describes a container to create (CRI ContainerConfig). */
export interface ContainerConfig {
  name: string;
  /** Restart attempt; 0 for the first instance. */
  attempt: number;
  image: string;
  /** Entrypoint and arguments after `$(VAR)` expansion (the agent expands them). */
  command: string[];
  args: string[];
  workingDir?: string;
  envs: KeyValue[];
  labels: Labels;
  annotations: Labels;
  /** Log file path relative to the sandbox's logDirectory (e.g. "app/0.log"). */
  logPath: string;
  /** Volume mounts: host paths bind-mounted at container paths (CRI Mount; empty when none). */
  mounts?: Mount[];
  /** resources.limits.memory in bytes (CRI memory_limit_in_bytes); the process runtime has no cgroup to apply it to. */
  memoryLimitBytes?: number;
}

/** Mount is one bind mount of a container (CRI Mount): the host path appears at containerPath. */
export interface Mount {
  containerPath: string;
  hostPath: string;
  readonly: boolean;
}

/** ContainerState mirrors CRI's CONTAINER_CREATED / RUNNING / EXITED / UNKNOWN. */
export type ContainerState = "created" | "running" | "exited" | "unknown";

/** ContainerInfo is a container as the runtime reports it (CRI ContainerStatus). */
export interface ContainerInfo {
  /** Runtime-local ID (without the "<runtime>://" prefix). */
  id: string;
  podSandboxId: string;
  name: string;
  attempt: number;
  state: ContainerState;
  image: string;
  /** ms since the epoch; 0 when not yet. */
  createdAt: number;
  startedAt: number;
  finishedAt: number;
  exitCode: number;
  /** CRI-style reason for an exited container: "Completed", "Error", "OOMKilled", … */
  reason: string;
  message: string;
  labels: Labels;
  annotations: Labels;
  /** Absolute path of the container's log file. */
  logPath: string;
}

/** ContainerSummary is what a container listing alone tells (CRI ListContainers), without its status. */
export type ContainerSummary = Pick<ContainerInfo, "id" | "podSandboxId" | "state">;

/** ContainerFilter narrows listContainers. */
export interface ContainerFilter {
  podSandboxId?: string;
  state?: ContainerState;
  /** Every given label must match. */
  labels?: Labels;
}

/** SandboxFilter narrows listPodSandboxes. */
export interface SandboxFilter {
  state?: SandboxState;
  labels?: Labels;
}

/** RuntimeErrorCode classifies runtime failures the agent reacts to. */
export type RuntimeErrorCode = "NotFound" | "ImageNotPresent" | "CreateFailed" | "StartFailed" | "Unavailable" | "DeadlineExceeded" | "Unknown";

/** RuntimeError is thrown by runtimes; `code` lets the agent pick the kubelet's waiting reason. */
export class RuntimeError extends Error {
  override readonly name = "RuntimeError";
  constructor(
    readonly code: RuntimeErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * Runtime is what the agent needs from a container runtime. Every method rejects with a
 * RuntimeError on failure. Exec probes go through runInContainer (CommandRunner).
 */
export interface Runtime extends CommandRunner {
  /** The runtime's type, used as the container ID scheme ("process", "containerd"). */
  readonly type: string;
  /**
   * mountsUnsupportedReason says why this runtime cannot give containers volume mounts right
   * now, or undefined when it can; the agent then holds such containers back with this reason.
   */
  mountsUnsupportedReason(): Promise<string | undefined>;
  /** version names the runtime and its version. */
  version(): Promise<{ runtimeName: string; runtimeVersion: string }>;

  runPodSandbox(config: PodSandboxConfig): Promise<string>;
  /** stopPodSandbox stops every container of the sandbox at once (no grace) and releases its resources. */
  stopPodSandbox(sandboxId: string): Promise<void>;
  removePodSandbox(sandboxId: string): Promise<void>;
  podSandboxStatus(sandboxId: string): Promise<PodSandboxStatus>;
  listPodSandboxes(filter?: SandboxFilter): Promise<PodSandboxStatus[]>;

  createContainer(sandboxId: string, config: ContainerConfig, sandboxConfig: PodSandboxConfig): Promise<string>;
  startContainer(containerId: string): Promise<void>;
  /** stopContainer sends SIGTERM, waits up to timeoutSeconds, then SIGKILLs; resolves once it has exited. */
  stopContainer(containerId: string, timeoutSeconds: number): Promise<void>;
  removeContainer(containerId: string): Promise<void>;
  containerStatus(containerId: string): Promise<ContainerInfo>;
  listContainers(filter?: ContainerFilter): Promise<ContainerInfo[]>;
  /**
   * relistContainers lists every container's ID, sandbox and state and nothing more: one cheap
   * call for the agent's relist every second (kubelet GenericPLEG relists with ListContainers
   * alone and asks for statuses only of pods that changed).
   */
  relistContainers(): Promise<ContainerSummary[]>;

  /** close releases the runtime's own resources; containers keep running unless the runtime cannot outlive the agent. */
  close(): Promise<void>;
}
