// CriRuntime: the Runtime over containerd's CRI v1 API, used the way the kubelet's
// kuberuntime manager uses it (pkg/kubelet/kuberuntime): explicit namespace options, one
// cgroup per pod, images pulled through the ImageService (the agent's image manager decides
// when), exec probes through ExecSync. Containers outlive the agent: close() only closes the channel.
import { mkdir } from "node:fs/promises";
import { status as grpcStatus, type ServiceError } from "@grpc/grpc-js";
import { CommandTimeoutError, type CommandResult, type CommandRunOptions } from "../../probe/command-runner.js";
import { execTimeoutMessage } from "../../probe/exec.js";
import { goStatusErrorText } from "../../probe/grpc-status-text.js";
import { MAX_OUTPUT_BYTES } from "../../probe/probe-result.js";
import { systemClock, type Clock } from "../../util/clock.js";
import { silentLogger, type Logger } from "../../util/logger.js";
import {
  RuntimeError,
  type ContainerConfig,
  type ContainerFilter,
  type ContainerInfo,
  type ContainerSummary,
  type ExecSession,
  type ExecStreamOptions,
  type ImageService,
  type ImageSpec,
  type ImageUser,
  type PodSandboxConfig,
  type PodSandboxStatus,
  type Runtime,
  type RuntimeErrorCode,
  type SandboxFilter,
  type StreamingRequest,
} from "../runtime.js";
import { CriClient, DEFAULT_CALL_TIMEOUT_MS } from "./client.js";
import {
  containerConfig,
  containerFilter,
  containerInfo,
  containerState,
  DEFAULT_CGROUP_PREFIX,
  podCgroupParent,
  sandboxConfig,
  sandboxFilter,
  sandboxStatus,
} from "./convert.js";
import { removePodCgroup } from "./pod-cgroups.js";
import { startCriExec } from "./cri-exec-stream.js";

/** KUBE_RUNTIME_API_VERSION is the version the kubelet sends in VersionRequest. */
export const KUBE_RUNTIME_API_VERSION = "0.1.0";

/** RUNTIME_REQUEST_TIMEOUT_MS is the kubelet's runtimeRequestTimeout default (2 min). */
export const RUNTIME_REQUEST_TIMEOUT_MS = 120_000;

/**
 * RUN_POD_SANDBOX_TIMEOUT_MS is the deadline of RunPodSandbox: twice runtimeRequestTimeout, as
 * the kubelet's CRI client gives it (cri-client remote_runtime.go RunPodSandbox). A busy machine
 * can take longer than the default 10 s of the other calls, and a RunPodSandbox given up halfway
 * can leave containerd holding the sandbox name ("is reserved for …"), so the pod never gets one.
 */
export const RUN_POD_SANDBOX_TIMEOUT_MS = 2 * RUNTIME_REQUEST_TIMEOUT_MS;

/**
 * CONTAINER_CHANGE_TIMEOUT_MS is the deadline of CreateContainer and StartContainer: the
 * kubelet's runtimeRequestTimeout, for the same reason (a create given up halfway keeps its
 * container name reserved).
 */
export const CONTAINER_CHANGE_TIMEOUT_MS = RUNTIME_REQUEST_TIMEOUT_MS;

/**
 * PULL_IMAGE_TIMEOUT_MS bounds one PullImage call. The kubelet sets none (remote_image.go
 * PullImage only cancels); probelet gives up after the kubelet's runtimeRequestTimeout default,
 * 2 min, so a stuck pull cannot hold a pod's worker indefinitely. A pull given up this way fails
 * as any other does (ErrImagePull, back-off).
 */
export const PULL_IMAGE_TIMEOUT_MS = RUNTIME_REQUEST_TIMEOUT_MS;

/** EXEC_DEADLINE_SLACK_MS is how much longer than the exec timeout the client waits for ExecSync. */
export const EXEC_DEADLINE_SLACK_MS = 2_000;

