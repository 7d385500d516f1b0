// The container runtime interface: what the agent asks of a runtime, shaped after the kubelet's
// use of CRI v1 (RuntimeService) but in domain types only. Two implementations: the embedded
// process runtime (src/runtime/process/) and containerd over CRI (src/runtime/cri/).
import type { Readable, Writable } from "node:stream";
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
  /** The pod's host name (GeneratePodHostNameAndDomain); unset: the pod's name. Ignored with hostNetwork. */
  hostname?: string;
  /** securityContext.sysctls (names with dots), set in the sandbox's namespaces (CRI linux.sysctls); the process runtime has none of its own. */
  sysctls?: Record<string, string>;
  /** Some container of the pod is privileged: so is the sandbox (containerd refuses a privileged container in another). */
  privileged?: boolean;
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
  /** The value as text; bytes that are not valid UTF-8 read as U+FFFD here (see valueBase64). */
  value: string;
  /**
   * The value's exact bytes in base64, present only when they are not valid UTF-8 (a Secret's
   * value can be any bytes). The kubelet hands the runtime raw bytes: CRI KeyValue.value is
   * `bytes` since cri-api v0.37 (kubernetes#139168), where a string field carried U+FFFD.
   */
  valueBase64?: string;
}

/** keyValueBytes returns the exact bytes of an environment variable's value. */
export function keyValueBytes(kv: KeyValue): Buffer {
  return kv.valueBase64 === undefined ? Buffer.from(kv.value, "utf8") : Buffer.from(kv.valueBase64, "base64");
}

/** ContainerConfig describes a container to create (CRI ContainerConfig). */
export interface ContainerConfig {
  name: string;
  /** Restart attempt; 0 for the first instance. */
  attempt: number;
  /** The image as the pod's spec names it (CRI user_specified_image). */
  image: string;
  /**
   * The image EnsureImageExists made sure of, as the runtime names it (its ID): the image the CRI
   * runtime creates the container of (kubelet startContainer hands imageRef to
   * generateContainerConfig). None for the process runtime, which has no images.
   */
  imageRef?: string;
  /** Entrypoint and arguments after `$(VAR)` expansion (the agent expands them). */
  command: string[];
  args: string[];
  workingDir?: string;
  envs: KeyValue[];
  labels: Labels;
  annotations: Labels;
  /** Log file path relative to the sandbox's logDirectory (e.g. "app/0.log"). */
  logPath: string;
  /** resources.limits.memory in bytes (CRI memory_limit_in_bytes); the process runtime has no cgroup to apply it to. */
  memoryLimitBytes?: number;
  /**
   * Host files or directories to bind into the container (CRI Mount): the pod's volume mounts,
   * then the termination message file. The process runtime binds them in a private mount
   * namespace per container (supervisor, root only); the agent gives it volume mounts only.
   */
  mounts?: Mount[];
  /** The container's effective security context (CRI LinuxContainerSecurityContext); none: the runtime's defaults. */
  security?: ContainerSecurity;
}

/**
 * ContainerSecurity is what the kubelet hands a runtime of a container's securityContext (kubelet
 * kuberuntime security_context.go determineEffectiveSecurityContext): container fields over the
 * pod's, the pod's supplementalGroups with fsGroup, and no_new_privs from allowPrivilegeEscalation.
 */
export interface ContainerSecurity {
  /** CRI run_as_user. */
  runAsUser?: number;
  /** CRI run_as_group. */
  runAsGroup?: number;
  /** CRI supplemental_groups: the pod's fsGroup, then its supplementalGroups. */
  supplementalGroups?: number[];
  /** CRI capabilities, names as written (with or without "CAP_", "ALL"). */
  capabilities?: { add: string[]; drop: string[] };
  privileged?: boolean;
  /** CRI no_new_privs: allowPrivilegeEscalation is false. */
  noNewPrivs?: boolean;
  /** CRI readonly_rootfs (readOnlyRootFilesystem); the process runtime has no root filesystem of its own. */
  readonlyRootfs?: boolean;
}

/** ImageUser is who an image's processes run as by default (CRI Image uid / username). */
export interface ImageUser {
  uid?: number;
  /** A user name the runtime did not turn into a uid. */
  username?: string;
}

/** ImageSpec names an image for the runtime's image service (CRI ImageSpec). */
export interface ImageSpec {
  /** The image as the kubelet hands it on: the requested name, ":latest" added when it has no tag or digest. */
  image: string;
  /** The pod's annotations (kubelet EnsureImageExists passes them with every image call). */
  annotations: Labels;
}

/** ImageStatus is an image the runtime holds (CRI Image). */
export interface ImageStatus {
  /** The image's ID (CRI Image.id): the imageRef the kubelet goes on with. */
  id: string;
  /** Bytes on disk (CRI Image.size). */
  size: number;
}

/**
 * ImageService is a runtime's image calls (CRI ImageService, as kuberuntime_image.go uses them:
 * GetImageRef and GetImageSize read ImageStatus, PullImage pulls). Every method rejects with a
 * RuntimeError on failure.
 */
export interface ImageService {
  /** imageStatus is the image when the runtime holds it, undefined when it does not. */
  imageStatus(image: ImageSpec): Promise<ImageStatus | undefined>;
  /** pullImage pulls the image in the pod's sandbox context (CRI PullImage with sandbox_config, no auth) and resolves with its imageRef. */
  pullImage(image: ImageSpec, sandbox: PodSandboxConfig): Promise<string>;
}

