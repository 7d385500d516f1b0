// The agent under benchmark: a real Agent on a real ProcessRuntime, with a throwaway state
// directory, an event tape (performance.now() of every Event as the agent emits it), a hard
// deadline and signal handlers that still clean up every container process, and a close() that
// proves it: after it, no container process of this run may be alive.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, type AgentOptions } from "../../src/agent/agent.js";
import type { KubeEvent } from "../../src/apiserver/endpoints/host-interface.js";
import { ProcessRuntime } from "../../src/runtime/process/process-runtime.js";
import { startLocalApiServer } from "../../src/apiserver/local-api-server.js";

/** HarnessOptions configure the agent under test; everything else is fixed by the harness. */
export interface HarnessOptions extends Pick<AgentOptions, "clock" | "logger" | "resyncIntervalMs" | "backoff"> {
  /** Bench name, used for the state directory and messages. */
  name: string;
  /** Hard bound on the whole run (ms): past it the harness cleans up and exits with status 2. */
  deadlineMs: number;
}

/** EventStamp is one emitted (or re-counted) Event with the bench's monotonic time. */
export interface EventStamp {
  at: number;
  pod: string;
  reason: string;
  message: string;
}

/** CloseReport tells how long shutdown took and whether anything survived it. */
export interface CloseReport {
  closeMs: number;
  /** Containers the runtime still reported running after agent.close() (then force-stopped). */
  runningAfterAgentClose: number;
  /** Container PIDs still alive after runtime.close(): must be 0. */
  leftoverProcesses: number;
}

/** CLOSE_BOUND_MS bounds the emergency cleanup after a deadline or a signal. */
const CLOSE_BOUND_MS = 60_000;

/** AgentHarness owns one agent, its runtime and its state directory for one bench run. */
export class AgentHarness {
  /** Every Event in emission order; aggregated repeats (count + 1) appear again. */
  readonly tape: EventStamp[] = [];
  /** The same stamps' times indexed by pod and reason. */
  private readonly index = new Map<string, number[]>();
  private readonly eventListeners = new Set<(e: EventStamp) => void>();
  private readonly pids = new Set<number>();
  private closing: Promise<CloseReport> | undefined;
  private readonly watchdog: NodeJS.Timeout;
  private readonly onSignal = (signal: NodeJS.Signals): void => void this.abandon(`received ${signal}`, 130);

  private constructor(
    readonly agent: Agent,
    readonly runtime: ProcessRuntime,
    readonly stateDir: string,
    private readonly options: HarnessOptions,
  ) {
    agent.watchEvents(({ object }) => this.record(object));
    this.watchdog = setTimeout(() => void this.abandon(`run exceeded its ${options.deadlineMs / 1000} s bound`, 2), options.deadlineMs);
    process.once("SIGINT", this.onSignal);
    process.once("SIGTERM", this.onSignal);
  }

  /** create makes the state directory, the runtime and the agent, and starts the agent's resync loop. */
  static async create(options: HarnessOptions): Promise<AgentHarness> {
    const stateDir = await mkdtemp(join(tmpdir(), `probelet-bench-${options.name}-`));
    const runtime = new ProcessRuntime(options.clock ? { clock: options.clock } : {});
    const { name: _name, deadlineMs: _deadline, ...agentOptions } = options;
    const agent = new Agent({ api: startLocalApiServer(options.clock), ...agentOptions, runtime, stateDir });
    const harness = new AgentHarness(agent, runtime, stateDir, options);
    agent.start();
    return harness;
  }

  /** onEvent registers a listener for every Event stamp; returns an unsubscribe function. */
  onEvent(listener: (e: EventStamp) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  /** count returns how many times `reason` was emitted for a pod (aggregated repeats included). */
  count(pod: string, reason: string): number {
    return this.stamps(pod, reason).length;
  }

  /** stamps returns the times `reason` was emitted for a pod, in order. */
  stamps(pod: string, reason: string): readonly number[] {
    return this.index.get(`${pod}\u0000${reason}`) ?? [];
  }

  /**
   * close deletes every pod through the agent (graceful, with `graceSeconds`), then closes the
   * runtime (SIGKILL to anything left) and removes the state directory. Idempotent.
   */
  close(graceSeconds = 5): Promise<CloseReport> {
    this.closing ??= (async () => {
      const t0 = performance.now();
      clearTimeout(this.watchdog);
      await this.rememberPids();
      await this.agent.close(graceSeconds);
      const runningAfterAgentClose = (await this.runtime.listContainers({ state: "running" })).length;
      await this.runtime.close();
      await rm(this.stateDir, { recursive: true, force: true });
      process.off("SIGINT", this.onSignal);
      process.off("SIGTERM", this.onSignal);
      return { closeMs: performance.now() - t0, runningAfterAgentClose, leftoverProcesses: [...this.pids].filter(alive).length };
    })();
    return this.closing;
  }

  /** abandon is the emergency exit: bounded cleanup, a message, then process.exit(code). */
  private async abandon(why: string, code: number): Promise<void> {
    console.error(`${this.options.name}: ${why}; stopping every container and exiting`);
    const bound = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), CLOSE_BOUND_MS).unref());
    const outcome = await Promise.race([this.close(0).catch((err: unknown) => err), bound]);
    if (outcome === "timeout") console.error(`${this.options.name}: cleanup did not finish within ${CLOSE_BOUND_MS / 1000} s`);
    process.exit(code);
  }

  /** rememberPids notes the PIDs of the running containers, to check that none survives close(). */
  private async rememberPids(): Promise<void> {
    for (const c of await this.runtime.listContainers({ state: "running" })) {
      const pid = this.runtime.pidOf(c.id);
      if (pid !== undefined) this.pids.add(pid);
    }
  }

  private record(event: KubeEvent): void {
    const stamp: EventStamp = { at: performance.now(), pod: event.involvedObject.name ?? "", reason: event.reason, message: event.message };
    this.tape.push(stamp);
    const key = `${stamp.pod}\u0000${stamp.reason}`;
    const times = this.index.get(key);
    if (times) times.push(stamp.at);
    else this.index.set(key, [stamp.at]);
    for (const listener of this.eventListeners) listener(stamp);
  }
}

/** alive tells whether a PID still exists (signal 0 probes without sending anything). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
