// The child_process fallback of HostCommandRunner, used when the C spawner helper is not built
// (or keeps dying). Same process discipline as the helper (see host-command.ts), at a higher
// CPU price: Node forks its whole process from the event loop for every command.
import { spawn, type ChildProcess } from "node:child_process";
import { constants } from "node:os";
import { stat } from "node:fs/promises";
import type { Clock } from "../util/clock.js";
import {
  CappedSink,
  POST_EXIT_DRAIN_MS,
  chdirErrorFor,
  execErrorFor,
  type HostBackend,
  type HostCommand,
  type HostOutcome,
} from "./host-command.js";

/** NodeSpawnBackend runs host commands with child_process.spawn, one process group each. */
export class NodeSpawnBackend implements HostBackend {
  /** One controller per running command, so close() can kill them all. */
  private readonly running = new Map<AbortController, Promise<unknown>>();

  constructor(private readonly clock: Clock) {}

  run(command: HostCommand): Promise<HostOutcome> {
    const own = new AbortController();
    const signal = command.signal ? AbortSignal.any([command.signal, own.signal]) : own.signal;
    const done = startCommand({ ...command, signal }, this.clock);
    this.running.set(
      own,
      done.then(
        () => this.running.delete(own),
        () => this.running.delete(own),
      ),
    );
    return done;
  }

  async close(): Promise<void> {
    const pending = [...this.running];
    for (const [controller] of pending) controller.abort();
    await Promise.all(pending.map(([, done]) => done));
  }
}

/** startCommand spawns one command in a new process group and settles once it is reaped. */
function startCommand(command: HostCommand, clock: Clock): Promise<HostOutcome> {
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      // detached: setsid() in the child, which makes it the leader of a new process group.
      child = spawn(command.argv[0]!, command.argv.slice(1), {
        env: command.env,
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
        ...(command.cwd !== undefined ? { cwd: command.cwd } : {}),
      });
    } catch (err) {
      reject(err);
      return;
    }
    const stdout = new CappedSink(command.capBytes);
    const stderr = new CappedSink(command.capBytes);
    child.stdout?.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk));
    const timers = new AbortController();
    const deadline = command.timeoutMs > 0 ? clock.monotonic() + command.timeoutMs : Infinity;
    let killedAs: "timeout" | "aborted" | undefined;
    let exitCode = 0;
    let settled = false;

    const killGroup = (): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // ESRCH: the group is already gone.
      }
    };
    const killAs = (why: "timeout" | "aborted"): void => {
      if (killedAs || child.exitCode !== null || child.signalCode !== null) return;
      killedAs = why;
      killGroup();
    };
    const closePipes = (): void => {
      child.stdout?.destroy();
      child.stderr?.destroy();
    };
    const onAbort = (): void => killAs("aborted");

    if (command.timeoutMs > 0) {
      void clock.sleep(command.timeoutMs, timers.signal).then(() => {
        if (!timers.signal.aborted) killAs("timeout");
      });
    }
    command.signal?.addEventListener("abort", onAbort, { once: true });
    if (command.signal?.aborted) onAbort();

    child.once("error", (err: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      timers.abort();
      command.signal?.removeEventListener("abort", onAbort);
      closePipes();
      void describeSpawnError(command, err).then(reject, reject);
    });
    child.once("exit", (code, signal) => {
      exitCode = code ?? 128 + (signal ? constants.signals[signal] : 0);
      // The leader is reaped: kill what is left of its group (no orphans), then collect output
      // until the pipes close, at most POST_EXIT_DRAIN_MS and not past the deadline.
      killGroup();
      if (killedAs) {
        closePipes();
        return;
      }
      const drainMs = Math.max(0, Math.min(POST_EXIT_DRAIN_MS, deadline - clock.monotonic()));
      void clock.sleep(drainMs, timers.signal).then(closePipes);
    });
    child.once("close", () => {
      if (settled) return;
      settled = true;
      timers.abort();
      command.signal?.removeEventListener("abort", onAbort);
      const streams = { stdout: stdout.bytes(), stderr: stderr.bytes() };
      resolve(killedAs ? { kind: killedAs, ...streams } : { kind: "exited", exitCode, ...streams });
    });
  });
}

/** describeSpawnError tells a missing working directory apart from a missing binary. */
async function describeSpawnError(command: HostCommand, err: NodeJS.ErrnoException): Promise<Error> {
  const code = err.code ?? "EIO";
  if (code === "ENOENT" && command.cwd !== undefined) {
    const cwdOk = await stat(command.cwd).then((s) => s.isDirectory(), () => false);
    if (!cwdOk) return chdirErrorFor(command, "ENOENT");
  }
  return execErrorFor(command, code);
}