/** CriRuntimeOptions configure a CriRuntime. */
export interface CriRuntimeOptions {
  /** The CRI runtime's unix socket, e.g. /run/containerd/containerd.sock. */
  socket: string;
  clock?: Clock;
  logger?: Logger;
  /** Deadline of each CRI call in ms (default 10 s; the kubelet's 2 min is too long for a local tool). */
  callTimeoutMs?: number;
  /**
   * Parent of the pod cgroups (<prefix>/pod<uid>, default "/probelet"). Give each agent or
   * test run its own so leftovers can be found and removed.
   */
  cgroupPrefix?: string;
}

/** CriRuntime implements Runtime with a CRI v1 runtime (containerd). Container IDs read "containerd://<id>". */
export class CriRuntime implements Runtime {
  readonly type = "containerd";
  private readonly client: CriClient;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly callTimeoutMs: number;
  private readonly cgroupPrefix: string;
  /** The CRI ImageService: ImageStatus and PullImage with the pod's annotations (kuberuntime_image.go). */
  readonly images: ImageService = {
    imageStatus: async (image) => {
      const { image: found } = await this.client.call("ImageStatus", { image: criImageSpec(image) });
      return found ? { id: found.id, size: Number(found.size) } : undefined;
    },
    pullImage: async (image, sandbox) => {
      const request = { image: criImageSpec(image), sandbox_config: sandboxConfig(sandbox, this.cgroupPrefix) };
      const { image_ref: ref } = await this.client.call("PullImage", request, { timeoutMs: PULL_IMAGE_TIMEOUT_MS }).catch(goPullError);
      // remote_image.go pullImageV1: an empty imageRef is an error.
      if (ref === "") throw new RuntimeError("Unknown", `imageRef of image "${image.image}" is not set`);
      return ref;
    },
  };

  constructor(options: CriRuntimeOptions) {
    this.clock = options.clock ?? systemClock;
    this.logger = (options.logger ?? silentLogger).child("runtime.cri");
    this.callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.cgroupPrefix = options.cgroupPrefix ?? DEFAULT_CGROUP_PREFIX;
    this.client = new CriClient({ socket: options.socket, callTimeoutMs: this.callTimeoutMs, clock: this.clock, logger: this.logger });
  }

  /** version asks the runtime its name and version; any failure means it is not reachable as CRI. */
  /** mountsUnsupportedReason: containerd bind-mounts every host path it is given. */
  async mountsUnsupportedReason(): Promise<string | undefined> {
    return undefined;
  }

  async version(): Promise<{ runtimeName: string; runtimeVersion: string }> {
    try {
      const v = await this.client.call("Version", { version: KUBE_RUNTIME_API_VERSION });
      return { runtimeName: v.runtime_name, runtimeVersion: v.runtime_version };
    } catch (err) {
      if (err instanceof RuntimeError && err.code === "Unavailable") throw err;
      const message = err instanceof Error ? err.message : String(err);
      throw new RuntimeError("Unavailable", `cannot reach the CRI runtime at ${this.client.socket}: ${message}`, { cause: err });
    }
  }

  // ---- sandboxes -------------------------------------------------------------------------

  /**
   * runPodSandbox creates the log directory first (kubelet createPodSandbox does), then the
   * sandbox. A pod-network pod is refused while the runtime reports NetworkReady=false, as the
   * kubelet refuses to sync it ("network is not ready"): containerd 1.6 would leave such a
   * sandbox behind, unable to stop it until a CNI config appears.
   */
  async runPodSandbox(config: PodSandboxConfig): Promise<string> {
    if (!config.hostNetwork) await this.assertNetworkReady();
    if (config.logDirectory !== "") {
      await mkdir(config.logDirectory, { recursive: true, mode: 0o755 }).catch((err: unknown) => {
        throw new RuntimeError("CreateFailed", `failed to create log directory "${config.logDirectory}": ${(err as Error).message}`, { cause: err });
      });
    }
    const res = await this.client.call("RunPodSandbox", { config: sandboxConfig(config, this.cgroupPrefix) }, { timeoutMs: Math.max(RUN_POD_SANDBOX_TIMEOUT_MS, this.callTimeoutMs) }).catch(async (err: unknown) => {
      // containerd removes a sandbox that failed to start, but not the cgroup parent runc made for it.
      await this.removePodCgroupUnlessUsed(config.podUid).catch(() => undefined);
      return recode("CreateFailed")(err);
    });
    this.logger.debug("sandbox created", { sandboxId: res.pod_sandbox_id, pod: config.name, podUID: config.podUid });
    return res.pod_sandbox_id;
  }

