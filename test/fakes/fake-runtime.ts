// FakeRuntime: an in-memory Runtime for agent tests. Containers never run anything; tests move
// them with exit(), and exec results are scripted per container name.
import { CommandTimeoutError, type CommandResult, type CommandRunOptions } from "../../src/probe/command-runner.js";
import {
  RuntimeError,
  type ContainerConfig,
  type ContainerFilter,
  type ContainerInfo,
  type ContainerSummary,
  type ExecSession,
  type ImageService,
  type ImageUser,
  type PodSandboxConfig,
  type PodSandboxStatus,
  type Runtime,
  type SandboxFilter,
} from "../../src/runtime/runtime.js";
import type { Clock } from "../../src/util/clock.js";

/** FakeRuntime records every call and keeps containers in memory. */
export class FakeRuntime implements Runtime {
  readonly type = "fake";
  readonly sandboxes = new Map<string, PodSandboxStatus>();
  readonly containers = new Map<string, ContainerInfo>();
  readonly calls: string[] = [];
  /** Exit code used when stopContainer kills a container (SIGTERM honoured → 143, else 137). */
  stopExitCode = 137;
  /** Names whose start fails with StartFailed. */
  readonly failStart = new Set<string>();
  /** Exec exit code per container name (default 0). */
  readonly execExit = new Map<string, number>();
  /** How long an exec takes per container name (fake-clock ms); past the exec's timeout it fails as a runner's timeout does. */
  readonly execDelayMs = new Map<string, number>();
  /** Exec stdout per container name (default none). */
  readonly execOutput = new Map<string, string>();
  /** While true every call fails as a runtime that stopped answering does (Unavailable). */
  unavailable = false;
  /** How long a container takes to exit after SIGTERM (fake-clock ms, capped by the grace period). */
  stopDelayMs = 0;
  private next = 1;

  constructor(private readonly clock: Clock) {}

  private guard(): void {
    if (this.unavailable) throw new RuntimeError("Unavailable", "connection error: desc = \"transport: Error while dialing: dial unix /run/fake.sock: connect: connection refused\"");
  }

  /** When set, mountsUnsupportedReason answers it (as the process runtime without root does). */
  mountsUnsupported: string | undefined;
  /** The config of every created container, by container name (latest creation wins). */
  readonly configs = new Map<string, ContainerConfig>();

  async mountsUnsupportedReason(): Promise<string | undefined> {
    return this.mountsUnsupported;
  }

  /** When set, securityUnsupportedReason answers it (as the process runtime without root does). */
  securityUnsupported: string | undefined;
  /** Images the fake does not hold, by the name asked for (tag defaulted); every other one is there. */
  readonly absentImages = new Set<string>();
  /** When set, every PullImage fails with it; otherwise a pull succeeds and the image is held. */
  pullError: RuntimeError | undefined;
  /** How long a PullImage takes (fake-clock ms). */
  pullDelayMs = 0;
  /** The images pulled, in order, with the sandbox's pod name: "<pod> <image>". */
  readonly pulls: string[] = [];
  /** The size every image reports (CRI Image.size). */
  imageSize = 0;
  /** The image service: ImageStatus and PullImage over absentImages, pullError and pullDelayMs. */
  readonly images: ImageService = {
    imageStatus: async (image) => {
      this.guard();
      return this.absentImages.has(image.image) ? undefined : { id: `sha256:${image.image}`, size: this.imageSize };
    },
    pullImage: async (image, sandbox) => {
      this.guard();
      this.pulls.push(`${sandbox.name} ${image.image}`);
      if (this.pullDelayMs > 0) await this.clock.sleep(this.pullDelayMs);
      if (this.pullError) throw this.pullError;
      this.absentImages.delete(image.image);
      return `sha256:${image.image}`;
    },
  };
  /** Who images run as (imageUser); undefined: as root. */
  imageRunsAs: ImageUser = { uid: 0 };
  /** Container IDs whose log was reopened, in order. */
  readonly reopened: string[] = [];

  async securityUnsupportedReason(): Promise<string | undefined> {
    return this.securityUnsupported;
  }

  async imageUser(): Promise<ImageUser> {
    return this.imageRunsAs;
  }

  async reopenContainerLog(id: string): Promise<void> {
    this.guard();
    const c = this.containers.get(id);
    if (!c || c.state !== "running") throw new RuntimeError("NotFound", `container ${id} is not running`);
    this.reopened.push(id);
  }

  async version() {
    this.guard();
    return { runtimeName: "fake", runtimeVersion: "0" };
  }

