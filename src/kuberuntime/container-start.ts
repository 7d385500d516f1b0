// Starting one container instance (kubelet kuberuntime_container.go startContainer): the image
// (EnsureImageExists), the container's config (generateContainerConfig with the node's run options,
// the termination message file, runAsNonRoot), CreateContainer, StartContainer, then postStart.
// A failure becomes the container's waiting reason and a Failed event, as the reason cache does.
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { DEFAULT_TERMINATION_MESSAGE_PATH } from "../api/defaults.js";
import { containerShouldRestart } from "../api/container-should-restart.js";
import { allContainers } from "../api/pod-rules.js";
import { parseQuantity } from "../api/quantity.js";
import type { Container, Pod } from "../api/types.js";
import type { EventRecorder } from "../prober/event-recorder.js";
import type { ContainerConfig, ContainerInfo, ContainerSecurity, KeyValue, Mount, Runtime } from "../runtime/runtime.js";
import type { Logger } from "../util/logger.js";
import { containerHash } from "./container-hash.js";
import type { ContainerKiller } from "./container-kill.js";
import type { ImageManager } from "./image-manager.js";
import { ANNOTATION_CONTAINER_HASH, ANNOTATION_RESTART_COUNT, LABEL_CONTAINER_NAME } from "./labels.js";
import { POST_START_HOOK_ERROR, POST_START_HOOK_FAILED, runLifecycleHook } from "./lifecycle-hooks.js";
import { restartCountFromLogDir } from "./log-restart-count.js";
import { retrySoon, type PodRecord } from "./pod-record.js";
import type { RuntimeHelper } from "./runtime-helper.js";
import { containerSecurity, imageUserNeeded, verifyRunAsNonRoot } from "./security-context.js";
import {
  ANNOTATION_TERMINATION_MESSAGE_PATH,
  ANNOTATION_TERMINATION_MESSAGE_POLICY,
  terminationMessageHostPath,
} from "./termination-message.js";

/**
 * The longest a postStart hook may run. The kubelet sets no bound (startContainer waits for the
 * hook as long as it takes, and only a pod deletion cancels it); probelet gives up after 30 s and
 * fails the hook, so a hung hook cannot hold its pod's worker, and a deletion, indefinitely.
 */
const POST_START_HOOK_BOUND_MS = 30_000;

/**
 * TERMINATION_MESSAGE_ENV names the host file of the termination message in a process-runtime
 * container's environment: the process runtime cannot bind a file at terminationMessagePath, so
 * the container writes its message to "$PROBELET_TERMINATION_MESSAGE_PATH" instead.
 */
export const TERMINATION_MESSAGE_ENV = "PROBELET_TERMINATION_MESSAGE_PATH";

/** ContainerStarterDeps are what starting a container needs. */
export interface ContainerStarterDeps {
  runtime: Runtime;
  /** EnsureImageExists before each container start; none when the runtime has no images (the process runtime). */
  images?: ImageManager;
  events: EventRecorder;
  logger: Logger;
  helper: RuntimeHelper;
  /** Stops a container whose postStart hook failed. */
  killer: ContainerKiller;
}

/** ContainerStarter creates and starts container instances. */
export class ContainerStarter {
  /**
   * Container creations attempted so far, by any pod's sync. A sync lists its pod's containers
   * again before publishing only when this moved (conservative: another pod's start also counts).
   */
  creations = 0;

  constructor(private readonly d: ContainerStarterDeps) {}