  /** stopPodSandbox kills every container of the sandbox at once (containerd stops them with timeout 0). */
  async stopPodSandbox(sandboxId: string): Promise<void> {
    await this.client.call("StopPodSandbox", { pod_sandbox_id: sandboxId });
  }

  /**
   * removePodSandbox stops and removes the sandbox and its containers, then removes the pod's
   * cgroup unless another sandbox of the same pod remains. Unknown IDs are ignored.
   */
  async removePodSandbox(sandboxId: string): Promise<void> {
    let podUid: string | undefined;
    try {
      podUid = (await this.podSandboxStatus(sandboxId)).podUid;
      await this.stopPodSandbox(sandboxId);
    } catch (err) {
      if (!(err instanceof RuntimeError && err.code === "NotFound")) throw err;
    }
    await this.client.call("RemovePodSandbox", { pod_sandbox_id: sandboxId });
    if (podUid) await this.removePodCgroupUnlessUsed(podUid);
  }

  async podSandboxStatus(sandboxId: string): Promise<PodSandboxStatus> {
    const res = await this.client.call("PodSandboxStatus", { pod_sandbox_id: sandboxId });
    if (!res.status) throw new RuntimeError("NotFound", `an error occurred when try to find sandbox "${sandboxId}": not found`);
    return sandboxStatus(res.status);
  }

  /** listPodSandboxes lists matching sandboxes with their full status (for the pod IP). */
  async listPodSandboxes(filter?: SandboxFilter): Promise<PodSandboxStatus[]> {
    const criFilter = sandboxFilter(filter);
    const { items } = await this.client.call("ListPodSandbox", criFilter ? { filter: criFilter } : {});
    const statuses = await Promise.all(items.map((s) => this.podSandboxStatus(s.id).catch(ignoreNotFound)));
    return statuses.filter((s): s is PodSandboxStatus => s !== undefined);
  }

  // ---- containers ------------------------------------------------------------------------

  /** createContainer creates the container; the agent made sure of its image before (images.EnsureImageExists). */
  async createContainer(sandboxId: string, config: ContainerConfig, sandbox: PodSandboxConfig): Promise<string> {
    const res = await this.client
      .call("CreateContainer", {
        pod_sandbox_id: sandboxId,
        config: containerConfig(config, sandbox),
        sandbox_config: sandboxConfig(sandbox, this.cgroupPrefix),
      }, { timeoutMs: Math.max(CONTAINER_CHANGE_TIMEOUT_MS, this.callTimeoutMs) })
      .catch(recode("CreateFailed"));
    return res.container_id;
  }

  /** securityUnsupportedReason: containerd and runc apply every field the agent passes. */
  async securityUnsupportedReason(): Promise<string | undefined> {
    return undefined;
  }

  /** imageUser reads the image's user from its config (CRI ImageStatus uid / username, kubelet getImageUser). */
  async imageUser(image: string): Promise<ImageUser | undefined> {
    const { image: found } = await this.client.call("ImageStatus", { image: { image } });
    if (!found) return undefined;
    if (found.uid) return { uid: Number(found.uid.value) };
    if (found.username) return { username: found.username };
    return { uid: 0 };
  }

  /** reopenContainerLog asks containerd to write to a new file at the container's log path (CRI ReopenContainerLog). */
  async reopenContainerLog(containerId: string): Promise<void> {
    await this.client.call("ReopenContainerLog", { container_id: containerId });
  }

  async startContainer(containerId: string): Promise<void> {
    await this.client.call("StartContainer", { container_id: containerId }, { timeoutMs: Math.max(CONTAINER_CHANGE_TIMEOUT_MS, this.callTimeoutMs) }).catch(recode("StartFailed"));
  }

