// The contract shared by the two ways HostCommandRunner starts processes on this host: the
// long-lived C spawner helper (host-spawner-client.ts) and the child_process fallback
// (host-spawn.ts). Both promise the same process discipline:
// - argv is executed directly (never through a shell), PATH looked up in the command's env;
// - stdin is /dev/null; stdout and stderr are captured separately, each capped at capBytes
//   (the pipes keep being drained past the cap so the child never blocks, the bytes are dropped);
// - the command runs in a NEW process group; on timeout or abort the whole group gets SIGKILL
//   and the leader is reaped before the outcome is reported;
// - when the leader exits on its own, the rest of its group is killed too ("clean exec probes":
//   a probe never leaves orphans behind, e.g. `sh -c "sleep 10 & exit 1"`), the pipes are then
//   drained for at most POST_EXIT_DRAIN_MS and never past the deadline, and the leader's exit
//   status is the result. (A real container runtime leaves such background processes running
//   inside the container; on the host we prefer no leftovers.) Processes that leave the group
//   (setsid) are not tracked.
import { getSystemErrorMap } from "node:util";
import { lookPath } from "./look-path.js";

/** POST_EXIT_DRAIN_MS bounds how long output is still collected after the leader exited. */
export const POST_EXIT_DRAIN_MS = 1000;

/** HostCommand is one command to run on the host. */
export interface HostCommand {
  argv: readonly string[];
  /** The complete environment of the command. */
  env: Readonly<Record<string, string>>;
  /** Working directory; the agent's own when absent. */
  cwd?: string;
  /** Kill the group after this many milliseconds; 0 means no timeout. */
  timeoutMs: number;
  /** Per-stream capture cap in bytes. */
  capBytes: number;
  /** Kills the group early. */
  signal?: AbortSignal;
}

/**
 * HostOutcome is how a HostCommand ended; streams are already capped. `cpuSeconds` is the user +
 * system CPU of the command (and of the children it waited for), where the backend can tell.
 */
export type HostOutcome =
  | { kind: "exited"; exitCode: number; stdout: Buffer; stderr: Buffer; cpuSeconds?: number }
  | { kind: "timeout"; stdout: Buffer; stderr: Buffer }
  | { kind: "aborted"; stdout: Buffer; stderr: Buffer };

/** HostBackend starts host commands. It rejects only when a command could not be started. */
export interface HostBackend {
  run(command: HostCommand): Promise<HostOutcome>;
  /** close kills what still runs, reaps it and releases the backend's resources. */
  close(): Promise<void>;
}

/**
 * HostSpawnError means a command could not be started: missing or non-executable binary,
 * unusable working directory, invalid argv. `code` is the errno name ("ENOENT", "EACCES").
 */
export class HostSpawnError extends Error {
  override readonly name = "HostSpawnError";
  /** The errno name, or "EINVAL" for arguments rejected before spawning. */
  readonly code: string;

  constructor(message: string, code: string) {
    super(message);
    this.code = code;
  }
}

/** DEFAULT_COMMAND_PATH is the search path of a command whose env has no PATH (spawner.c's DEFAULT_PATH). */
export const DEFAULT_COMMAND_PATH = "/usr/local/bin:/usr/bin:/bin";

/** chdirErrorFor builds the error for a working directory the command cannot enter: `chdir /nope: no such file or directory`. */
export function chdirErrorFor(command: Pick<HostCommand, "cwd">, code: string): HostSpawnError {
  return new HostSpawnError(`chdir ${command.cwd ?? ""}: ${errnoText(code)}`, code);
}

/**
 * execErrorFor builds the error for a command that could not be executed, worded like Go's
 * os/exec so it reads like the kubelet's. A name with "/" gives `fork/exec /x/y: permission
 * denied`. A bare name is looked up again as Go's exec.LookPath does (directories this user
 * cannot search are skipped): `exec: "foo": executable file not found in $PATH` when no PATH
 * entry has it, else `fork/exec <found path>: <errno>`. Only called on a failed start.
 */
export async function execErrorFor(command: Pick<HostCommand, "argv" | "env" | "cwd">, code: string): Promise<HostSpawnError> {
  const file = command.argv[0] ?? "";
  if (file.includes("/")) return lookupErrorFor(file, code);
  const where = await lookPath(file, command.env["PATH"] ?? DEFAULT_COMMAND_PATH, command.cwd ?? process.cwd());
  return "found" in where ? lookupErrorFor(where.found, code) : lookupErrorFor(file, "ENOENT");
}

/**
 * lookupErrorFor words a failed Go-style lookup or start of `file`: for a bare name, Go's
 * ErrNotFound (`exec: "foo": executable file not found in $PATH`); for a path, `fork/exec
 * /x/y: <errno>`.
 */
export function lookupErrorFor(file: string, code: string): HostSpawnError {
  if (!file.includes("/")) return new HostSpawnError(`exec: "${file}": executable file not found in $PATH`, "ENOENT");
  return new HostSpawnError(`fork/exec ${file}: ${errnoText(code)}`, code);
}

/**
 * validateCommand rejects argv and env that cannot be passed to execve (empty argv, NUL bytes,
 * malformed variable names). An env object that passed is remembered, so a container's
 * environment is checked once, not on every probe.
 */
export function validateCommand(command: Pick<HostCommand, "argv" | "env" | "cwd">): HostSpawnError | undefined {
  if (command.argv.length === 0 || command.argv[0] === "") return new HostSpawnError("exec: no command", "EINVAL");
  if (command.argv.some((s) => s.includes("\0")) || command.cwd?.includes("\0")) {
    return new HostSpawnError("exec: argument contains a NUL byte", "EINVAL");
  }
  if (validEnvs.has(command.env)) return undefined;
  for (const [key, value] of Object.entries(command.env)) {
    if (key === "" || key.includes("=") || key.includes("\0") || value.includes("\0")) {
      return new HostSpawnError(`exec: invalid environment variable ${JSON.stringify(key)}`, "EINVAL");
    }
  }
  validEnvs.add(command.env);
  return undefined;
}

const validEnvs = new WeakSet<object>();

let errnoMessages: Map<number, [string, string]> | undefined;

/** errnoName maps a positive errno number to its name ("ENOENT"), or "E<n>" if unknown. */
export function errnoName(errno: number): string {
  errnoMessages ??= getSystemErrorMap();
  return errnoMessages.get(-Math.abs(errno))?.[0] ?? `E${errno}`;
}

/** errnoText is the lower-case strerror text for an errno name, as Go prints it. */
export function errnoText(code: string): string {
  errnoMessages ??= getSystemErrorMap();
  for (const [name, message] of errnoMessages.values()) if (name === code) return message;
  return code;
}

/** CappedSink collects up to `cap` bytes of a stream and silently drops the rest. */
export class CappedSink {
  private readonly chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly cap: number) {}

  push(chunk: Buffer): void {
    const room = this.cap - this.size;
    if (room <= 0) return;
    const kept = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.chunks.push(kept);
    this.size += kept.length;
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks, this.size);
  }
}
