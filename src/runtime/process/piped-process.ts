// The fallback way to run a container process (no supervisor helper, or no state directory):
// the agent spawns it itself and reads its stdout and stderr through pipes into the CRI log.
// Such a container cannot outlive the agent: once the agent is gone its output has no reader.
// When the leader exits the rest of its group is killed too, and processes that left the group
// (setsid) lose their hold on the pipes after LOG_DRAIN_AFTER_EXIT_MS.
import { spawn, type ChildProcess } from "node:child_process";
import type { Clock } from "../../util/clock.js";
import type { Logger } from "../../util/logger.js";
import { LaunchError, spawnFailureMessage, type LaunchSpec } from "./container-launch.js";
import type { ProcessExit, RunningProcess } from "./container-process.js";
import { CriLogWriter } from "./cri-log-writer.js";
import { exitReason, exitStatus, signalGroup } from "./process-group.js";

/** LOG_DRAIN_AFTER_EXIT_MS bounds how long output is still read once the leader has exited. */
export const LOG_DRAIN_AFTER_EXIT_MS = 2000;

/** PipedProcessOptions say where the output goes and how time and trouble are reported. */
export interface PipedProcessOptions {
  containerId: string;
  /** Absolute log file path; "" discards the output. */
  logPath: string;
  clock: Clock;
  logger: Logger;
}

/**
 * startPipedProcess spawns the container in a new session and process group with its output
 * going to the log. Rejects with a LaunchError worded as runc words it when it cannot start.
 */
export async function startPipedProcess(launch: LaunchSpec, options: PipedProcessOptions): Promise<RunningProcess> {
  let writer: CriLogWriter;
  try {
    writer = await CriLogWriter.open(options.logPath, { clock: options.clock, logger: options.logger });
  } catch (err) {
    throw new LaunchError(`failed to create and open log file: ${(err as Error).message}`);
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
  if (spawnError || child.pid === undefined) {
    child.stdout?.destroy();
    child.stderr?.destroy();
    await writer.close();
    throw new LaunchError(spawnFailureMessage(launch.file, spawnError?.code));
  }
  if (child.stdout) writer.attach(child.stdout, "stdout");
  if (child.stderr) writer.attach(child.stderr, "stderr");
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once("exit", (code, signal) => void onLeaderExit(child, writer, code, signal, options).then(resolve));
  });
  return { pid: child.pid, exited, reopenLog: () => writer.reopen() };
}

/** onLeaderExit kills the rest of the group, drains the log (bounded) and reports the exit. */
async function onLeaderExit(child: ChildProcess, writer: CriLogWriter, code: number | null, signal: NodeJS.Signals | null, options: PipedProcessOptions): Promise<ProcessExit> {
  const { clock, logger, containerId } = options;
  const finishedAt = clock.now();
  if (child.pid !== undefined) {
    try {
      signalGroup(child.pid, "SIGKILL");
    } catch (err) {
      logger.error("failed to signal container process group", { containerId, signal: "SIGKILL", err });
    }
  }
  const drainBound = new AbortController();
  const drained = writer.streamsDone().then(() => drainBound.abort());
  await Promise.race([drained, clock.sleep(LOG_DRAIN_AFTER_EXIT_MS, drainBound.signal)]);
  if (!drainBound.signal.aborted) {
    logger.warn("container output still held open after exit; closing it", { containerId });
    writer.destroyStreams();
  }
  drainBound.abort();
  await writer.close().catch((err: unknown) => logger.error("closing container log failed", { containerId, err }));
  // The exit becomes visible only now, with the log complete (containerd also waits for the
  // task's IO before it reports the exit), but finishedAt is the time the leader exited.
  const exitCode = exitStatus(code, signal);
  return { exitCode, reason: exitReason(exitCode), finishedAt };
}