  /** stopContainer: SIGTERM, SIGKILL after timeoutSeconds; resolves once exited. The deadline adds the grace period. */
  async stopContainer(containerId: string, timeoutSeconds: number): Promise<void> {
    const seconds = Math.max(0, Math.ceil(timeoutSeconds));
    await this.client.call("StopContainer", { container_id: containerId, timeout: String(seconds) }, { timeoutMs: seconds * 1000 + this.callTimeoutMs });
  }

  /** removeContainer force-removes the container (containerd kills a running one); unknown IDs are ignored. */
  async removeContainer(containerId: string): Promise<void> {
    await this.client.call("RemoveContainer", { container_id: containerId }).catch(ignoreNotFound);
  }

  async containerStatus(containerId: string): Promise<ContainerInfo> {
    const { status } = await this.client.call("ContainerStatus", { container_id: containerId });
    if (!status) throw new RuntimeError("NotFound", `an error occurred when try to find container "${containerId}": not found`);
    return containerInfo(status, await this.sandboxOf(containerId));
  }

  /** listContainers lists matching containers with their full status (exit code, times, reason). */
  async listContainers(filter?: ContainerFilter): Promise<ContainerInfo[]> {
    const criFilter = containerFilter(filter);
    const { containers } = await this.client.call("ListContainers", criFilter ? { filter: criFilter } : {});
    const infos = await Promise.all(
      containers.map(async (c) => {
        const res = await this.client.call("ContainerStatus", { container_id: c.id }).catch(ignoreNotFound);
        return res?.status ? containerInfo(res.status, c.pod_sandbox_id) : undefined;
      }),
    );
    return infos.filter((i): i is ContainerInfo => i !== undefined);
  }

  /** relistContainers is one ListContainers call; it asks for no ContainerStatus. */
  async relistContainers(): Promise<ContainerSummary[]> {
    const { containers } = await this.client.call("ListContainers", {});
    return containers.map((c) => ({ id: c.id, podSandboxId: c.pod_sandbox_id, state: containerState(c.state) }));
  }

  /**
   * runInContainer runs argv through ExecSync. CRI timeouts are whole seconds, so the timeout is
   * rounded up; the call's own deadline is EXEC_DEADLINE_SLACK_MS longer, since containerd
   * waits for the exec's output pipes to close (a probe's orphaned children can hold them).
   * Either deadline ends in CommandTimeoutError with the kubelet's text (remote_runtime.go).
   */
  async runInContainer(containerId: string, argv: readonly string[], options: CommandRunOptions): Promise<CommandResult> {
    const seconds = options.timeoutMs > 0 ? Math.ceil(options.timeoutMs / 1000) : 0;
    const deadlineMs = seconds > 0 ? seconds * 1000 + EXEC_DEADLINE_SLACK_MS : this.callTimeoutMs;
    try {
      const res = await this.client.call(
        "ExecSync",
        { container_id: containerId, cmd: [...argv], timeout: String(seconds) },
        options.signal ? { timeoutMs: deadlineMs, signal: options.signal } : { timeoutMs: deadlineMs },
      );
      return { stdout: cap(res.stdout), stderr: cap(res.stderr), exitCode: res.exit_code };
    } catch (err) {
      if (err instanceof RuntimeError && err.code === "DeadlineExceeded") {
        throw new CommandTimeoutError(argv, options.timeoutMs, execTimeoutMessage(argv, options.timeoutMs));
      }
      throw err;
    }
  }

  /** execStream is CRI Exec: streams through containerd's streaming server (see cri-exec-stream.ts for what v4 cannot do). */
  async execStream(containerId: string, argv: readonly string[], options: ExecStreamOptions): Promise<ExecSession> {
    return startCriExec(this.client, containerId, argv, options);
  }

