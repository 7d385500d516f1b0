// One container of the process runtime: a guarded state machine around a process group.
//
//   created ──start──▶ starting ──spawned──▶ running ──leader exited, logs drained──▶ exited
//                          └──────────────start failed (StartError, 128)───────────────▶ exited
//
// "starting" is internal (reported as "created", like containerd's Starting flag) and keeps two
// starts from racing. The container leads its own process group: stop signals the whole group,
// and when the leader exits the rest of the group is killed too (as the kernel does to a PID
// namespace whose init exits), so no orphans stay behind. Processes that leave the group
// (setsid) are out of reach; their hold on the output pipes is cut after LOG_DRAIN_AFTER_EXIT_MS.
import { spawn, type ChildProcess } from "node:child_process";
import type { Clock } from "../../util/clock.js";
import type { Logger } from "../../util/logger.js";
import type { ContainerConfig, ContainerInfo, ContainerState } from "../runtime.js";
import { LaunchError, spawnFailureMessage, type LaunchSpec } from "./container-launch.js";
import { CriLogWriter } from "./cri-log-writer.js";
import { exitReason, exitStatus, signalGroup } from "./process-group.js";

/** LOG_DRAIN_AFTER_EXIT_MS bounds how long output is still read once the leader has exited. */
export const LOG_DRAIN_AFTER_EXIT_MS = 2000;

/** START_ERROR_REASON and START_ERROR_EXIT_CODE are containerd's values for a failed start. */
export const START_ERROR_REASON = "StartError";
/** START_ERROR_EXIT_CODE is 128, as containerd (and Docker before it) report. */
export const START_ERROR_EXIT_CODE = 128;

/** LifecycleState is the internal state; "starting" is reported as "created". */
export type LifecycleState = "created" | "starting" | "running" | "exited";

/** ContainerExecContext is where exec commands of this container run. */
export interface ContainerExecContext {
  env: Record<string, string>;
  cwd: string;
}

/** ContainerProcess is one container record and, once started, its process group. */
export class ContainerProcess {
  /** Current state; changed only by transition(). */
  private lifecycle: LifecycleState = "created";
  /** Times in ms since the epoch; 0 until they happen. */
  private startedAt = 0;
  private finishedAt = 0;
  private exitCode = 0;
  private reason = "";
  private message = "";
  /** The group leader; set while starting/running, kept after exit for its PID. */
  private child: ChildProcess | undefined;
  /** Aborted when the container reaches "exited"; cancels every wait tied to this container. */
  private readonly exitedController = new AbortController();
  private readonly exited: Promise<void>;
  private markExited!: () => void;
  /** Set once the stop signal was sent (it is sent once, whatever the number of stop calls). */
  private stopSignalSent = false;

  constructor(
    readonly id: string,
    readonly sandboxId: string,
    /** The config as given, deep-copied by the runtime. */
    readonly config: ContainerConfig,
    /** Absolute log file path, "" when the container has no log. */
    readonly logPath: string,
    /** Where execs run: the same env and working dir as the process. */
    readonly execContext: ContainerExecContext,
    /** ms since the epoch. */
    readonly createdAt: number,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    this.exited = new Promise((resolve) => (this.markExited = resolve));
  }

  /** state is the CRI state. */
  get state(): ContainerState {
    return this.lifecycle === "starting" ? "created" : this.lifecycle;
  }

  /** pid is the group leader's PID (also the group ID), once spawned. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /**
   * transition moves from one of `from` to `to`, returning false (and changing nothing) when
   * the current state is not in `from`. Entry actions run here, in one place.
   */
  transition(from: readonly LifecycleState[], to: LifecycleState): boolean {
    const current = this.lifecycle;
    if (!from.includes(current)) return false;
    this.lifecycle = to;
    this.logger.trace(`${current} -> ${to}`, { containerId: this.id, containerName: this.config.name });
    switch (to) {
      case "running":
        this.startedAt = this.clock.now();
        break;
      case "exited":
        if (this.finishedAt === 0) this.finishedAt = this.clock.now();
        this.exitedController.abort();
        this.markExited();
        break;
      default:
        break;
    }
    return true;
  }

  /** info returns a copy of the record as CRI ContainerStatus reports it. */
  info(): ContainerInfo {
    return {
      id: this.id,
      podSandboxId: this.sandboxId,
      name: this.config.name,
      attempt: this.config.attempt,
      state: this.state,
      image: this.config.image,
      createdAt: this.createdAt,
      startedAt: this.startedAt,
      finishedAt: this.finishedAt,
      exitCode: this.exitCode,
      reason: this.reason,
      message: this.message,
      labels: { ...this.config.labels },
      annotations: { ...this.config.annotations },
      logPath: this.logPath,
    };
  }

