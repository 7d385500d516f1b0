// One agent per state directory. The lock is a kernel flock(2) on `<stateDir>/agent.lock`, which
// the agent opens itself (0600, never through a symbolic link) and has flock(1) lock through an
// inherited descriptor: a flock lock belongs to the open file, so it stays with the agent's
// descriptor after flock(1) exits, and the kernel drops it when the agent ends in any way
// (kill -9 included), so a lock left by a killed agent is taken over without any staleness
// guesswork. The holder's PID is written to `<stateDir>/agent.pid` once the lock is held, for the
// error a second agent prints.
import { spawn } from "node:child_process";
import { constants } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../util/atomic-file.js";
import { systemClock, type Clock } from "../util/clock.js";
import { readSmallFile } from "../util/read-bounded-file.js";

/** LOCK_FILE and PID_FILE are the names of the lock and of the holder's PID in the state directory. */
export const LOCK_FILE = "agent.lock";
export const PID_FILE = "agent.pid";

/** flock(1)'s exit code when the lock is held elsewhere (-E); EX_TEMPFAIL, unused by the rest of flock. */
const BUSY_EXIT_CODE = 75;
/** How long acquire waits for flock(1) to answer either way. */
const ACQUIRE_TIMEOUT_MS = 10_000;
/** The descriptor number the lock file has in flock(1). */
const CHILD_FD = 3;

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
    private readonly file: FileHandle,
  ) {}

  /**
   * acquire takes the exclusive lock on dir (which must exist) without waiting: it rejects with
   * StateDirectoryBusyError when another process holds it, and with an Error naming the cause when
   * the lock cannot be taken at all (flock(1) missing, an unwritable directory, a symbolic link
   * or something else than a file at agent.lock).
   */
  static async acquire(dir: string, clock: Clock = systemClock): Promise<StateDirectoryLock> {
    const file = await openLockFile(join(dir, LOCK_FILE)).catch((err: unknown) => {
      throw new Error(`cannot lock the state directory ${dir}: ${err instanceof Error ? err.message : String(err)}`);
    });
    const outcome = await lockThrough(file, clock).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
    if (outcome === "held") {
      await writeFileAtomic(join(dir, PID_FILE), `${process.pid}\n`);
      return new StateDirectoryLock(dir, file);
    }
    await file.close();
    if (outcome instanceof Error) throw new Error(`cannot lock the state directory ${dir}: ${outcome.message}`);
    if (outcome.code === BUSY_EXIT_CODE) throw new StateDirectoryBusyError(dir, await readHolderPid(dir));
    throw new Error(`cannot lock the state directory ${dir}: ${outcome.stderr || `flock exited with code ${String(outcome.code)}`}`);
  }

  /** release gives the lock up by closing the locked file. Idempotent. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    await this.file.close();
  }
}

/** openLockFile opens (or makes, 0600) the lock file without following a symbolic link, and narrows an older 0644 one. */
async function openLockFile(path: string): Promise<FileHandle> {
  const file = await open(path, constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW, 0o600).catch((err: NodeJS.ErrnoException) => {
    throw err.code === "ELOOP" ? new Error(`${path} is a symbolic link: refusing to follow it`) : err;
  });
  try {
    const info = await file.stat();
    if (!info.isFile()) throw new Error(`${path} is not a regular file`);
    if ((info.mode & 0o077) !== 0) await file.chmod(0o600);
    return file;
  } catch (err) {
    await file.close();
    throw err;
  }
}

/** lockThrough runs flock(1) on the open file and resolves "held", or how flock(1) ended. */
function lockThrough(file: FileHandle, clock: Clock): Promise<"held" | { code: number | null; stderr: string }> {
  const child = spawn("flock", ["--exclusive", "--nonblock", "--conflict-exit-code", String(BUSY_EXIT_CODE), String(CHILD_FD)], {
    stdio: ["ignore", "ignore", "pipe", file.fd],
  });
  const answered = new AbortController();
  return new Promise<"held" | { code: number | null; stderr: string }>((resolve, reject) => {
    let stderr = "";
    clock.sleep(ACQUIRE_TIMEOUT_MS, answered.signal).then(
      () => {
        child.kill("SIGKILL");
        reject(new Error(`flock did not answer within ${ACQUIRE_TIMEOUT_MS / 1000}s`));
      },
      () => undefined,
    );
    child.once("error", (err) => {
      reject((err as NodeJS.ErrnoException).code === "ENOENT" ? new Error("flock(1) from util-linux is not installed") : err);
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString("utf8");
    });
    child.once("close", (code) => resolve(code === 0 ? "held" : { code, stderr: stderr.trim() }));
  }).finally(() => answered.abort());
}

/** readHolderPid reads the PID the holding agent recorded, or undefined when there is none to read. */
async function readHolderPid(dir: string): Promise<number | undefined> {
  const text = await readSmallFile(join(dir, PID_FILE), 64, { noFollow: true }).catch(() => "");
  const pid = Number(text.trim());
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}