/** Mount binds a host path into a container (CRI Mount). */
export interface Mount {
  /** Where the container sees it; absolute. */
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
  /**
   * The image the runtime ran, by digest (CRI ContainerStatus.image_ref, e.g.
   * "docker.io/library/busybox@sha256:…"); the pod status's imageID. Absent where the runtime runs
   * no image (the process runtime).
   */
  imageRef?: string;
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
export type RuntimeErrorCode = "NotFound" | "NetworkNotReady" | "CreateFailed" | "StartFailed" | "Unavailable" | "DeadlineExceeded" | "Unknown";

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

/** TerminalSize is a terminal's size in character cells (remotecommand TerminalSize). */
export interface TerminalSize {
  width: number;
  height: number;
}

/**
 * StreamingRequest asks the runtime's streaming server for a single-use URL (CRI Exec, Attach,
 * PortForward), which the kubelet's daemon endpoint proxies the API server's upgraded connection to.
 */
export type StreamingRequest =
  | { kind: "exec"; containerId: string; cmd: readonly string[]; stdin: boolean; stdout: boolean; stderr: boolean; tty: boolean }
  | { kind: "attach"; containerId: string; stdin: boolean; stdout: boolean; stderr: boolean; tty: boolean }
  | { kind: "portforward"; sandboxId: string; ports: readonly number[] };

/** ExecStreamOptions say which streams an interactive exec gets (CRI ExecRequest). */
export interface ExecStreamOptions {
  /** Whether the command reads a stdin stream; without it its stdin is empty. */
  stdin: boolean;
  /** Whether the command runs on a terminal; stderr is then merged into stdout, as on a terminal. */
  tty: boolean;
  /** The terminal's first size, when the client knows it already. */
  initialSize?: TerminalSize;
}

/**
 * ExecSession is one running interactive exec. `exit` resolves with the command's exit code
 * once it has exited and stdout and stderr have ended; it rejects with a RuntimeError when the
 * command could not be started or the runtime lost it.
 */
export interface ExecSession {
  /** The command's stdin; end() closes it (the command sees end of file where the runtime can tell it). */
  stdin: Writable;
  stdout: Readable;
  /** With a tty the command's stderr goes to the terminal, hence to stdout. */
  stderr: Readable;
  exit: Promise<number>;
  /** resize sets the terminal's size (tty only; ignored otherwise). */
  resize(size: TerminalSize): void;
  /**
   * kill ends the session (the client went away). Idempotent. The process runtime kills the
   * command's process group; containerd closes the streams but leaves a command without a tty
   * running, as it does for kubectl against a cluster.
   */
  kill(): void;
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
  /**
   * securityUnsupportedReason says why this runtime cannot run a container with this security
   * context (a field it could not honour), or undefined when it can; the agent then holds the
   * container back with this reason instead of running it without.
   */
  securityUnsupportedReason(security: ContainerSecurity): Promise<string | undefined>;
  /**
   * images is the runtime's image service; the agent makes sure a container's image is there
   * before creating it (kubelet images.EnsureImageExists). A runtime that runs no images (the
   * process runtime) has none, and its containers start whatever image they name.
   */
  readonly images?: ImageService;
  /**
   * imageUser is who the image runs as when the pod sets no runAsUser (kubelet getImageUser, for
   * the runAsNonRoot check); undefined when the image is not present (the create then fails).
   */
  imageUser(image: string): Promise<ImageUser | undefined>;
  /**
   * podsShareHostNetwork tells whether pods that are not hostNetwork still run in the host's
   * network namespace (the process runtime without pod networks), so that their container ports
   * are host ports. A runtime without it gives every such pod a network namespace of its own (CRI).
   */
  podsShareHostNetwork?(): Promise<boolean>;
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
  /**
   * reopenContainerLog makes a running container write to a new file at its log path (CRI
   * ReopenContainerLog: the kubelet renamed the old one to rotate it). Rejects when the
   * container is not running; then no new log file is created.
   */
  reopenContainerLog(containerId: string): Promise<void>;
  containerStatus(containerId: string): Promise<ContainerInfo>;
  listContainers(filter?: ContainerFilter): Promise<ContainerInfo[]>;
  /**
   * relistContainers lists every container's ID, sandbox and state and nothing more: one cheap
   * call for the agent's relist every second (kubelet GenericPLEG relists with ListContainers
   * alone and asks for statuses only of pods that changed).
   */
  relistContainers(): Promise<ContainerSummary[]>;

  /**
   * execStream starts argv in a running container with streams attached (CRI Exec, for
   * `kubectl exec`). It rejects with a RuntimeError NotFound when the container is unknown or
   * not running.
   */
  execStream(containerId: string, argv: readonly string[], options: ExecStreamOptions): Promise<ExecSession>;
  /**
   * streamingUrl returns the URL of the runtime's own streaming server for an exec, attach or
   * port-forward (CRI); a runtime without one (the process runtime) leaves it undefined.
   */
  streamingUrl?(request: StreamingRequest): Promise<string>;

  /** close releases the runtime's own resources; containers keep running unless the runtime cannot outlive the agent. */
  close(): Promise<void>;
}
