// The embedded "process" runtime: every container is a local process group, every pod sandbox
// a record. It reports what containerd's CRI plugin reports for the same events (states,
// reasons, exit codes, log format, error texts), so the agent treats both runtimes alike.
import { randomBytes } from "node:crypto";
import { mkdir, readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import type { CommandResult, CommandRunOptions } from "../../probe/command-runner.js";
import { HostCommandRunner } from "../../probe/host-runner.js";
import { systemClock, type Clock } from "../../util/clock.js";
import { silentLogger, type Logger } from "../../util/logger.js";
import {
  RuntimeError,
  type ContainerConfig,
  type ContainerFilter,
  type ContainerInfo,
  type ContainerSummary,
  type PodSandboxConfig,
  type PodSandboxStatus,
  type Runtime,
  type SandboxFilter,
} from "../runtime.js";
import { containerArgv, containerCwd, containerEnv, LaunchError, prepareLaunch } from "./container-launch.js";
import { ContainerProcess } from "./container-process.js";
import { CriLogWriter } from "./cri-log-writer.js";
import { copySandboxConfig, labelsMatch, ProcessSandbox } from "./sandbox.js";
import { validateContainerConfig } from "./validate-config.js";
import { GroupRecords } from "./group-records.js";

/** PROCESS_RUNTIME_NAME is what version() reports as runtimeName. */
export const PROCESS_RUNTIME_NAME = "probelet-process";

/** ProcessRuntimeOptions configure a ProcessRuntime; every field is optional. */
export interface ProcessRuntimeOptions {
  /** Timestamps, grace periods and log drain bounds (default: the system clock). */
  clock?: Clock;
  logger?: Logger;
  /** Runs exec commands; when given, the caller owns it (close() leaves it open). */
  runner?: HostCommandRunner;
  /**
   * The agent's state directory: container process groups are recorded there so that the next
   * agent can reap groups a killed agent left behind (reapOrphans).
   */
  stateDir?: string;
}

const CRI_STATE: Record<ContainerInfo["state"], string> = {
  created: "CONTAINER_CREATED",
  running: "CONTAINER_RUNNING",
  exited: "CONTAINER_EXITED",
  unknown: "CONTAINER_UNKNOWN",
};

/**
 * ProcessRuntime implements Runtime with local processes. Sandboxes share the host network
 * (pod IP 127.0.0.1, see sandbox.ts); containers run with exactly their configured env, their
 * working dir and their own process group, and their output is written in the CRI log format.
 *
 * Trade-off: the runtime reads every container's stdout and stderr through pipes, so the
 * containers cannot outlive the agent (a container whose log pipe closes would die on SIGPIPE
 * or lose its output). close() therefore kills every container; a restarted agent starts from
 * an empty runtime instead of adopting the previous containers as containerd would.
 */
export class ProcessRuntime implements Runtime {
  readonly type = "process";
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly runner: HostCommandRunner;
  private readonly ownsRunner: boolean;
  private readonly sandboxes = new Map<string, ProcessSandbox>();
  private readonly containers = new Map<string, ContainerProcess>();
  /** Reserved container names (name_pod_namespace_uid_attempt) → container ID, as containerd keeps. */
  private readonly names = new Map<string, string>();
  /** Starts in flight, so close() and removeContainer() can wait for them. */
  private readonly starting = new Map<string, Promise<void>>();
  private closing: Promise<void> | undefined;
  private readonly groups: GroupRecords | undefined;

  constructor(options: ProcessRuntimeOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.logger = (options.logger ?? silentLogger).child("runtime.process");
    this.ownsRunner = options.runner === undefined;
    this.runner =
      options.runner ??
      new HostCommandRunner({ resolveContext: (id) => this.runningContainer(id).execContext, clock: this.clock, logger: this.logger });
    this.groups = options.stateDir === undefined ? undefined : new GroupRecords(options.stateDir, this.logger);
  }

  /**
   * reapOrphans kills the container process groups that a previous agent with the same state
   * directory left running when it was killed (they cannot be adopted: their log pipes are gone).
   */
  async reapOrphans(): Promise<number> {
    return (await this.groups?.reapOrphans()) ?? 0;
  }

  async version(): Promise<{ runtimeName: string; runtimeVersion: string }> {
    return { runtimeName: PROCESS_RUNTIME_NAME, runtimeVersion: await packageVersion() };
  }

  // ---- sandboxes -------------------------------------------------------------------------

  async runPodSandbox(config: PodSandboxConfig): Promise<string> {
    this.assertOpen();
    const sandbox = new ProcessSandbox(newId(), copySandboxConfig(config), this.clock.now());
    this.sandboxes.set(sandbox.id, sandbox);
    this.logger.debug("sandbox created", { sandboxId: sandbox.id, pod: config.name, podUID: config.podUid });
    return sandbox.id;
  }

  /** stopPodSandbox SIGKILLs every container group of the sandbox at once and waits for them. */
  async stopPodSandbox(sandboxId: string): Promise<void> {
    const sandbox = this.sandbox(sandboxId);
    sandbox.stopping ??= (async () => {
      await Promise.all(this.containersOf(sandboxId).map((c) => this.forceStop(c)));
      sandbox.markNotReady();
    })();
    await sandbox.stopping;
  }

  /** removePodSandbox stops the sandbox, then removes it and its containers. Unknown IDs are ignored (CRI: idempotent). */
  async removePodSandbox(sandboxId: string): Promise<void> {
    if (!this.sandboxes.has(sandboxId)) return;
    await this.stopPodSandbox(sandboxId);
    await Promise.all(this.containersOf(sandboxId).map((c) => this.removeContainer(c.id)));
    this.sandboxes.delete(sandboxId);
  }

  async podSandboxStatus(sandboxId: string): Promise<PodSandboxStatus> {
    return this.sandbox(sandboxId).status();
  }

  async listPodSandboxes(filter?: SandboxFilter): Promise<PodSandboxStatus[]> {
    return [...this.sandboxes.values()].filter((s) => s.matches(filter)).map((s) => s.status());
  }

  // ---- containers ------------------------------------------------------------------------

  async createContainer(sandboxId: string, config: ContainerConfig, sandboxConfig: PodSandboxConfig): Promise<string> {
    this.assertOpen();
    if (!this.sandboxes.has(sandboxId)) throw notFound(`failed to find sandbox id "${sandboxId}": not found`);
    const id = newId();
    const problem = validateContainerConfig(config);
    if (problem) throw new RuntimeError("CreateFailed", `failed to generate container "${id}" spec: ${problem}`);
    const name = [config.name, sandboxConfig.name, sandboxConfig.namespace, sandboxConfig.podUid, config.attempt].join("_");
    const holder = this.names.get(name);
    if (holder !== undefined) {
      throw new RuntimeError("CreateFailed", `failed to reserve container name "${name}": name "${name}" is reserved for "${holder}"`);
    }
    const logPath = config.logPath === "" ? "" : resolve(sandboxConfig.logDirectory, config.logPath);
    if (logPath !== "") {
      await mkdir(dirname(logPath), { recursive: true }).catch((err: unknown) => {
        throw new RuntimeError("CreateFailed", `failed to create log directory for container "${id}": ${(err as Error).message}`, { cause: err });
      });
    }
    const copy = copyContainerConfig(config);
    const execContext = { env: containerEnv(copy, sandboxConfig), cwd: containerCwd(copy) };
    const container = new ContainerProcess(id, sandboxId, copy, logPath, execContext, this.clock.now(), this.clock, this.logger);
    this.containers.set(id, container);
    this.names.set(name, id);
    return id;
  }

  async startContainer(containerId: string): Promise<void> {
    this.assertOpen();
    const container = this.container(containerId);
    if (!container.transition(["created"], "starting")) {
      const state = container.state === "created" ? "starting" : CRI_STATE[container.state];
      throw new RuntimeError("Unknown", `failed to set starting state for container "${containerId}": container is in ${state} state`);
    }
    const started = this.launch(container);
    this.starting.set(containerId, started.catch(() => undefined));
    try {
      await started;
    } finally {
      this.starting.delete(containerId);
    }
  }

  /** stopContainer: SIGTERM the group, SIGKILL after timeoutSeconds; resolves once reaped. */
  async stopContainer(containerId: string, timeoutSeconds: number): Promise<void> {
    const container = this.container(containerId);
    await this.starting.get(containerId);
    await container.stop(Math.max(0, timeoutSeconds) * 1000);
  }

  /** removeContainer stops a running container without grace, then forgets it; the log file stays. */
  async removeContainer(containerId: string): Promise<void> {
    const container = this.containers.get(containerId);
    if (!container) return; // CRI: removing a removed container is not an error.
    await this.forceStop(container);
    if (this.containers.get(containerId) !== container) return;
    this.containers.delete(containerId);
    for (const [name, holder] of this.names) if (holder === containerId) this.names.delete(name);
  }

  async containerStatus(containerId: string): Promise<ContainerInfo> {
    return this.container(containerId).info();
  }

  async listContainers(filter?: ContainerFilter): Promise<ContainerInfo[]> {
    return [...this.containers.values()]
      .filter((c) => filter?.podSandboxId === undefined || c.sandboxId === filter.podSandboxId)
      .filter((c) => filter?.state === undefined || c.state === filter.state)
      .filter((c) => labelsMatch(c.config.labels, filter?.labels))
      .map((c) => c.info());
  }

  async relistContainers(): Promise<ContainerSummary[]> {
    return [...this.containers.entries()].map(([id, c]) => ({ id, podSandboxId: c.sandboxId, state: c.state }));
  }

  /** runInContainer runs argv on the host with the container's env and working dir (CRI ExecSync). */
  async runInContainer(containerId: string, argv: readonly string[], options: CommandRunOptions): Promise<CommandResult> {
    const { env, cwd } = this.runningContainer(containerId).execContext;
    return this.runner.run(argv, { env, cwd, timeoutMs: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) });
  }

  /** close kills every container group, reaps them, closes their logs and the owned runner. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.all(this.starting.values());
      await Promise.all([...this.containers.values()].map((c) => this.forceStop(c)));
      if (this.ownsRunner) await this.runner.close();
    })();
    return this.closing;
  }

  /** @internal For tests. pidOf returns the PID of a container's group leader, once spawned. */
  pidOf(containerId: string): number | undefined {
    return this.containers.get(containerId)?.pid;
  }

  // ---- internals -------------------------------------------------------------------------

  /** launch starts a container that is "starting"; any failure leaves it exited with StartError. */
  private async launch(container: ContainerProcess): Promise<void> {
    const sandbox = this.sandboxes.get(container.sandboxId);
    const { config, execContext } = container;
    try {
      if (!sandbox?.ready) throw new LaunchError(`sandbox container "${container.sandboxId}" is not running`);
      const launch = await prepareLaunch(containerArgv(config), execContext, config.workingDir || execContext.cwd);
      await container.start(launch, () => CriLogWriter.open(container.logPath, { clock: this.clock, logger: this.logger }));
      this.logger.debug("container started", { containerId: container.id, containerName: config.name, pid: container.pid });
      const groups = this.groups;
      if (groups && container.pid !== undefined) {
        void groups
          .record(container.id, container.pid)
          .then(() => container.waitExited())
          .then(() => groups.forget(container.id))
          .catch((err: unknown) => this.logger.warn("Cannot record a container process group", { containerId: container.id, err }));
      }
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      container.failStart(message);
      throw new RuntimeError("StartFailed", message, { cause: err });
    }
  }

  private async forceStop(container: ContainerProcess): Promise<void> {
    await this.starting.get(container.id);
    await container.stop(0);
  }

  private sandbox(id: string): ProcessSandbox {
    const sandbox = this.sandboxes.get(id);
    if (!sandbox) throw notFound(`an error occurred when try to find sandbox "${id}": not found`);
    return sandbox;
  }

  private container(id: string): ContainerProcess {
    const container = this.containers.get(id);
    if (!container) throw notFound(`an error occurred when try to find container "${id}": not found`);
    return container;
  }

  /** runningContainer is the exec target check (containerd execInContainer's texts, after ExecSync's prefix). */
  private runningContainer(id: string): ContainerProcess {
    const container = this.containers.get(id);
    if (!container) throw notFound(`failed to exec in container: failed to find container "${id}" in store: not found`);
    if (container.state !== "running") throw notFound(`failed to exec in container: container is in ${CRI_STATE[container.state]} state`);
    return container;
  }

  private containersOf(sandboxId: string): ContainerProcess[] {
    return [...this.containers.values()].filter((c) => c.sandboxId === sandboxId);
  }

  private assertOpen(): void {
    if (this.closing) throw new RuntimeError("Unavailable", "process runtime is closed");
  }
}

function notFound(message: string): RuntimeError {
  return new RuntimeError("NotFound", message);
}

/** newId returns a 64-hex-digit ID, the shape containerd uses. */
function newId(): string {
  return randomBytes(32).toString("hex");
}

function copyContainerConfig(config: ContainerConfig): ContainerConfig {
  return {
    ...config,
    command: [...config.command],
    args: [...config.args],
    envs: config.envs.map((e) => ({ ...e })),
    labels: { ...config.labels },
    annotations: { ...config.annotations },
  };
}

let version: Promise<string> | undefined;

/** packageVersion reads probelet's version from package.json (src/ or dist/src/ layout). */
function packageVersion(): Promise<string> {
  version ??= (async () => {
    for (const rel of ["../../../package.json", "../../../../package.json"]) {
      const text = await readFile(new URL(rel, import.meta.url), "utf8").catch(() => undefined);
      const pkg = text === undefined ? undefined : (JSON.parse(text) as { name?: string; version?: string });
      if (pkg?.name === "probelet" && pkg.version) return pkg.version;
    }
    return "0.0.0";
  })();
  return version;
}