  /** start creates and starts a new instance of the container, then runs postStart (kubelet startContainer). */
  async start(record: PodRecord, spec: Container, previous: ContainerInfo | undefined): Promise<void> {
    const pod = record.pod;
    const target = { pod, containerName: spec.name };
    const image = await this.ensureImage(record, spec);
    if (image === undefined) return;
    const attempt = previous ? previous.attempt + 1 : await this.firstAttempt(record, spec);
    // generateContainerConfig: the node's run options (environment, volume mounts, /etc/hosts) first.
    const options = await this.d.helper.generateRunContainerOptions(record, spec);
    if ("error" in options) return this.configFailed(record, spec, options.error);
    const security = containerSecurity(pod, spec);
    const refused = await this.securityRefused(pod, spec, security);
    if (refused !== undefined) return this.configFailed(record, spec, refused);
    if (this.d.runtime.type === "process" && record.imageNoted !== true) {
      // Where the kubelet records a Normal image event (Pulled) per start: once per pod, as Normal,
      // since every container must name an image and nothing is wrong with that.
      record.imageNoted = true;
      const images = [...new Set(allContainers(pod).map((c) => c.image ?? ""))].join(", ");
      this.d.events.event({ pod }, "Normal", "ImageIgnored", `The process runtime runs this pod's commands on this machine; its images are not used: ${images}`);
    }
    const logPath = `${spec.name}/${attempt}.log`;
    const messageMount = this.terminationMessageMount(record, spec, logPath);
    // kuberuntime makeMounts: the node's mounts, then the termination message file. A process
    // runtime that cannot mount (not root) gives the container TERMINATION_MESSAGE_ENV only.
    const bindMessage = messageMount !== undefined && (await this.d.runtime.mountsUnsupportedReason()) === undefined;
    if (messageMount && !bindMessage) this.warnMessagePathUnbound(record, spec);
    const allMounts = [...options.mounts, ...(messageMount && bindMessage ? [messageMount] : [])];
    const config: ContainerConfig = {
      name: spec.name,
      attempt,
      image: spec.image ?? "",
      ...(image.imageRef !== undefined ? { imageRef: image.imageRef } : {}),
      command: options.command,
      args: options.args,
      ...(spec.workingDir ? { workingDir: spec.workingDir } : {}),
      envs: this.withTerminationMessageEnv(options.envs, messageMount),
      labels: { ...record.sandboxConfig!.labels, [LABEL_CONTAINER_NAME]: spec.name },
      // kubelet labels.go newContainerAnnotations: the termination message path and policy go with the container.
      annotations: {
        [ANNOTATION_CONTAINER_HASH]: containerHash(spec),
        [ANNOTATION_RESTART_COUNT]: String(attempt),
        [ANNOTATION_TERMINATION_MESSAGE_PATH]: spec.terminationMessagePath ?? "",
        [ANNOTATION_TERMINATION_MESSAGE_POLICY]: spec.terminationMessagePolicy ?? "",
      },
      logPath,
      ...(allMounts.length > 0 ? { mounts: allMounts } : {}),
      ...(security ? { security } : {}),
      ...memoryLimit(spec),
    };
    let id: string;
    this.creations++;
    try {
      id = await this.d.runtime.createContainer(record.sandboxId!, config, record.sandboxConfig!);
    } catch (err) {
      return this.startFailed(record, spec, "CreateContainerError", err);
    }
    // kuberuntime_container.go startContainer: the 1.37 texts name no container (the event's
    // involvedObject does).
    this.d.events.event(target, "Normal", "Created", "Container created");
    try {
      await this.d.runtime.startContainer(id);
    } catch (err) {
      return this.startFailed(record, spec, "RunContainerError", err);
    }
    record.startErrors.delete(spec.name);
    this.d.events.event(target, "Normal", "Started", "Container started");
    const postStart = spec.lifecycle?.postStart;
    if (postStart) {
      const failure = await runLifecycleHook(postStart, this.d.killer.hookContext(record, spec, `${this.d.runtime.type}://${id}`, POST_START_HOOK_BOUND_MS));
      if (failure) {
        // kuberuntime_container.go startContainer: a fixed event text; the hook's error becomes the
        // waiting state of a container that will be restarted (reason cache, ShouldContainerBeRestarted).
        this.d.events.event(target, "Warning", "FailedPostStartHook", POST_START_HOOK_FAILED);
        const info = await this.d.runtime.containerStatus(id);
        await this.d.killer.killContainer(record, spec, info, "FailedPostStartHook");
        const killed = await this.d.runtime.containerStatus(id);
        if (containerShouldRestart(spec, record.pod.spec, killed.exitCode)) record.startErrors.set(spec.name, { reason: POST_START_HOOK_ERROR, message: failure });
      }
    }
  }

  /**
   * firstAttempt numbers an instance when the runtime knows no earlier one. kubelet startContainer
   * then goes on from the container's log directory (calcRestartCountByLogDir), so that every
   * instance keeps its own log; the directory is read only when the pod's previous status shows
   * an earlier instance (a fresh container starts at 0 without touching the disk).
   */
  private async firstAttempt(record: PodRecord, spec: Container): Promise<number> {
    const status = this.d.helper.storedStatus(record.pod.metadata.uid ?? "");
    const earlier = [...(status?.initContainerStatuses ?? []), ...(status?.containerStatuses ?? [])].find((c) => c.name === spec.name);
    if (earlier?.containerID === undefined && !earlier?.restartCount) return 0;
    return restartCountFromLogDir(`${record.sandboxConfig!.logDirectory}/${spec.name}`);
  }

  /**
   * ensureImage is startContainer's step 1 (kuberuntime_container.go): EnsureImageExists, and on
   * failure the Failed event "Error: <reason>" with the reason and message as the container's
   * waiting state (reason cache). Every image failure, ImagePullBackOff included, is an error of
   * the sync (kubelet.go SyncPod returns result.Error()), which the pod workers retry after 10 s
   * with jitter (pod_workers.go completeWork; no back-off expiry is attached to an image error).
   * Without an image manager (the process runtime) every image is taken as there, with no
   * imageRef. Returns the image's ref, or undefined when the container cannot start now.
   */
  private async ensureImage(record: PodRecord, spec: Container): Promise<{ imageRef?: string } | undefined> {
    if (!this.d.images) return {};
    const target = { pod: record.pod, containerName: spec.name };
    const result = await this.d.images.ensureImageExists(target, spec.image ?? "", spec.imagePullPolicy, record.sandboxConfig!);
    if (result.ok) return { imageRef: result.imageRef };
    this.d.events.event(target, "Warning", "Failed", `Error: ${result.reason}`);
    record.startErrors.set(spec.name, { reason: result.reason, message: result.message });
    retrySoon(record);
    return undefined;
  }