  /** waitExited resolves once the container has reached "exited". */
  waitExited(): Promise<void> {
    return this.exited;
  }

  /**
   * start spawns the container's process in a new process group with its output going to the
   * log. The caller has already moved the container to "starting". On failure the container is
   * "exited" with StartError/128 and the LaunchError is rethrown.
   */
  async start(launch: LaunchSpec, logWriterFactory: () => Promise<CriLogWriter>): Promise<void> {
    let writer: CriLogWriter;
    try {
      writer = await logWriterFactory();
    } catch (err) {
      throw this.failStart(`failed to create and open log file: ${(err as Error).message}`);
    }
    const child = spawn(launch.file, launch.argv.slice(1), {
      argv0: launch.argv[0] ?? launch.file,
      env: launch.env,
      cwd: launch.cwd,
      stdio: ["ignore", "pipe", "pipe"],
      // setsid(): the container leads a new process group (and session), so it can be signalled
      // as a whole. The handle stays referenced: exit events must reach the runtime.
      detached: true,
    });
    const spawnError = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
      child.once("spawn", () => resolve(undefined));
      child.once("error", resolve);
    });
    if (spawnError) {
      child.stdout?.destroy();
      child.stderr?.destroy();
      await writer.close();
      throw this.failStart(spawnFailureMessage(launch.file, spawnError.code));
    }
    this.child = child;
    if (child.stdout) writer.attach(child.stdout, "stdout");
    if (child.stderr) writer.attach(child.stderr, "stderr");
    child.once("exit", (code, signal) => void this.onLeaderExit(child, writer, code, signal));
    this.transition(["starting"], "running");
  }

  /**
   * failStart records a start failure the way containerd does (exited, StartError, 128, the
   * error as message) unless the process already runs, and returns the error to throw.
   */
  failStart(message: string): LaunchError {
    if (this.lifecycle === "created" || this.lifecycle === "starting") {
      this.exitCode = START_ERROR_EXIT_CODE;
      this.reason = START_ERROR_REASON;
      this.message = message;
      this.transition(["created", "starting"], "exited");
    }
    return new LaunchError(message);
  }

  /**
   * stop ends a running container: with a grace period, SIGTERM to the group, then SIGKILL once
   * `timeoutMs` has passed on the clock; with none, SIGKILL at once (containerd stopContainer).
   * Resolves once the leader has been reaped and the container is "exited". Calls may overlap:
   * the stop signal goes out once, each call escalates at its own deadline, all share the exit.
   */
  async stop(timeoutMs: number): Promise<void> {
    if (this.lifecycle !== "running") return;
    const pgid = this.child?.pid;
    if (pgid === undefined) return;
    if (timeoutMs > 0) {
      if (!this.stopSignalSent) {
        this.stopSignalSent = true;
        this.sendToGroup(pgid, "SIGTERM");
      }
      await Promise.race([this.exited, this.clock.sleep(timeoutMs, this.exitedController.signal)]);
    }
    if (this.lifecycle === "running") this.sendToGroup(pgid, "SIGKILL");
    await this.exited;
  }

  /** onLeaderExit records the exit once the rest of the group is killed and the log is drained. */
  private async onLeaderExit(child: ChildProcess, writer: CriLogWriter, code: number | null, signal: NodeJS.Signals | null): Promise<void> {
    const finishedAt = this.clock.now();
    if (child.pid !== undefined) this.sendToGroup(child.pid, "SIGKILL");
    const drainBound = new AbortController();
    const drained = writer.streamsDone().then(() => drainBound.abort());
    await Promise.race([drained, this.clock.sleep(LOG_DRAIN_AFTER_EXIT_MS, drainBound.signal)]);
    if (!drainBound.signal.aborted) {
      this.logger.warn("container output still held open after exit; closing it", { containerId: this.id });
      writer.destroyStreams();
    }
    drainBound.abort();
    await writer.close().catch((err: unknown) => this.logger.error("closing container log failed", { containerId: this.id, err }));
    // The exit becomes visible only now, with the log complete (containerd also waits for the
    // task's IO before it reports the exit), but finishedAt is the time the leader exited.
    this.finishedAt = finishedAt;
    this.exitCode = exitStatus(code, signal);
    this.reason = exitReason(this.exitCode);
    this.transition(["running"], "exited");
  }

  private sendToGroup(pgid: number, signal: NodeJS.Signals): void {
    try {
      signalGroup(pgid, signal);
    } catch (err) {
      this.logger.error("failed to signal container process group", { containerId: this.id, signal, err });
    }
  }
}
