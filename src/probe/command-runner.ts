// The seam between the exec handler and whatever runs commands "in a container": the
// host (process runtime, `probelet probe --exec`) or CRI ExecSync. Mirrors the kubelet's
// CommandRunner interface (pkg/kubelet/container).

/** CommandResult is what a finished command produced. Streams are already capped by the runner. */
export interface CommandResult {
  stdout: Buffer;
  stderr: Buffer;
  /** The exit status; 0 means success. */
  exitCode: number;
  /**
   * The CPU (user + system seconds) the command used, where the runner can measure it: the host
   * runner's spawner helper can (wait4); child_process.spawn and CRI ExecSync cannot.
   */
  cpuSeconds?: number;
}

/** CommandTimeoutError is thrown by a runner when the command outlived its timeout. */
export class CommandTimeoutError extends Error {
  override readonly name = "CommandTimeoutError";
  /** The timeout that was exceeded, in milliseconds. */
  readonly timeoutMs: number;
  /** The argv that timed out. */
  readonly argv: readonly string[];
  /** Output captured before the kill (stdout then stderr), already capped. */
  readonly partialOutput: Buffer;

  constructor(argv: readonly string[], timeoutMs: number, message: string, partialOutput: Buffer = Buffer.alloc(0)) {
    super(message);
    this.argv = argv;
    this.timeoutMs = timeoutMs;
    this.partialOutput = partialOutput;
  }
}

/** CommandRunOptions bound one command execution. */
export interface CommandRunOptions {
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * CommandRunner runs a command in a container. It resolves with the captured output and
 * exit code, rejects with CommandTimeoutError when the timeout fired, and rejects with any
 * other error when the command could not be run (unknown container, runtime failure).
 */
export interface CommandRunner {
  runInContainer(containerId: string, argv: readonly string[], options: CommandRunOptions): Promise<CommandResult>;
}
