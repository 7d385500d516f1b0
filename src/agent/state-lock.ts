// One agent per state directory. The lock is a kernel flock(2) on `<stateDir>/agent.lock`, held
// by a flock(1) child whose command reads the agent's end of a pipe: when the agent exits in any
// way (kill -9 included) the pipe closes, the child exits and the kernel drops the lock, so a
// lock left by a killed agent is taken over without any staleness guesswork. The holder's PID is
// written to `<stateDir>/agent.pid` once the lock is held, for the error a second agent prints.
import { spawn, type ChildProcessByStdio } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { systemClock, type Clock } from "../util/clock.js";

/** LOCK_FILE and PID_FILE are the names of the lock and of the holder's PID in the state directory. */
export const LOCK_FILE = "agent.lock";
export const PID_FILE = "agent.pid";

/** flock(1)'s exit code when the lock is held elsewhere (-E); EX_TEMPFAIL, unused by the rest of flock. */
const BUSY_EXIT_CODE = 75;
/** What the lock child prints once it holds the lock. */
const HELD_MARK = "locked\n";
/** How long acquire waits for flock(1) to answer either way. */
const ACQUIRE_TIMEOUT_MS = 10_000;

/** StateDirectoryBusyError says another agent holds the state directory (pid when it is known). */
export class StateDirectoryBusyError extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number | undefined,
  ) {
    super(`the state directory ${dir} is in use by another probelet agent${pid === undefined ? "" : ` (PID ${pid})`}: stop it, or give this agent its own --state-dir`);
    this.name = "StateDirectoryBusyError";
  }
}

/** StateDirectoryLock is a held lock on one state directory; release() gives it up. */
export class StateDirectoryLock {
  private released = false;

  private constructor(
    /** The state directory the lock covers. */
    readonly dir: string,
    private readonly child: ChildProcessByStdio<Writable, Readable, Readable>,
  ) {}

  /**
   * acquire takes the exclusive lock on dir (which must exist) without waiting: it rejects with
   * StateDirectoryBusyError when another process holds it, and with an Error naming the cause when
   * the lock cannot be taken at all (flock(1) missing, an unwritable directory).
   */
  static async acquire(dir: string, clock: Clock = systemClock): Promise<StateDirectoryLock> {
    const child = spawn("flock", ["--exclusive", "--nonblock", "--conflict-exit-code", String(BUSY_EXIT_CODE), join(dir, LOCK_FILE), "sh", "-c", `printf '${HELD_MARK.trim()}\\n'; exec cat`], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    const answered = new AbortController();
    const outcome = await new Promise<"held" | { code: number | null; stderr: string } | Error>((resolve) => {
      let stdout = "";
      let stderr = "";
      clock.sleep(ACQUIRE_TIMEOUT_MS, answered.signal).then(
        () => resolve(new Error(`flock did not answer within ${ACQUIRE_TIMEOUT_MS / 1000}s`)),
        () => undefined,
      );
      child.once("error", (err) => {
        resolve((err as NodeJS.ErrnoException).code === "ENOENT" ? new Error("flock(1) from util-linux is not installed") : err);
      });
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString("utf8");
        if (stdout.startsWith(HELD_MARK)) resolve("held");
      });
      child.stderr.on("data", (chunk: Buffer) => {
        if (stderr.length < 4096) stderr += chunk.toString("utf8");
      });
      child.once("exit", (code) => resolve({ code, stderr: stderr.trim() }));
    });
    answered.abort();
    if (outcome === "held") {
      const lock = new StateDirectoryLock(dir, child);
      // The child lives as long as the agent but must not keep its event loop alive.
      child.unref();
      for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as unknown as { unref?: () => void }).unref?.();
      child.stdout.resume();
      await writeFile(join(dir, PID_FILE), `${process.pid}\n`, { mode: 0o644 });
      return lock;
    }
    child.kill("SIGKILL");
    if (outcome instanceof Error) throw new Error(`cannot lock the state directory ${dir}: ${outcome.message}`);
    if (outcome.code === BUSY_EXIT_CODE) throw new StateDirectoryBusyError(dir, await readHolderPid(dir));
    throw new Error(`cannot lock the state directory ${dir}: ${outcome.stderr || `flock exited with code ${String(outcome.code)}`}`);
  }

  /** release gives the lock up (the lock child exits once its input ends). Idempotent. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    const exited = new Promise<void>((resolve) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) resolve();
      else this.child.once("exit", () => resolve());
    });
    // Waiting for the exit must keep the event loop alive again.
    this.child.ref();
    this.child.stdin.end();
    await exited;
  }
}

/** readHolderPid reads the PID the holding agent recorded, or undefined when there is none to read. */
async function readHolderPid(dir: string): Promise<number | undefined> {
  const text = await readFile(join(dir, PID_FILE), "utf8").catch(() => "");
  const pid = Number(text.trim());
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}
