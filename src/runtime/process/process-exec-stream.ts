// Interactive exec for the process runtime (`kubectl exec`): the command runs with the
// container's env and working directory, in its own process group, as exec probes do, and, for a
// container with a world of its own (mount or network namespace, user, capabilities), inside
// that world through the supervisor's enter mode (see container-world.ts).
//
// A terminal (tty) comes from util-linux `script`, which runs the command on a new
// pseudo-terminal and copies between it and its own pipes; Node has no pty of its own. The
// terminal's size is set on the pty's slave side with `stty -F`, which also sends SIGWINCH to
// the command, as a resize on the master would.
import { spawn, type ChildProcess } from "node:child_process";
import { constants as osConstants } from "node:os";
import { readFile, readlink } from "node:fs/promises";
import { PassThrough, Writable } from "node:stream";
import type { Clock } from "../../util/clock.js";
import { RuntimeError, type ExecSession, type ExecStreamOptions, type TerminalSize } from "../runtime.js";
import { LaunchError, lookPath, prepareLaunch, spawnFailureMessage } from "./container-launch.js";

/** ExecContext is what a container gives its exec'd commands: its environment and working directory. */
export interface ExecContext {
  env: Record<string, string>;
  cwd: string;
}

/** Entering says how to run a command inside a container's world (see container-world.ts). */
export interface Entering {
  /** Where the container's view of the filesystem starts (/proc/<pid>/root, or "" for the host's). */
  root: string;
  /** argv is the command line that runs `file` with `argv` (argv[0] as given) in the container's world. */
  argv: (file: string, argv: readonly string[]) => string[];
}

/** PTY_LOOKUP_ATTEMPTS bounds the wait for `script` to open the pty (attempts of PTY_LOOKUP_INTERVAL_MS). */
const PTY_LOOKUP_ATTEMPTS = 100;
const PTY_LOOKUP_INTERVAL_MS = 20;

/** MAX_TERMINAL_DIMENSION bounds a resize (a terminal's rows or columns fit in 16 bits). */
const MAX_TERMINAL_DIMENSION = 0xffff;

/**
 * startProcessExec starts argv with the container's env and working dir and streams attached,
 * inside the container's world when `entering` is given. Rejects with a RuntimeError StartFailed
 * worded like runc when the working directory or the executable is missing (as the container
 * sees them), or when a tty is asked for and `script` is not installed.
 */
export async function startProcessExec(argv: readonly string[], context: ExecContext, options: ExecStreamOptions, clock: Clock, entering?: Entering): Promise<ExecSession> {
  const launch = await prepareLaunch(argv, context, context.cwd, entering?.root ?? "").catch((err: unknown) => {
    throw err instanceof LaunchError ? new RuntimeError("StartFailed", `OCI runtime exec failed: exec failed: ${err.message}: unknown`) : err;
  });
  const stdinMode = options.stdin ? "pipe" : "ignore";
  // Entering a container's world, the supervisor changes to the working directory inside it.
  const cwd = entering ? "/" : launch.cwd;
  const start = (command: string, args: readonly string[], argv0: string): ChildProcess =>
    spawn(command, args, { argv0, env: launch.env, cwd, stdio: [stdinMode, "pipe", "pipe"], detached: true });
  const inner = entering ? entering.argv(launch.file, argv) : [launch.file, ...argv.slice(1)];
  let child: ChildProcess;
  if (options.tty) {
    const scriptPath = await lookPath("script", process.env["PATH"] ?? "/usr/bin:/bin", "/").catch(() => {
      throw new RuntimeError("StartFailed", "exec with a tty needs util-linux `script`, which is not installed on this host");
    });
    // script runs its -c argument through $SHELL (else /bin/sh); -e returns the command's exit code.
    child = start(scriptPath, ["-q", "-e", "-f", "-c", shellCommand(inner[0] ?? launch.file, inner), "/dev/null"], scriptPath);
  } else {
    child = start(inner[0] ?? launch.file, inner.slice(1), entering ? (inner[0] ?? launch.file) : (argv[0] ?? launch.file));
  }
  return sessionOf(child, launch.file, options, clock);
}

