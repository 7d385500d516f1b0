// Running a container under the probelet-supervisor helper (native/supervisor.c), which reads
// its output into the CRI log and records its exit, so that the container outlives the agent.
// A later runtime over the same state directory adopts it (adoptSupervisedProcess): PIDs are
// checked against the start time recorded at start, so a recycled PID is never taken for ours.
import type { Mount } from "../runtime.js";
import { spawn } from "node:child_process";
import { constants as fsConstants, watch, type FSWatcher } from "node:fs";
import { access, readdir, readFile, rm, stat } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { errnoText } from "../../probe/host-command.js";
import { IN_BACKGROUND, type Clock } from "../../util/clock.js";
import type { Logger } from "../../util/logger.js";
import { readProcStatSync } from "../../util/proc-stat.js";
import { LaunchError, START_ERROR_PREFIX, spawnFailureMessage, type LaunchSpec } from "./container-launch.js";
import type { ContainerWorld } from "./container-world.js";
import type { ProcessExit, RunningProcess } from "./container-process.js";
import { exitReason } from "./process-group.js";
import { encodeSupervisorSpec, MAX_STATE_FILE_BYTES, parseExitRecord, parseSupervisorReply } from "./supervisor-protocol.js";

/** UNKNOWN_EXIT_CODE and UNKNOWN_EXIT_REASON are containerd's values for an exit nobody saw (internal/cri/server/restart.go). */
export const UNKNOWN_EXIT_CODE = 255;
/** UNKNOWN_EXIT_REASON: see UNKNOWN_EXIT_CODE. */
export const UNKNOWN_EXIT_REASON = "Unknown";

/**
 * ADOPTED_POLL_MS is how often an adopted container (not our child) is checked for a supervisor
 * that died without recording the exit; a recorded exit is noticed at once (directory watch).
 */
export const ADOPTED_POLL_MS = 1000;

/** REOPEN_WAIT_MS bounds the wait for a supervisor to open its log again after SIGHUP (checked every REOPEN_POLL_MS). */
export const REOPEN_WAIT_MS = 2000;
const REOPEN_POLL_MS = 10;

/** SUPERVISOR_REPLY_TIMEOUT_MS bounds the wait for the supervisor's answer. */
const SUPERVISOR_REPLY_TIMEOUT_MS = 10_000;
const MAX_REPLY_BYTES = 256;

/** SUPERVISOR_PATH_ENV names the environment variable that overrides where the supervisor helper is. */
export const SUPERVISOR_PATH_ENV = "PROBELET_SUPERVISOR";

/**
 * defaultSupervisorPath is $PROBELET_SUPERVISOR when set, else build/probelet-supervisor in the
 * package (this file runs from dist/src/runtime/process/).
 */
export function defaultSupervisorPath(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env[SUPERVISOR_PATH_ENV];
  if (configured) return configured;
  return fileURLToPath(new URL("../../../../build/probelet-supervisor", import.meta.url));
}

