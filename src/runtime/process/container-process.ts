// One container of the process runtime: a guarded state machine around a process group.
//
//   created ──start──▶ starting ──spawned──▶ running ──leader exited, logs drained──▶ exited
//                          └──────────────start failed (StartError, 128)───────────────▶ exited
//
// "starting" is internal (reported as "created", like containerd's Starting flag) and keeps two
// starts from racing. The container leads its own process group: stop signals the whole group,
// and when the leader exits the rest of the group is killed too (as the kernel does to a PID
// namespace whose init exits), so no orphans stay behind. Who runs the process and writes its
// log (the supervisor helper, or the agent through pipes) is the ProcessStarter's business.
import type { Clock } from "../../util/clock.js";
import type { Logger } from "../../util/logger.js";
import type { ContainerConfig, ContainerInfo, ContainerState } from "../runtime.js";
import { LaunchError, type LaunchSpec } from "./container-launch.js";
import type { ContainerWorld } from "./container-world.js";
import { signalGroup } from "./process-group.js";
import type { ProcessIdentity } from "./supervised-process.js";

/** ProcessExit is how a container's process ended, once its log is complete. */
export interface ProcessExit {
  exitCode: number;
  /** "Completed", "Error", or "Unknown" when the exit could not be learnt. */
  reason: string;
  /** When the group leader exited, ms since the epoch. */
  finishedAt: number;
}

/** RunningProcess is a started container process group. */
export interface RunningProcess {
  /** The group leader's PID, which is also the group ID. */
  pid: number;
  /** Settles once the leader has exited and the log is complete; never rejects. */
  exited: Promise<ProcessExit>;
  /**
   * isOurs tells whether `pid` still names this container's leader (not a recycled PID); when
   * given, no signal is sent unless it says so.
   */
  isOurs?: () => boolean;
  /** The leader with its start time (supervised containers), so execs can enter its namespaces. */
  leader?: ProcessIdentity;
  /**
   * reopenLog makes whoever writes the log open its path again, once the file there was renamed
   * (log rotation); rejects when it could not.
   */
  reopenLog?: () => Promise<void>;
}

/** ProcessStarter starts a container process; it rejects with a LaunchError when it cannot. */
export type ProcessStarter = (launch: LaunchSpec) => Promise<RunningProcess>;

/** ContainerSnapshot is the part of a container that changes over its life (what is persisted). */
export interface ContainerSnapshot {
  /** "starting" is never persisted: a start cut short by the agent's death reads as created. */
  state: Exclude<LifecycleState, "starting">;
  pid?: number;
  startedAt: number;
  finishedAt: number;
  exitCode: number;
  reason: string;
  message: string;
}

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
  /** The pod's network namespace file (recorded, so an adopted container keeps it); none: the host's network. */
  netns?: string;
  /** Its mount namespace, user, capabilities and no_new_privs; none: the agent's. */
  world?: ContainerWorld;
}

/** ContainerProcess is one container record and, once started, its process group. */
export class ContainerProcess {
  /** Current state; changed only by transition(), and by restore() when a container is adopted. */
  private lifecycle: LifecycleState = "created";
  /** Times in ms since the epoch; 0 until they happen. */
  private startedAt = 0;
  private finishedAt = 0;
  private exitCode = 0;
  private reason = "";
  private message = "";
  /** The group leader's PID; set once running, kept after exit. */
  private leaderPid: number | undefined;
  /** The running process, while there is one. */
  private process: RunningProcess | undefined;
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
    return this.leaderPid;
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

  /** leader is the running leader's identity (start time included), when the starter knows it. */
  get leader(): ProcessIdentity | undefined {
    return this.process?.leader;
  }

  /** reopenLog makes the log's writer open the log path again; rejects unless the container runs. */
  async reopenLog(): Promise<void> {
    const reopen = this.lifecycle === "running" ? this.process?.reopenLog : undefined;
    if (!reopen) throw new Error(`container "${this.id}" is not running`);
    await reopen();
  }

  /** waitExited resolves once the container has reached "exited". */
  waitExited(): Promise<void> {
    return this.exited;
  }

  /**
   * start runs the container's process through `starter`. The caller has already moved the
   * container to "starting". On failure the container is "exited" with StartError/128 and the
   * LaunchError is rethrown.
   */
  async start(launch: LaunchSpec, starter: ProcessStarter): Promise<void> {
    let running: RunningProcess;
    try {
      running = await starter(launch);
    } catch (err) {
      throw this.failStart(err instanceof Error ? err.message : String(err));
    }
    this.follow(running);
    this.transition(["starting"], "running");
  }

  /**
   * restore puts the container into a state a previous runtime recorded: created, exited, or
   * running (then `running` is the adopted process, followed to its exit).
   */
  restore(snapshot: ContainerSnapshot, running: RunningProcess | undefined): void {
    this.startedAt = snapshot.startedAt;
    this.finishedAt = snapshot.finishedAt;
    this.exitCode = snapshot.exitCode;
    this.reason = snapshot.reason;
    this.message = snapshot.message;
    this.leaderPid = snapshot.pid;
    if (snapshot.state === "created") return;
    if (snapshot.state === "exited" || !running) {
      this.transition(["created"], "exited");
      return;
    }
    this.lifecycle = "running";
    this.follow(running);
  }

  /** snapshot returns what a later runtime needs to restore this container. */
  snapshot(): ContainerSnapshot {
    return {
      state: this.lifecycle === "starting" ? "created" : this.lifecycle,
      ...(this.leaderPid !== undefined ? { pid: this.leaderPid } : {}),
      startedAt: this.startedAt,
      finishedAt: this.finishedAt,
      exitCode: this.exitCode,
      reason: this.reason,
      message: this.message,
    };
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
    const pgid = this.leaderPid;
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

  /** follow records the process's exit once it is known. */
  private follow(running: RunningProcess): void {
    this.leaderPid = running.pid;
    this.process = running;
    void running.exited.then((exit) => {
      this.finishedAt = exit.finishedAt;
      this.exitCode = exit.exitCode;
      this.reason = exit.reason;
      this.process = undefined;
      this.transition(["running"], "exited");
    });
  }

  private sendToGroup(pgid: number, signal: NodeJS.Signals): void {
    if (this.process?.isOurs && !this.process.isOurs()) {
      this.logger.warn("not signalling a container whose PID now names another process", { containerId: this.id, pid: pgid, signal });
      return;
    }
    try {
      signalGroup(pgid, signal);
    } catch (err) {
      this.logger.error("failed to signal container process group", { containerId: this.id, signal, err });
    }
  }
}