  async runPodSandbox(config: PodSandboxConfig): Promise<string> {
    this.guard();
    const id = `sb${this.next++}`;
    this.calls.push(`runPodSandbox ${config.name}`);
    this.sandboxes.set(id, { id, podUid: config.podUid, name: config.name, namespace: config.namespace, attempt: config.attempt, state: "ready", podIP: "127.0.0.1", createdAt: this.clock.now(), labels: config.labels, annotations: config.annotations });
    return id;
  }
  async stopPodSandbox(id: string): Promise<void> {
    this.guard();
    this.calls.push(`stopPodSandbox ${id}`);
    const sb = this.sandboxes.get(id);
    if (sb) sb.state = "notready";
    for (const c of this.containers.values()) if (c.podSandboxId === id && c.state === "running") this.exit(c.id, 137);
  }
  async removePodSandbox(id: string): Promise<void> {
    this.guard();
    this.calls.push(`removePodSandbox ${id}`);
    this.sandboxes.delete(id);
    for (const [cid, c] of this.containers) if (c.podSandboxId === id) this.containers.delete(cid);
  }
  async podSandboxStatus(id: string): Promise<PodSandboxStatus> {
    this.guard();
    const sb = this.sandboxes.get(id);
    if (!sb) throw new RuntimeError("NotFound", `sandbox ${id} not found`);
    return { ...sb };
  }
  /** listPodSandboxes honours the filter as the real runtimes do: the state, and every label given. */
  async listPodSandboxes(filter: SandboxFilter = {}): Promise<PodSandboxStatus[]> {
    this.guard();
    const labels = Object.entries(filter.labels ?? {});
    return [...this.sandboxes.values()]
      .filter((s) => (filter.state === undefined || s.state === filter.state) && labels.every(([key, value]) => s.labels[key] === value))
      .map((s) => ({ ...s }));
  }
  async createContainer(sandboxId: string, config: ContainerConfig, sandbox: PodSandboxConfig): Promise<string> {
    this.guard();
    const id = `c${this.next++}`;
    this.calls.push(`create ${config.name}#${config.attempt}`);
    this.configs.set(config.name, config);
    this.containers.set(id, {
      id,
      podSandboxId: sandboxId,
      name: config.name,
      attempt: config.attempt,
      state: "created",
      image: config.image,
      createdAt: this.clock.now(),
      startedAt: 0,
      finishedAt: 0,
      exitCode: 0,
      reason: "",
      message: "",
      labels: config.labels,
      annotations: config.annotations,
      logPath: `${sandbox.logDirectory}/${config.logPath}`,
    });
    return id;
  }
  async startContainer(id: string): Promise<void> {
    this.guard();
    const c = this.mustGet(id);
    this.calls.push(`start ${c.name}#${c.attempt}`);
    if (this.failStart.has(c.name)) {
      Object.assign(c, { state: "exited", exitCode: 128, reason: "StartError", finishedAt: this.clock.now(), message: "exec: not found" });
      throw new RuntimeError("StartFailed", `exec: "${c.name}": executable file not found in $PATH`);
    }
    Object.assign(c, { state: "running", startedAt: this.clock.now() });
  }
  async stopContainer(id: string, timeoutSeconds: number): Promise<void> {
    this.guard();
    const c = this.mustGet(id);
    this.calls.push(`stop ${c.name}#${c.attempt} grace=${timeoutSeconds}`);
    if (this.stopDelayMs > 0) await this.clock.sleep(Math.min(this.stopDelayMs, timeoutSeconds * 1000));
    if (c.state === "running") this.exit(id, this.stopExitCode);
  }
  async removeContainer(id: string): Promise<void> {
    this.guard();
    const c = this.containers.get(id);
    if (c) this.calls.push(`remove ${c.name}#${c.attempt}`);
    this.containers.delete(id);
  }
  async containerStatus(id: string): Promise<ContainerInfo> {
    this.guard();
    return { ...this.mustGet(id) };
  }
  async listContainers(filter: ContainerFilter = {}): Promise<ContainerInfo[]> {
    this.guard();
    return [...this.containers.values()].filter((c) => (filter.podSandboxId === undefined || c.podSandboxId === filter.podSandboxId) && (filter.state === undefined || c.state === filter.state)).map((c) => ({ ...c }));
  }
  async relistContainers(): Promise<ContainerSummary[]> {
    this.guard();
    return [...this.containers.values()].map(({ id, podSandboxId, state }) => ({ id, podSandboxId, state }));
  }
  async runInContainer(id: string, argv: readonly string[], options: CommandRunOptions): Promise<CommandResult> {
    this.guard();
    const c = this.mustGet(id);
    this.calls.push(`exec ${c.name}#${c.attempt} ${argv.join(" ")}`);
    if (c.state !== "running") throw new RuntimeError("NotFound", "container is not running");
    const delay = this.execDelayMs.get(c.name) ?? 0;
    if (delay > 0) {
      await this.clock.sleep(Math.min(delay, options.timeoutMs));
      if (delay > options.timeoutMs) throw new CommandTimeoutError(argv, options.timeoutMs, `command timed out after ${options.timeoutMs} ms`);
    }
    return { stdout: Buffer.from(this.execOutput.get(c.name) ?? ""), stderr: Buffer.alloc(0), exitCode: this.execExit.get(c.name) ?? 0 };
  }
  /** execStream is not scripted: agent tests never stream an exec. */
  async execStream(id: string): Promise<ExecSession> {
    this.guard();
    throw new RuntimeError("Unknown", `FakeRuntime does not stream exec (container ${id})`);
  }
  async close(): Promise<void> {}

  /** exit makes a container exit with a code (tests call it to simulate a crash or completion). */
  exit(id: string, exitCode: number): void {
    const c = this.mustGet(id);
    Object.assign(c, { state: "exited", exitCode, reason: exitCode === 0 ? "Completed" : "Error", finishedAt: this.clock.now() });
  }

  /** current returns the newest instance of a container name. */
  current(name: string): ContainerInfo | undefined {
    return [...this.containers.values()].filter((c) => c.name === name).sort((a, b) => b.attempt - a.attempt)[0];
  }

  private mustGet(id: string): ContainerInfo {
    const c = this.containers.get(id);
    if (!c) throw new RuntimeError("NotFound", `container ${id} not found`);
    return c;
  }
}