/** supervisorAvailable tells whether the supervisor helper is an executable regular file. */
export async function supervisorAvailable(path: string = defaultSupervisorPath()): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false;
    await access(path, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** ProcessIdentity names a process beyond its PID: its start time in clock ticks since boot. */
export interface ProcessIdentity {
  pid: number;
  /** /proc/<pid>/stat field 22; 0 when it could not be read (the process is then never ours). */
  startTicks: number;
}

/** SupervisedProcess is a running container with the identities needed to adopt it later. */
export interface SupervisedProcess extends RunningProcess {
  leader: ProcessIdentity;
  supervisor: ProcessIdentity;
}

/** SupervisedProcessOptions configure one supervised start. */
export interface SupervisedProcessOptions {
  /** The supervisor binary. */
  binary: string;
  /** Absolute log file path; "" discards the output. */
  logPath: string;
  /** Where the supervisor records the exit (removed first if a stale one is there). */
  statePath: string;
  maxLineSize: number;
  /** Bind mounts the supervisor makes in the container's own mount namespace. */
  mounts?: readonly Mount[];
  /** The pod's network namespace file the container joins; none: the agent's network. */
  netns?: string;
  /** The user, capabilities and no_new_privs the container runs with. */
  world?: ContainerWorld;
  /** Bounds the wait for the supervisor's answer; gives an exit nobody recorded its time. */
  clock: Clock;
  /** Aborted when the runtime closes: from then on the supervisor no longer keeps Node alive. */
  stop: AbortSignal;
  /**
   * Called with the supervisor's identity once it runs and before it gets the spec (so before the
   * container exists): recording it closes the window in which a killed agent would leave a
   * container nobody knows.
   */
  onSpawn?: (supervisor: ProcessIdentity) => Promise<void>;
  logger: Logger;
}

/** identify reads a process's start time; startTicks is 0 when it is already gone. */
export function identify(pid: number): ProcessIdentity {
  const stat = readProcStatSync(`/proc/${pid}/stat`);
  const ticks = stat?.num(22);
  return { pid, startTicks: ticks !== undefined && Number.isFinite(ticks) ? ticks : 0 };
}

/** stillRuns tells whether `identity` names a live (non-zombie) process started at that time. */
export function stillRuns(identity: ProcessIdentity): boolean {
  if (identity.startTicks === 0) return false;
  const stat = readProcStatSync(`/proc/${identity.pid}/stat`);
  return stat !== undefined && stat.num(22) === identity.startTicks && stat.text(3) !== "Z";
}

/** isSameProcess is stillRuns without the zombie check: a zombie leader may still be signalled. */
function isSameProcess(identity: ProcessIdentity): boolean {
  if (identity.startTicks === 0) return false;
  return readProcStatSync(`/proc/${identity.pid}/stat`)?.num(22) === identity.startTicks;
}

/**
 * startSupervisedProcess starts the supervisor detached (its own session; once the agent is gone
 * it is nobody's child to reap), hands it the container spec and waits for its answer. Rejects
 * with a LaunchError worded as runc words it when the container cannot start.
 */
export async function startSupervisedProcess(launch: LaunchSpec, options: SupervisedProcessOptions): Promise<SupervisedProcess> {
  const spec = encodeSupervisorSpec({ launch, logPath: options.logPath, statePath: options.statePath, maxLineSize: options.maxLineSize, ...(options.mounts ? { mounts: options.mounts } : {}), ...(options.netns !== undefined ? { netns: options.netns } : {}), ...(options.world ? { world: options.world } : {}) });
  await rm(options.statePath, { force: true });
  const child = spawn(options.binary, [], { stdio: ["pipe", "pipe", "ignore"], detached: true });
  const childExited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const supervisor = identify(child.pid ?? 0);
  if (child.pid !== undefined) await options.onSpawn?.(supervisor);
  const answered = new AbortController();
  const replyText = await new Promise<string>((resolve) => {
    let text = "";
    const done = (): void => {
      answered.abort();
      resolve(text);
    };
    void options.clock.sleep(SUPERVISOR_REPLY_TIMEOUT_MS, answered.signal).then(() => {
      if (answered.signal.aborted) return;
      child.kill("SIGKILL");
      done();
    });
    child.once("error", done);
    child.stdin?.on("error", () => undefined);
    child.stdout?.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      if (text.includes("\n") || text.length > MAX_REPLY_BYTES) done();
    });
    child.stdout?.once("close", done);
    child.stdin?.end(spec);
  });
  child.stdout?.destroy();
  if (options.stop.aborted) child.unref();
  else options.stop.addEventListener("abort", () => child.unref(), { once: true });
  const reply = parseSupervisorReply(replyText.slice(0, MAX_REPLY_BYTES));
  switch (reply.kind) {
    case "started": {
      const leader = identify(reply.pid);
      const exited = childExited.then(() => readExit(options.statePath, () => options.clock.now(), options.logger));
      return { pid: reply.pid, exited, leader, supervisor, isOurs: () => isSameProcess(leader), reopenLog: logReopener(supervisor, options.logPath, options.clock) };
    }
    case "exec-failed":
      throw new LaunchError(spawnFailureMessage(launch.file, reply.code));
    case "netns-failed":
      throw new LaunchError(`failed to join the pod's network namespace ${options.netns ?? ""}: ${reply.code}: ${errnoText(reply.code)}`);
    case "mount-failed":
      throw new LaunchError(`failed to mount volumes in the container's mount namespace: ${reply.code}: ${errnoText(reply.code)}`);
    case "user-failed":
      throw new LaunchError(`${START_ERROR_PREFIX}failed to apply the container's securityContext (user, groups, capabilities, no_new_privs): ${reply.code}: ${errnoText(reply.code)}`);
    case "chdir-failed":
      throw new LaunchError(`${START_ERROR_PREFIX}chdir to cwd ("${launch.cwd}") set in config.json failed: ${errnoText(reply.code)}`);
    case "log-failed":
      throw new LaunchError(`failed to create and open log file: ${reply.code}: ${errnoText(reply.code)}, open '${options.logPath}'`);
    case "invalid":
      child.kill("SIGKILL");
      throw new LaunchError(`container supervisor ${options.binary} failed: ${reply.detail}`);
  }
}

/**
 * adoptSupervisedProcess re-attaches a container a previous runtime started: its recorded exit
 * if the supervisor wrote one, else the running process (followed until its exit appears), else
 * containerd's unknown exit when neither the leader nor its supervisor is ours any more.
 * Following stops when `stop` aborts (the runtime closes).
 */