function sessionOf(child: ChildProcess, file: string, options: ExecStreamOptions, clock: Clock): ExecSession {
  let exited = false;
  const exit = new Promise<number>((resolve, reject) => {
    child.once("error", (err: NodeJS.ErrnoException) => {
      exited = true;
      reject(new RuntimeError("StartFailed", `OCI runtime exec failed: exec failed: ${spawnFailureMessage(file, err.code)}: unknown`));
    });
    child.once("close", (code, signal) => {
      exited = true;
      resolve(code ?? 128 + (signal ? osConstants.signals[signal] : 0));
    });
  });
  // A command that exits without reading its stdin closes the pipe: later writes fail with EPIPE.
  child.stdin?.on("error", () => undefined);
  const stdin = child.stdin ?? discardingWritable();
  const stdout = child.stdout ?? endedStream();
  const stderr = child.stderr ?? endedStream();
  const resizer = options.tty ? new PtyResizer(child, clock) : undefined;
  if (resizer && options.initialSize) resizer.resize(options.initialSize);
  return {
    stdin,
    stdout,
    stderr,
    exit,
    resize: (size) => resizer?.resize(size),
    kill: () => {
      if (exited || child.pid === undefined) return;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // The group is gone already.
      }
    },
  };
}

/**
 * PtyResizer sets the size of the terminal `script` opened: it finds the pty's slave device
 * through script's child (its stdin), then applies sizes in order with `stty -F`. Only the
 * latest pending size is applied; sizes out of range are ignored.
 */
class PtyResizer {
  private ttyPath: Promise<string | undefined> | undefined;
  private pending: TerminalSize | undefined;
  private applying = false;

  constructor(
    private readonly child: ChildProcess,
    private readonly clock: Clock,
  ) {}

  resize(size: TerminalSize): void {
    if (!validDimension(size.width) || !validDimension(size.height)) return;
    this.pending = size;
    if (!this.applying) void this.applyPending();
  }

  private async applyPending(): Promise<void> {
    this.applying = true;
    try {
      this.ttyPath ??= this.findTty();
      const tty = await this.ttyPath;
      while (tty !== undefined && this.pending !== undefined) {
        const size = this.pending;
        this.pending = undefined;
        await runStty(tty, size);
      }
    } finally {
      this.applying = false;
    }
  }

  private async findTty(): Promise<string | undefined> {
    const pid = this.child.pid;
    if (pid === undefined) return undefined;
    for (let attempt = 0; attempt < PTY_LOOKUP_ATTEMPTS && this.child.exitCode === null; attempt++) {
      const children = await readFile(`/proc/${pid}/task/${pid}/children`, "utf8").catch(() => "");
      const first = children.trim().split(/\s+/)[0];
      if (first) {
        const target = await readlink(`/proc/${first}/fd/0`).catch(() => "");
        if (target.startsWith("/dev/pts/")) return target;
      }
      await this.clock.sleep(PTY_LOOKUP_INTERVAL_MS);
    }
    return undefined;
  }
}

function validDimension(n: number): boolean {
  return Number.isInteger(n) && n > 0 && n <= MAX_TERMINAL_DIMENSION;
}

/** runStty sets rows and columns of the terminal at ttyPath; failures (the command exited) are ignored. */
function runStty(ttyPath: string, size: TerminalSize): Promise<void> {
  return new Promise((resolve) => {
    const stty = spawn("stty", ["-F", ttyPath, "rows", String(size.height), "cols", String(size.width)], { stdio: "ignore" });
    stty.once("error", () => resolve());
    stty.once("close", () => resolve());
  });
}

/** shellCommand quotes the resolved file and the arguments for `sh -c` so none is re-split or expanded. */
export function shellCommand(file: string, argv: readonly string[]): string {
  return ["exec", file, ...argv.slice(1)].map(shellQuote).join(" ");
}

function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

function discardingWritable(): Writable {
  return new Writable({ write: (_chunk, _encoding, done) => done() });
}

function endedStream(): PassThrough {
  const stream = new PassThrough();
  stream.end();
  return stream;
}