  /**
   * securityRefused says why the container must not be created for its securityContext: a field
   * the runtime cannot honour (the process runtime without root), or runAsNonRoot against the
   * image's user (kubelet generateContainerConfig: getImageUser, verifyRunAsNonRoot). An image
   * that is not present is left to the create, which reports it.
   */
  private async securityRefused(pod: Pod, spec: Container, security: ContainerSecurity | undefined): Promise<string | undefined> {
    const unsupported = security ? await this.d.runtime.securityUnsupportedReason(security) : undefined;
    if (unsupported !== undefined) return unsupported;
    if (!imageUserNeeded(pod, spec)) return verifyRunAsNonRoot(pod, spec, {});
    const user = await this.d.runtime.imageUser(spec.image ?? "");
    return user ? verifyRunAsNonRoot(pod, spec, user) : undefined;
  }

  /** configFailed is kubelet startContainer's ErrCreateContainerConfig: no container is created. */
  private configFailed(record: PodRecord, spec: Container, message: string): void {
    retrySoon(record);
    this.startFailed(record, spec, "CreateContainerConfigError", new Error(message));
  }

  /**
   * terminationMessageMount creates the empty host file, writable by any user, that is bound at
   * the container's terminationMessagePath (kubelet kuberuntime_container.go makeMounts); as
   * there, a file that cannot be made is logged and the container runs without it. Synchronous,
   * like the kubelet's os.Create within its sync: three small system calls per container start.
   */
  private terminationMessageMount(record: PodRecord, spec: Container, logPath: string): Mount | undefined {
    if (!spec.terminationMessagePath) return undefined;
    const hostPath = terminationMessageHostPath(`${record.sandboxConfig!.logDirectory}/${logPath}`);
    try {
      mkdirSync(dirname(hostPath), { recursive: true, mode: 0o755 });
      writeFileSync(hostPath, "", { mode: 0o666 });
      chmodSync(hostPath, 0o666);
    } catch (err) {
      this.d.logger.warn("Error on creating termination-log file", { path: hostPath, err: err instanceof Error ? err.message : String(err) });
      return undefined;
    }
    return { containerPath: spec.terminationMessagePath, hostPath, readonly: false };
  }

  /**
   * warnMessagePathUnbound says once per container, with a Warning event, that a spec naming its
   * own terminationMessagePath gets the message from TERMINATION_MESSAGE_ENV only: this runtime
   * cannot bind the file there (the default path is left silent: any container may ignore it).
   */
  private warnMessagePathUnbound(record: PodRecord, spec: Container): void {
    const path = spec.terminationMessagePath ?? "";
    const warned = (record.messagePathWarned ??= new Set());
    if (path === DEFAULT_TERMINATION_MESSAGE_PATH || warned.has(spec.name)) return;
    warned.add(spec.name);
    const text = `terminationMessagePath "${path}" cannot be bound into the container on this runtime (it needs root and the supervisor); the container's termination message is read from the file named by $${TERMINATION_MESSAGE_ENV}`;
    this.d.events.event({ pod: record.pod, containerName: spec.name }, "Warning", "TerminationMessagePathUnbound", text);
  }

  /** withTerminationMessageEnv gives a process-runtime container the host path of its termination message file (TERMINATION_MESSAGE_ENV). */
  private withTerminationMessageEnv(envs: KeyValue[], mount: Mount | undefined): KeyValue[] {
    if (!mount || this.d.runtime.type !== "process") return envs;
    return [...envs, { key: TERMINATION_MESSAGE_ENV, value: mount.hostPath }];
  }

  private startFailed(record: PodRecord, spec: Container, reason: string, err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    this.d.events.event({ pod: record.pod, containerName: spec.name }, "Warning", "Failed", `Error: ${message}`);
    record.startErrors.set(spec.name, { reason, message });
    this.d.logger.info("Container start failed", { pod: record.pod.metadata.name, containerName: spec.name, reason, err: message });
  }
}

/** memoryLimit reads resources.limits.memory (validated at admission) as CRI's byte count. */
function memoryLimit(spec: Container): { memoryLimitBytes?: number } {
  const limits = spec.resources?.["limits"] as Record<string, unknown> | undefined;
  const raw = limits?.["memory"];
  const bytes = typeof raw === "number" || typeof raw === "string" ? parseQuantity(String(raw)) : undefined;
  return bytes ? { memoryLimitBytes: bytes } : {};
}