export async function adoptSupervisedProcess(
  leader: ProcessIdentity,
  supervisor: ProcessIdentity,
  statePath: string,
  logPath: string,
  clock: Clock,
  stop: AbortSignal,
  logger: Logger,
): Promise<ProcessExit | RunningProcess> {
  const now = (): number => clock.now();
  const recorded = await readExitFile(statePath);
  if (recorded) return recorded;
  if (!stillRuns(leader) && !stillRuns(supervisor)) return (await readExitFile(statePath)) ?? unknownExit(now());
  const exited = new Promise<ProcessExit>((resolve) => {
    // The exit file appears by rename: watching its directory notices it at once (and keeps the
    // event loop alive while the container is followed); the poll catches a supervisor that
    // died without writing one.
    const name = basename(statePath);
    let settled = false;
    const check = async (): Promise<void> => {
      // A poll that wakes after the exit was seen (and the record maybe removed) has nothing to say.
      if (settled || stop.aborted) return;
      const exit = (await readExitFile(statePath)) ?? (settled || stillRuns(leader) || stillRuns(supervisor) ? undefined : await readExit(statePath, now, logger));
      if (!exit || settled || stop.aborted) return;
      settled = true;
      watcher?.close();
      resolve(exit);
    };
    let watcher: FSWatcher | undefined;
    try {
      watcher = watch(dirname(statePath), (_event, file) => {
        if (file === name) void check();
      });
      watcher.on("error", () => watcher?.close());
    } catch (err) {
      logger.warn("cannot watch for a container's exit; polling only", { statePath, err });
    }
    stop.addEventListener("abort", () => watcher?.close(), { once: true });
    void (async () => {
      while (!settled && !stop.aborted) {
        await clock.sleep(ADOPTED_POLL_MS, stop, IN_BACKGROUND);
        await check();
      }
    })();
  });
  return { pid: leader.pid, exited, isOurs: () => isSameProcess(leader), leader, reopenLog: logReopener(supervisor, logPath, clock) };
}

/**
 * logReopener asks a supervisor to open its log path again (SIGHUP) and waits, at most
 * REOPEN_WAIT_MS, for the new file to appear there, as ReopenContainerLog returns once the new
 * file exists. A supervisor of an older protocol ignores the signal: the wait then fails.
 */
function logReopener(supervisor: ProcessIdentity, logPath: string, clock: Clock): () => Promise<void> {
  return async () => {
    if (logPath === "") return;
    if (!signalSupervisor(supervisor, "SIGHUP")) throw new Error("the container's supervisor is gone");
    for (let waited = 0; waited <= REOPEN_WAIT_MS; waited += REOPEN_POLL_MS) {
      if (await stat(logPath).then(() => true, () => false)) return;
      await clock.sleep(REOPEN_POLL_MS);
    }
    throw new Error(`the container's supervisor did not open ${logPath} again within ${REOPEN_WAIT_MS} ms`);
  };
}

/**
 * signalSupervisor sends `signal` to a container's supervisor when `identity` still names it
 * (never to a recycled PID); false when it is gone.
 */
export function signalSupervisor(identity: ProcessIdentity, signal: NodeJS.Signals): boolean {
  if (!stillRuns(identity)) return false;
  try {
    process.kill(identity.pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** childOf finds the live child of `parent` (a supervisor's container), if it has one. */
export async function childOf(parent: ProcessIdentity): Promise<ProcessIdentity | undefined> {
  if (!stillRuns(parent)) return undefined;
  for (const name of await readdir("/proc").catch(() => [] as string[])) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readProcStatSync(`/proc/${name}/stat`);
    if (stat?.num(4) === parent.pid && stat.text(3) !== "Z") return identify(Number(name));
  }
  return undefined;
}

/** readExit reads the exit a finished supervisor recorded; a missing record is an unknown exit. */
async function readExit(statePath: string, now: () => number, logger: Logger): Promise<ProcessExit> {
  const exit = await readExitFile(statePath);
  if (exit) return exit;
  logger.warn("container supervisor ended without recording the exit", { statePath });
  return unknownExit(now());
}

/** readExitFile reads and parses a state file; undefined when there is none (yet) or it is unreadable. */
export async function readExitFile(statePath: string): Promise<ProcessExit | undefined> {
  const text = await readFile(statePath, "utf8").catch(() => undefined);
  const record = text === undefined ? undefined : parseExitRecord(text.slice(0, MAX_STATE_FILE_BYTES));
  return record && { exitCode: record.exitCode, reason: exitReason(record.exitCode), finishedAt: record.finishedAt };
}

function unknownExit(finishedAt: number): ProcessExit {
  return { exitCode: UNKNOWN_EXIT_CODE, reason: UNKNOWN_EXIT_REASON, finishedAt };
}
