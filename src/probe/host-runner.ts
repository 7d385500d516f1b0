// HostCommandRunner: the CommandRunner that runs exec-probe commands on this host, for the
// local-process runtime and `probelet probe --exec`. The process discipline (direct argv, new
// process group, capped streams, group kill on timeout/abort/leader exit, reaping) is described
// in host-command.ts. Commands go through the long-lived C spawner helper when it is built
// (cheap vfork-style spawns off the event loop) and through child_process.spawn otherwise.
import { accessSync, constants as fsConstants } from "node:fs";
import { fileURLToPath } from "node:url";
import { systemClock, type Clock } from "../util/clock.js";
import { silentLogger, type Logger } from "../util/logger.js";
import { CommandTimeoutError, type CommandResult, type CommandRunOptions, type CommandRunner } from "./command-runner.js";
import { execTimeoutMessage, limitOutput } from "./exec.js";
import { validateCommand, type HostBackend, type HostCommand } from "./host-command.js";
import { NodeSpawnBackend } from "./host-spawn.js";
import { SpawnerHelperBackend } from "./host-spawner-client.js";
import { MAX_OUTPUT_BYTES } from "./probe-result.js";

/**
 * HostExecContext is where a container's commands run on the host: its env and working dir.
 * Treat `env` as immutable once handed over: runners cache its validation and encoding per
 * object, so return a new object when a container's environment changes.
 */
export interface HostExecContext {
  env: Record<string, string>;
  cwd?: string;
}

/** HostContextResolver maps a container ID to its HostExecContext (rejects for unknown IDs). */
export type HostContextResolver = (containerId: string) => HostExecContext | Promise<HostExecContext>;

/** HostRunOptions bound one run(): env and cwd default to the agent's own. */
export interface HostRunOptions {
  env?: Record<string, string>;
  cwd?: string;
  /** Kill the process group after this many milliseconds; 0 means never. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Per-stream cap in bytes (default MAX_OUTPUT_BYTES). */
  maxOutputBytes?: number;
}

/** SpawnerMode picks how processes are started: "auto" prefers the helper when it is built. */
export type SpawnerMode = "auto" | "helper" | "node";

/** HostCommandRunnerOptions configure a HostCommandRunner; every field is optional. */
export interface HostCommandRunnerOptions {
  resolveContext?: HostContextResolver;
  spawner?: SpawnerMode;
  /** Path of the helper binary (default: build/probelet-spawner in the package). */
  helperPath?: string;
  clock?: Clock;
  logger?: Logger;
}

/** HELPER_CRASH_LIMIT is how many helper deaths in a row make the runner fall back to spawn. */
export const HELPER_CRASH_LIMIT = 5;

/** defaultSpawnerPath is where scripts/build-native.sh puts the helper (from dist/src/probe). */
export function defaultSpawnerPath(): string {
  return fileURLToPath(new URL("../../../build/probelet-spawner", import.meta.url));
}

/**
 * agentContext is the default HostExecContext: a snapshot of the agent's own environment and
 * no cwd, so commands start in the agent's current working directory.
 */
export function agentContext(): HostExecContext {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  return { env };
}

let warnedNoHelper = false;

/**
 * HostCommandRunner runs commands on this host. runInContainer resolves the container's
 * context and calls run(); timeouts reject with CommandTimeoutError carrying the kubelet's
 * text, a command that cannot start rejects with HostSpawnError, an abort rejects with the
 * signal's reason. Call close() to end the helper (it also releases its children's CPU
 * accounting to this process).
 */
export class HostCommandRunner implements CommandRunner {
  private readonly resolveContext: HostContextResolver;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly helperPath: string;
  /** The agent's own context, captured on first use (reading process.env is not cheap). */
  private agent: HostExecContext | undefined;
  private backend: HostBackend | undefined;
  private helperCrashes = 0;
  private closed = false;

  constructor(private readonly options: HostCommandRunnerOptions = {}) {
    this.resolveContext = options.resolveContext ?? (() => this.agentContext());
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger;
    this.helperPath = options.helperPath ?? defaultSpawnerPath();
  }

  /** spawner reports which mechanism runs the next command ("helper" or "node"). */
  get spawner(): "helper" | "node" {
    return this.getBackend() instanceof SpawnerHelperBackend ? "helper" : "node";
  }

  /** runInContainer runs argv with the env and cwd the resolver gives for `containerId`. */
  async runInContainer(containerId: string, argv: readonly string[], options: CommandRunOptions): Promise<CommandResult> {
    const context = await this.resolveContext(containerId);
    return this.run(argv, { ...context, ...options });
  }

  /** run executes argv directly (no shell) in a new process group on this host. */
  async run(argv: readonly string[], options: HostRunOptions): Promise<CommandResult> {
    if (this.closed) throw new Error("host command runner is closed");
    const command: HostCommand = {
      argv,
      env: options.env ?? this.agentContext().env,
      timeoutMs: options.timeoutMs,
      capBytes: options.maxOutputBytes ?? MAX_OUTPUT_BYTES,
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    };
    const invalid = validateCommand(command);
    if (invalid) throw invalid;
    if (options.signal?.aborted) throw abortReason(options.signal);
    const outcome = await this.getBackend().run(command);
    this.helperCrashes = 0;
    switch (outcome.kind) {
      case "exited":
        return { stdout: outcome.stdout, stderr: outcome.stderr, exitCode: outcome.exitCode, ...(outcome.cpuSeconds !== undefined ? { cpuSeconds: outcome.cpuSeconds } : {}) };
      case "timeout": {
        const partial = limitOutput(outcome.stdout, outcome.stderr, command.capBytes);
        throw new CommandTimeoutError(argv, command.timeoutMs, execTimeoutMessage(argv, command.timeoutMs), partial);
      }
      case "aborted":
        throw abortReason(options.signal);
    }
  }

  /** close kills commands still running, reaps them and ends the helper. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    const backend = this.backend;
    this.backend = undefined;
    await backend?.close();
  }

  private agentContext(): HostExecContext {
    this.agent ??= agentContext();
    return this.agent;
  }

  private getBackend(): HostBackend {
    if (this.backend) return this.backend;
    const mode = this.options.spawner ?? "auto";
    if (mode !== "node" && this.helperCrashes < HELPER_CRASH_LIMIT && isExecutable(this.helperPath)) {
      this.backend = new SpawnerHelperBackend(this.helperPath, this.logger, () => this.onHelperCrash());
    } else {
      if (mode !== "node" && !warnedNoHelper) {
        warnedNoHelper = true;
        this.logger.warn("exec spawner helper unavailable; exec probes use child_process.spawn (more CPU per probe)", {
          helperPath: this.helperPath,
          hint: "run scripts/build-native.sh",
        });
      }
      this.backend = new NodeSpawnBackend(this.clock);
    }
    return this.backend;
  }

  private onHelperCrash(): void {
    this.helperCrashes++;
    if (this.helperCrashes >= HELPER_CRASH_LIMIT && this.backend instanceof SpawnerHelperBackend) {
      this.logger.warn("exec spawner helper keeps dying; falling back to child_process.spawn", { crashes: this.helperCrashes });
      this.backend = undefined;
    }
  }
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error) return reason;
  return new DOMException(reason === undefined ? "The operation was aborted" : String(reason), "AbortError");
}
