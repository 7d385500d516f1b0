// The embedded "process" runtime: every container is a local process group, every pod sandbox
// a record. It reports what containerd's CRI plugin reports for the same events (states,
// reasons, exit codes, log format, error texts), so the agent treats both runtimes alike.
import { randomBytes } from "node:crypto";
import { setMaxListeners } from "node:events";
import { mkdir } from "node:fs/promises";
import { probeletVersion } from "../../util/package-version.js";
import { dirname, resolve } from "node:path";
import { CommandTimeoutError, type CommandResult, type CommandRunOptions } from "../../probe/command-runner.js";
import { execTimeoutMessage } from "../../probe/exec.js";
import { lookupErrorFor } from "../../probe/host-command.js";
import { HostCommandRunner } from "../../probe/host-runner.js";
import { systemClock, type Clock } from "../../util/clock.js";
import { silentLogger, type Logger } from "../../util/logger.js";
import {
  RuntimeError,
  type ContainerConfig,
  type ContainerFilter,
  type ContainerInfo,
  type ContainerSecurity,
  type ContainerSummary,
  type ExecSession,
  type ExecStreamOptions,
  type PodSandboxConfig,
  type ImageUser,
  type PodSandboxStatus,
  type Runtime,
  type SandboxFilter,
} from "../runtime.js";
import { MAX_CONTAINER_LOG_LINE_SIZE } from "../log-format.js";
import { containerArgv, containerCwd, containerEnv, containerEnvBytes, LaunchError, prepareLaunch, resolveExecutableSync, type LaunchSpec } from "./container-launch.js";
import { agentHost, containerWorld, enterArgv, isPlainWorld, securityProblem } from "./container-world.js";
import { ContainerProcess, type ProcessStarter } from "./container-process.js";
import { startPipedProcess } from "./piped-process.js";
import { copySandboxConfig, labelsMatch, ProcessSandbox } from "./sandbox.js";
import { validateContainerConfig } from "./validate-config.js";
import { startProcessExec, type Entering } from "./process-exec-stream.js";
import { GroupRecords } from "./group-records.js";
import { containerRecord, RuntimeRecords, RECORD_VERSION, type ContainerRecord } from "./runtime-records.js";
import { restoreContainer } from "./container-adoption.js";
import { defaultSupervisorPath, startSupervisedProcess, supervisorAvailable, type SupervisedProcess } from "./supervised-process.js";
import { PodNetwork, type PodNetworkOptions, type SandboxNetwork } from "./pod-network.js";

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
   * The agent's state directory. With the supervisor helper, sandboxes and containers are
   * recorded there and a later runtime over the same directory adopts them (they outlive the
   * agent). Without it, container process groups are recorded there so that the next agent can
   * reap the groups a killed agent left behind (reapOrphans).
   */
  stateDir?: string;
  /** The supervisor helper (default: build/probelet-supervisor); used only with a stateDir. */
  supervisorPath?: string;
  /**
   * A network namespace per pod (not hostNetwork) on this CNI bridge network. Used only with a
   * stateDir, the supervisor, root and the CNI plugins; otherwise pods share the host's network
   * and the reason is logged once. Without it, every pod shares the host's network.
   */
  podNetwork?: PodNetworkOptions;
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
 * With a state directory and the supervisor helper (native/supervisor.c), every container runs
 * under its own supervisor, which writes its log and records its exit, so containers outlive the
 * agent: a runtime created over the same state directory lists and adopts the same sandboxes and
 * containers, as containerd does after a restart, and close() leaves them running.
 *
 * Fallback (no state directory, or no supervisor binary: no C compiler at build time): the
 * runtime reads every container's stdout and stderr through pipes, so the containers cannot
 * outlive the agent (a container whose log pipe closes would die on SIGPIPE or lose its output).
 * close() then kills every container, and the next runtime starts empty after reaping the groups
 * a killed agent left behind (reapOrphans).
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
  /** Container ID → its reserved name. */
  private readonly containerNames = new Map<string, string>();
  /** Starts in flight, so close() and removeContainer() can wait for them. */
  private readonly starting = new Map<string, Promise<void>>();
  private closing: Promise<void> | undefined;
  private readonly groups: GroupRecords | undefined;
  private readonly records: RuntimeRecords | undefined;
  private readonly supervisorPath: string;
  /** Set once recovery decided: true when containers run under the supervisor. */
  private supervised = false;
  /** Recovery of a previous runtime's records; every call waits for it. */
  private readonly ready: Promise<void>;
  /** Aborted by close(): adopted containers stop being followed. */
  private readonly closed = new AbortController();
  /** Set by recovery when pods get their own network namespaces (podNetwork given and usable). */
  private network: PodNetwork | undefined;

  constructor(options: ProcessRuntimeOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.logger = (options.logger ?? silentLogger).child("runtime.process");
    this.ownsRunner = options.runner === undefined;
    this.runner =
      options.runner ??
      new HostCommandRunner({ resolveContext: (id) => this.runningContainer(id).execContext, clock: this.clock, logger: this.logger });
    this.groups = options.stateDir === undefined ? undefined : new GroupRecords(options.stateDir, this.logger);
    this.records = options.stateDir === undefined ? undefined : new RuntimeRecords(options.stateDir, this.logger);
    this.supervisorPath = options.supervisorPath ?? defaultSupervisorPath();
    // Every supervised container listens on the close signal: no listener limit.
    setMaxListeners(0, this.closed.signal);
    this.ready = this.recover(options.stateDir === undefined ? undefined : options.podNetwork && { options: options.podNetwork, stateDir: options.stateDir }).catch((err: unknown) => this.logger.error("Cannot recover the process runtime's records", { err }));
  }

  /**
   * reapOrphans kills the container process groups that a previous agent with the same state
   * directory left running when it was killed and that cannot be adopted: those it ran through
   * pipes (without the supervisor), whose log pipes are gone. Supervised containers are adopted.
   */
  async reapOrphans(): Promise<number> {
    await this.ready;
    return (await this.groups?.reapOrphans()) ?? 0;
  }

  /** outlivesAgent tells whether this runtime's containers keep running once the agent is gone. */
  async outlivesAgent(): Promise<boolean> {
    await this.ready;
    return this.supervised;
  }

  /**
   * mountsUnsupportedReason: volume mounts need the supervisor (it makes a private mount
   * namespace per container) and root (unshare(CLONE_NEWNS) and mount need CAP_SYS_ADMIN).
   */
  async mountsUnsupportedReason(): Promise<string | undefined> {
    await this.ready;
    const uid = process.getuid?.() ?? -1;
    if (uid !== 0) return `volume mounts on the process runtime need root (a private mount namespace per container); the agent runs as uid ${uid}`;
    if (!this.supervised) return "volume mounts on the process runtime need the supervisor helper (build/probelet-supervisor, built by npm run build with a C compiler) and a state directory";
    return undefined;
  }

  /**
   * securityUnsupportedReason: as root the supervisor applies every field (user, groups,
   * capabilities, no_new_privs); otherwise only what needs no privilege (see container-world.ts).
   */
  async securityUnsupportedReason(security: ContainerSecurity): Promise<string | undefined> {
    await this.ready;
    return securityProblem(security, agentHost(this.supervised));
  }

  /** imageUser: there is no image; a container without runAsUser runs as the agent's user. */
  async imageUser(): Promise<ImageUser> {
    return { uid: process.getuid?.() ?? 0 };
  }

  /** podsShareHostNetwork: pods share the host's network unless they get pod network namespaces (root, the CNI plugins). */
  async podsShareHostNetwork(): Promise<boolean> {
    await this.ready;
    return this.network === undefined;
  }

  async version(): Promise<{ runtimeName: string; runtimeVersion: string }> {
    return { runtimeName: PROCESS_RUNTIME_NAME, runtimeVersion: probeletVersion() };
  }

  // ---- sandboxes -------------------------------------------------------------------------

  async runPodSandbox(config: PodSandboxConfig): Promise<string> {
    await this.ready;
    this.assertOpen();
    const id = newId();
    const network = this.network && !config.hostNetwork ? await this.setUpNetwork(this.network, id) : undefined;
    const sandbox = new ProcessSandbox(id, copySandboxConfig(config), this.clock.now(), network);
    this.sandboxes.set(sandbox.id, sandbox);
    await this.saveSandbox(sandbox);
    this.logger.debug("sandbox created", { sandboxId: sandbox.id, pod: config.name, podUID: config.podUid, podIP: sandbox.status().podIP });
    return sandbox.id;
  }

  /**
   * stopPodSandbox SIGKILLs every container group of the sandbox at once and waits for them,
   * then releases the pod's network (CNI DEL, namespace removed), as containerd's
   * StopPodSandbox tears down the network once the containers are gone.
   */
  async stopPodSandbox(sandboxId: string): Promise<void> {
    await this.ready;
    const sandbox = this.sandbox(sandboxId);
    sandbox.stopping ??= (async () => {
      await Promise.all(this.containersOf(sandboxId).map((c) => this.forceStop(c)));
      sandbox.markNotReady();
      await this.saveSandbox(sandbox);
      if (sandbox.network) await this.tearDownNetwork(sandbox.id, sandbox.network);
    })();
    try {
      await sandbox.stopping;
    } catch (err) {
      sandbox.stopping = undefined; // a later stop retries the teardown
      throw err;
    }
  }

  /** removePodSandbox stops the sandbox, then removes it and its containers. Unknown IDs are ignored (CRI: idempotent). */
  async removePodSandbox(sandboxId: string): Promise<void> {
    await this.ready;
    if (!this.sandboxes.has(sandboxId)) return;
    await this.stopPodSandbox(sandboxId);
    await Promise.all(this.containersOf(sandboxId).map((c) => this.removeContainer(c.id)));
    if (this.sandboxes.delete(sandboxId)) await this.records?.removeSandbox(sandboxId);
  }

  async podSandboxStatus(sandboxId: string): Promise<PodSandboxStatus> {
    await this.ready;
    return this.sandbox(sandboxId).status();
  }

  async listPodSandboxes(filter?: SandboxFilter): Promise<PodSandboxStatus[]> {
    await this.ready;
    return [...this.sandboxes.values()].filter((s) => s.matches(filter)).map((s) => s.status());
  }

  // ---- containers ------------------------------------------------------------------------

  async createContainer(sandboxId: string, config: ContainerConfig, sandboxConfig: PodSandboxConfig): Promise<string> {
    await this.ready;
    this.assertOpen();
    if (!this.sandboxes.has(sandboxId)) throw notFound(`failed to find sandbox id "${sandboxId}": not found`);
    const id = newId();
    const problem =
      validateContainerConfig(config) ??
      (config.mounts?.length ? await this.mountsUnsupportedReason() : undefined) ??
      (config.security ? await this.securityUnsupportedReason(config.security) : undefined);
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
    const netns = this.sandboxes.get(sandboxId)?.network?.netns;
    const world = await containerWorld(copy.security, (copy.mounts?.length ?? 0) > 0, agentHost(this.supervised));
    const execContext = { env: containerEnv(copy, sandboxConfig), cwd: containerCwd(copy), ...(netns !== undefined ? { netns } : {}), ...(isPlainWorld(world, undefined) ? {} : { world }) };
    const container = new ContainerProcess(id, sandboxId, copy, logPath, execContext, this.clock.now(), this.clock, this.logger);
    this.containers.set(id, container);
    this.names.set(name, id);
    this.containerNames.set(id, name);
    await this.saveContainer(container);
    return id;
  }

  async startContainer(containerId: string): Promise<void> {
    await this.ready;
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
    await this.ready;
    const container = this.container(containerId);
    await this.starting.get(containerId);
    await container.stop(Math.max(0, timeoutSeconds) * 1000);
  }

  /** removeContainer stops a running container without grace, then forgets it; the log file stays. */
  async removeContainer(containerId: string): Promise<void> {
    await this.ready;
    const container = this.containers.get(containerId);
    if (!container) return; // CRI: removing a removed container is not an error.
    await this.forceStop(container);
    if (this.containers.get(containerId) !== container) return;
    this.containers.delete(containerId);
    const name = this.containerNames.get(containerId);
    this.containerNames.delete(containerId);
    if (name !== undefined && this.names.get(name) === containerId) this.names.delete(name);
    await this.records?.removeContainer(containerId);
  }

  async containerStatus(containerId: string): Promise<ContainerInfo> {
    await this.ready;
    return this.container(containerId).info();
  }

  async listContainers(filter?: ContainerFilter): Promise<ContainerInfo[]> {
    await this.ready;
    return [...this.containers.values()]
      .filter((c) => filter?.podSandboxId === undefined || c.sandboxId === filter.podSandboxId)
      .filter((c) => filter?.state === undefined || c.state === filter.state)
      .filter((c) => labelsMatch(c.config.labels, filter?.labels))
      .map((c) => c.info());
  }

  async relistContainers(): Promise<ContainerSummary[]> {
    await this.ready;
    return [...this.containers.entries()].map(([id, c]) => ({ id, podSandboxId: c.sandboxId, state: c.state }));
  }

  /**
   * runInContainer runs argv with the container's env and working dir (CRI ExecSync): on the
   * host for a container of the agent's own kind, else inside its world (mount and network
   * namespaces, user, capabilities) through the supervisor's enter mode. The executable is looked
   * up as the container sees its filesystem; a missing one fails as on the host.
   */
  async runInContainer(containerId: string, argv: readonly string[], options: CommandRunOptions): Promise<CommandResult> {
    await this.ready;
    const container = this.runningContainer(containerId);
    const { env, cwd } = container.execContext;
    const signal = options.signal ? { signal: options.signal } : {};
    const entering = this.entering(container);
    if (!entering) return this.runner.run(argv, { env, cwd, timeoutMs: options.timeoutMs, ...signal });
    const found = resolveExecutableSync(argv[0] ?? "", env["PATH"] ?? "", cwd, entering.root);
    if (!found.ok) throw lookupErrorFor(argv[0] ?? "", found.code);
    try {
      return await this.runner.run(entering.argv(found.path, argv), { env, cwd: "/", timeoutMs: options.timeoutMs, ...signal });
    } catch (err) {
      if (err instanceof CommandTimeoutError) throw new CommandTimeoutError(argv, err.timeoutMs, execTimeoutMessage(argv, err.timeoutMs), err.partialOutput);
      throw err;
    }
  }

  /** execStream starts argv with the container's env and working dir, in its world, streams attached (CRI Exec). */
  async execStream(containerId: string, argv: readonly string[], options: ExecStreamOptions): Promise<ExecSession> {
    await this.ready;
    const container = this.runningContainer(containerId);
    return startProcessExec(argv, container.execContext, options, this.clock, this.entering(container));
  }

  /** reopenContainerLog has the container's supervisor (or the agent's log writer) open its log path again. */
  async reopenContainerLog(containerId: string): Promise<void> {
    await this.ready;
    const container = this.container(containerId);
    try {
      await container.reopenLog();
    } catch (err) {
      throw new RuntimeError(container.state === "running" ? "Unknown" : "NotFound", `failed to reopen log of container "${containerId}": ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }

  /**
   * close kills every container group run through pipes (they cannot outlive the agent), reaps
   * them and closes their logs; supervised containers keep running for the next runtime over the
   * same state directory. With pod networks, the bridge is deleted when no sandbox holds a pod
   * network any more. Then it closes the owned runner. Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.ready;
      await Promise.all(this.starting.values());
      this.closed.abort();
      if (!this.supervised) await Promise.all([...this.containers.values()].map((c) => this.forceStop(c)));
      await this.records?.idle();
      if (this.network && ![...this.sandboxes.values()].some((s) => s.network)) await this.network.removeBridge();
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
      const launch = { ...(await prepareLaunch(containerArgv(config), execContext, config.workingDir || execContext.cwd)), ...containerEnvBytes(config) };
      if (this.supervised) {
        await this.launchSupervised(container, launch);
        return;
      }
      await container.start(launch, (spec) => startPipedProcess(spec, { containerId: container.id, logPath: container.logPath, clock: this.clock, logger: this.logger }));
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
      await this.saveContainer(container);
      throw new RuntimeError("StartFailed", message, { cause: err });
    }
  }

  /** launchSupervised starts a container under its supervisor and records it for adoption. */
  private async launchSupervised(container: ContainerProcess, launch: LaunchSpec): Promise<void> {
    const records = this.records!;
    let started: SupervisedProcess | undefined;
    const starter: ProcessStarter = async (spec) => {
      started = await startSupervisedProcess(spec, {
        binary: this.supervisorPath,
        logPath: container.logPath,
        statePath: records.exitPath(container.id),
        maxLineSize: MAX_CONTAINER_LOG_LINE_SIZE,
        mounts: container.config.mounts ?? [],
        ...(container.execContext.netns !== undefined ? { netns: container.execContext.netns } : {}),
        ...(container.execContext.world ? { world: container.execContext.world } : {}),
        clock: this.clock,
        stop: this.closed.signal,
        onSpawn: (supervisor) => this.saveContainer(container, { supervisor }),
        logger: this.logger,
      });
      return started;
    };
    await container.start(launch, starter);
    this.logger.debug("container started", { containerId: container.id, containerName: container.config.name, pid: container.pid, supervised: true });
    await this.saveContainer(container, started);
    this.saveOnExit(container, started);
  }

  /** saveOnExit records the container's exit once it is seen (the supervisor's state file stays too). */
  private saveOnExit(container: ContainerProcess, identities: Pick<ContainerRecord, "leader" | "supervisor"> | undefined): void {
    void container.waitExited().then(() => {
      if (this.containers.get(container.id) === container) return this.saveContainer(container, identities);
      return undefined;
    });
  }

  private async saveSandbox(sandbox: ProcessSandbox): Promise<void> {
    if (!this.supervised) return;
    const network = sandbox.network ? { network: sandbox.network } : {};
    await this.records?.saveSandbox({ version: RECORD_VERSION, id: sandbox.id, config: sandbox.config, createdAt: sandbox.createdAt, ready: sandbox.ready, ...network });
  }

  private async saveContainer(container: ContainerProcess, identities?: Pick<ContainerRecord, "leader" | "supervisor">): Promise<void> {
    if (!this.supervised) return;
    await this.records?.saveContainer(containerRecord(container, this.containerNames.get(container.id) ?? "", identities));
  }

  /**
   * recover decides how containers run and, when they run under the supervisor, adopts the
   * sandboxes and containers a previous runtime over the same state directory left: live ones
   * stay running (same PIDs), those that exited meanwhile show their recorded exit. Sandboxes
   * keep their network namespace and IP.
   */
  private async recover(podNetwork: { options: PodNetworkOptions; stateDir: string } | undefined): Promise<void> {
    if (!this.records) return;
    if (!(await supervisorAvailable(this.supervisorPath))) {
      this.logger.warn("Process containers will not outlive the agent: the supervisor helper is missing (build it with a C compiler: npm run build); they run through pipes and stop with the agent", { supervisor: this.supervisorPath });
      if (podNetwork) this.logger.warn("Process pods share the host's network", { reason: "a pod network namespace needs the supervisor helper" });
      return;
    }
    this.supervised = true;
    if (podNetwork) await this.openNetwork(podNetwork.options, podNetwork.stateDir);
    const { sandboxes, containers } = await this.records.load();
    for (const record of sandboxes) {
      const sandbox = new ProcessSandbox(record.id, record.config, record.createdAt, record.network);
      if (!record.ready) sandbox.markNotReady();
      this.sandboxes.set(sandbox.id, sandbox);
    }
    await Promise.all(containers.map((record) => this.adopt(record)));
    if (sandboxes.length + containers.length > 0) this.logger.info("Adopted the process runtime's sandboxes and containers", { sandboxes: sandboxes.length, containers: containers.length });
  }

  /** adopt restores one recorded container, following it if it still runs. */
  private async adopt(record: ContainerRecord): Promise<void> {
    const options = { exitPath: this.records!.exitPath(record.id), clock: this.clock, stop: this.closed.signal, logger: this.logger };
    const { container, changed, identities } = await restoreContainer(record, options);
    this.containers.set(record.id, container);
    this.containerNames.set(record.id, record.name);
    if (record.name !== "") this.names.set(record.name, record.id);
    if (changed) await this.saveContainer(container, identities);
    if (container.state === "running") this.saveOnExit(container, identities);
  }

  /** openNetwork turns pod network namespaces on when this host allows them, and says either way once. */
  private async openNetwork(options: PodNetworkOptions, stateDir: string): Promise<void> {
    const network = new PodNetwork(options, stateDir, (argv, run) => this.runner.run(argv, run), this.clock, this.logger);
    const reason = await network.unavailableReason();
    if (reason !== undefined) {
      this.logger.warn("Process pods share the host's network", { reason });
      return;
    }
    this.network = network;
    this.logger.info("Process pods get their own network namespace on the CNI bridge", { bridge: network.bridge, podCIDR: network.podCidr });
  }

  /** setUpNetwork gives a new sandbox its namespace and IP; failures are worded as containerd's. */
  private async setUpNetwork(network: PodNetwork, sandboxId: string): Promise<SandboxNetwork> {
    try {
      return await network.setUp(sandboxId);
    } catch (err) {
      throw new RuntimeError("CreateFailed", `failed to setup network for sandbox "${sandboxId}": ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }

  /** tearDownNetwork releases a stopped sandbox's IP and namespace (containerd: "failed to destroy network"). */
  private async tearDownNetwork(sandboxId: string, sandboxNetwork: SandboxNetwork): Promise<void> {
    if (!this.network) {
      this.logger.warn("Cannot release a pod network: pod networks are off now; remove it by hand", { sandboxId, netns: sandboxNetwork.netns });
      return;
    }
    try {
      await this.network.tearDown(sandboxId, sandboxNetwork.netns);
    } catch (err) {
      throw new RuntimeError("Unknown", `failed to destroy network for sandbox "${sandboxId}": ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }

  /**
   * entering says how to run a command in a container's world, or undefined when the container
   * is of the agent's own kind (then it runs on the host, the cheapest way). Only a running,
   * supervised container has a world; its leader is entered by PID and start time.
   */
  private entering(container: ContainerProcess): Entering | undefined {
    const { world, netns, cwd } = container.execContext;
    if (isPlainWorld(world, netns)) return undefined;
    const leader = container.leader;
    if (!leader) throw new RuntimeError("Unknown", `failed to exec in container: the process of container "${container.id}" is not known`);
    return {
      root: world?.mountNamespace ? `/proc/${leader.pid}/root` : "",
      argv: (file, argv) => enterArgv(this.supervisorPath, leader, world, netns, cwd, file, argv),
    };
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
    ...(config.mounts ? { mounts: config.mounts.map((m) => ({ ...m })) } : {}),
    labels: { ...config.labels },
    annotations: { ...config.annotations },
  };
}