  /** streamingUrl is CRI Exec, Attach or PortForward: containerd's single-use streaming URL (kubelet GetExec, GetAttach, GetPortForward). */
  async streamingUrl(request: StreamingRequest): Promise<string> {
    switch (request.kind) {
      case "exec":
        return (await this.client.call("Exec", { container_id: request.containerId, cmd: [...request.cmd], tty: request.tty, stdin: request.stdin, stdout: request.stdout, stderr: request.stderr })).url;
      case "attach":
        return (await this.client.call("Attach", { container_id: request.containerId, tty: request.tty, stdin: request.stdin, stdout: request.stdout, stderr: request.stderr })).url;
      case "portforward":
        return (await this.client.call("PortForward", { pod_sandbox_id: request.sandboxId, port: [...request.ports] })).url;
    }
  }

  /** close closes the gRPC channel only; containers and sandboxes keep running. */
  async close(): Promise<void> {
    this.client.close();
  }

  /** assertNetworkReady throws the kubelet's "network is not ready" error when NetworkReady is false. */
  private async assertNetworkReady(): Promise<void> {
    const { status } = await this.client.call("Status", {});
    const network = status?.conditions.find((c) => c.type === "NetworkReady");
    if (network && !network.status) {
      throw new RuntimeError(
        "NetworkNotReady",
        `network is not ready: container runtime network not ready: NetworkReady=false reason:${network.reason} message:${network.message}`,
      );
    }
  }

  /** removePodCgroupUnlessUsed removes the pod's cgroup when no sandbox of that pod remains. */
  private async removePodCgroupUnlessUsed(podUid: string): Promise<void> {
    const { items } = await this.client.call("ListPodSandbox", {});
    if (items.some((s) => s.metadata?.uid === podUid)) return;
    await removePodCgroup(podCgroupParent(this.cgroupPrefix, podUid), { clock: this.clock, logger: this.logger });
  }

  /** sandboxOf finds a container's sandbox ID (ContainerStatus does not carry it; ListContainers does). */
  private async sandboxOf(containerId: string): Promise<string> {
    const { containers } = await this.client.call("ListContainers", { filter: { id: containerId } });
    return containers[0]?.pod_sandbox_id ?? "";
  }
}

function cap(bytes: Uint8Array): Buffer {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes);
  return buf.length > MAX_OUTPUT_BYTES ? buf.subarray(0, MAX_OUTPUT_BYTES) : buf;
}

/** recode turns a RuntimeError "Unknown" into `code` (what the agent reacts to for that step). */
function recode(code: RuntimeErrorCode): (err: unknown) => never {
  return (err) => {
    if (err instanceof RuntimeError && err.code === "Unknown") throw new RuntimeError(code, err.message, { cause: err.cause });
    throw err;
  };
}

/** criImageSpec is CRI's ImageSpec of an image (kuberuntime convert.go ToRuntimeAPIImageSpec). */
function criImageSpec(image: ImageSpec): { image: string; annotations: Record<string, string> } {
  return { image: image.image, annotations: image.annotations };
}

/**
 * goPullError words a failed PullImage as the kubelet's CRI client does (remote_image.go
 * pullImageV1): an UNKNOWN status is its message alone, any other code grpc-go's
 * "rpc error: code = … desc = …"; the kubelet shows it in its Failed event and waiting message.
 * Our own deadline reads as a Go context's would.
 */
function goPullError(err: unknown): never {
  const cause = err instanceof RuntimeError ? err.cause : undefined;
  if (!isServiceError(cause) || cause.code === grpcStatus.UNKNOWN) throw err;
  const own = cause.code === grpcStatus.DEADLINE_EXCEEDED && (cause.details || "").startsWith("Deadline exceeded after");
  const text = goStatusErrorText(cause.code, own ? "context deadline exceeded" : cause.details || cause.message);
  throw new RuntimeError((err as RuntimeError).code, text, { cause });
}

function isServiceError(value: unknown): value is ServiceError {
  return value instanceof Error && typeof (value as Partial<ServiceError>).code === "number";
}

function ignoreNotFound(err: unknown): undefined {
  if (err instanceof RuntimeError && err.code === "NotFound") return undefined;
  throw err;
}
