// `probelet probe`: runs a probe spec once through the real Prober, or (--watch) through a real
// ProbeManager worker against a synthetic running container, printing every probe, every change
// of the cached result and the restarts the kubelet would perform.
import type { CommandRunner } from "../probe/command-runner.js";
import { HostCommandRunner } from "../probe/host-runner.js";
import { MemoryEventRecorder } from "../prober/event-recorder.js";
import { ProbeManager } from "../prober/manager.js";
import { Prober, type ProberOptions, type ProberResult } from "../prober/prober.js";
import type { ProbeType } from "../prober/probe-type.js";
import type { Result } from "../prober/results/cached-result.js";
import type { ResultUpdate } from "../prober/results/results-manager.js";
import type { ProbeRecord } from "../prober/worker.js";
import { systemClock, type Clock } from "../util/clock.js";
import { createLogger, silentLogger, type Logger } from "../util/logger.js";
import { parseProbeArgs, PROBE_HELP, type ProbeFlags } from "./args.js";
import {
  formatInitialText, formatReportText, reportJson, reportSucceeded, type ProbeReport, type ReportedEvent, type WatchDetails,
} from "./output.js";
import { readInputFile } from "./input-file.js";
import { decodeProbeFile, resolveProbe, type ProbeTarget } from "./probe-spec.js";
import { CONTAINER_NAME, syntheticPod, SyntheticPodStatus } from "../prober/synthetic-container.js";

/** CommandContext is the outside world of a CLI command (process streams and signals in main.ts). */
export interface CommandContext {
  stdout(text: string): void;
  stderr(text: string): void;
  readStdin(): Promise<string>;
  /** Aborts on SIGINT/SIGTERM: a watch then stops cleanly. */
  signal: AbortSignal;
  clock?: Clock;
}

/** runProbeCommand runs `probelet probe ARGS…` and resolves with the process exit code. */
export async function runProbeCommand(argv: readonly string[], ctx: CommandContext): Promise<number> {
  const flags = parseProbeArgs(argv);
  if (flags.help) {
    ctx.stdout(PROBE_HELP);
    return 0;
  }
  const base = flags.file === undefined ? undefined : decodeProbeFile(await readInputFile(flags.file, () => ctx.readStdin()), sourceName(flags.file));
  const target = resolveProbe(base, flags, flags.probeType);
  const host = target.probe.exec ? new HostCommandRunner() : undefined;
  const runner: CommandRunner = host ?? { runInContainer: () => Promise.reject(new Error("this probe has no exec handler")) };
  const logger = process.env["PROBELET_TRACE"] ? createLogger() : silentLogger;
  try {
    return flags.watch ? await watchProbe(target, flags, ctx, runner, logger) : await probeOnce(target, flags, ctx, runner, logger);
  } finally {
    await host?.close();
  }
}

/** probeOnce runs the probe one time; exit 0 for success or warning, 1 otherwise. */
async function probeOnce(target: ProbeTarget, flags: ProbeFlags, ctx: CommandContext, runner: CommandRunner, logger: Logger): Promise<number> {
  const clock = ctx.clock ?? systemClock;
  const recorder = new MemoryEventRecorder();
  const prober = new Prober({ runner, recorder, logger });
  const pod = syntheticPod(flags.probeType, target.probe);
  const status = new SyntheticPodStatus(target.podIP, flags.probeType, clock);
  const started = clock.monotonic();
  const probed = await prober.probe(flags.probeType, pod, status.current, pod.spec.containers[0]!, status.containerId, ctx.signal);
  const report = proberReport(flags.probeType, probed, clock.monotonic() - started, clock.now(), recorder.events.splice(0));
  ctx.stdout(flags.output === "json" ? reportJson(report) + "\n" : formatReportText(report));
  return reportSucceeded(report) ? 0 : 1;
}

/**
 * watchProbe runs a kubelet worker (no start jitter) until --count probes ran, a startup probe
 * succeeded, or ctx.signal aborts. When a liveness/startup result becomes Failure the container
 * is "restarted": a new container ID with startedAt now, on which the worker resumes.
 * Exit 0 when the last cached result is Success, else 1.
 */
function watchProbe(target: ProbeTarget, flags: ProbeFlags, ctx: CommandContext, runner: CommandRunner, logger: Logger): Promise<number> {
  return new ProbeWatch(target, flags, ctx, runner, logger).run();
}

/** PendingProbe is a probe the worker reported, held until the worker has written the cache. */
interface PendingProbe {
  record: ProbeRecord;
  events: ReportedEvent[];
  changedFrom?: Result;
}

/** ProbeWatch is one `probe --watch` session: a manager with one worker, and what it prints. */
class ProbeWatch {
  private readonly clock: Clock;
  private readonly probeType: ProbeType;
  private readonly recorder = new MemoryEventRecorder();
  private readonly status: SyntheticPodStatus;
  private readonly manager: ProbeManager;
  /** Results already published per container ID: the first one is the worker's initial value. */
  private readonly known = new Map<string, Result>();
  private pending: PendingProbe | undefined;
  private probes = 0;
  /** Set once the session decided to end: nothing is printed afterwards. */
  private done = false;
  private resolveDone: (code: number) => void = () => undefined;

  constructor(
    private readonly target: ProbeTarget,
    private readonly flags: ProbeFlags,
    private readonly ctx: CommandContext,
    runner: CommandRunner,
    logger: Logger,
  ) {
    this.clock = ctx.clock ?? systemClock;
    this.probeType = flags.probeType;
    this.status = new SyntheticPodStatus(target.podIP, this.probeType, this.clock);
    this.manager = new ProbeManager({
      statusProvider: this.status,
      prober: new WatchProber({ runner, recorder: this.recorder, logger }, this.clock, (probed, ms) => this.onErrored(probed, ms)),
      clock: this.clock,
      logger,
      random: () => 0, // jitter off: the first probe runs at once
      onProbe: (_worker, record) => this.onProbe(record),
    });
  }

  async run(): Promise<number> {
    const finished = new Promise<number>((resolve) => (this.resolveDone = resolve));
    const onAbort = (): void => this.finish(this.cachedExit());
    this.ctx.signal.addEventListener("abort", onAbort, { once: true });
    // The initial value is printed as such (formatInitialText), before the first probe.
    const unsubscribe = this.manager.resultsFor(this.probeType).subscribe((update) => this.onUpdate(update), { initial: true });
    if (this.ctx.signal.aborted) onAbort();
    else this.manager.addPod(syntheticPod(this.probeType, this.target.probe));
    const code = await finished;
    this.ctx.signal.removeEventListener("abort", onAbort);
    unsubscribe();
    await this.manager.close();
    return code;
  }

  private finish(code: number): void {
    if (this.done) return;
    this.done = true;
    this.resolveDone(code);
  }

  private cachedExit(): number {
    return this.manager.resultsFor(this.probeType).get(this.status.containerId) === "Success" ? 0 : 1;
  }

  private print(report: ProbeReport): void {
    this.ctx.stdout(this.flags.output === "json" ? reportJson(report) + "\n" : formatReportText(report));
  }

  private counted(): void {
    this.probes++;
    if (this.flags.count !== undefined && this.probes >= this.flags.count) this.finish(this.cachedExit());
  }

  /** onErrored reports a probe that could not run; the worker discards it (no record, no counting). */
  private onErrored(probed: ProberResult, durationMs: number): void {
    if (this.done) return;
    const report = proberReport(this.probeType, probed, durationMs, this.clock.now(), this.recorder.events.splice(0));
    report.cachedResult = this.manager.resultsFor(this.probeType).get(this.status.containerId) ?? "Unknown";
    report.watch = { containerId: this.status.containerId };
    this.print(report);
    this.counted();
  }

  private onProbe(record: ProbeRecord): void {
    if (this.done) return;
    // The worker writes the cache right after onProbe, synchronously: report once that is done.
    this.pending = { record, events: this.recorder.events.splice(0) };
    queueMicrotask(() => this.flush());
  }

  private onUpdate(update: ResultUpdate): void {
    const from = this.known.get(update.containerId);
    this.known.set(update.containerId, update.result);
    if (this.done) return;
    if (this.pending?.record.containerId === update.containerId && from !== undefined) this.pending.changedFrom = from;
    else if (from === undefined && this.flags.output === "text") this.ctx.stdout(formatInitialText(this.probeType, update.result, update.containerId));
  }

  private flush(): void {
    const current = this.pending;
    this.pending = undefined;
    if (!current || this.done) return;
    const { record } = current;
    const cached = this.manager.resultsFor(this.probeType).get(record.containerId) ?? "Unknown";
    const watch: WatchDetails = { containerId: record.containerId, run: record.resultRun, threshold: record.threshold, probeResult: record.result };
    if (current.changedFrom !== undefined) watch.changedFrom = current.changedFrom;
    if (cached === "Failure" && (this.probeType === "liveness" || this.probeType === "startup")) {
      // kubelet computePodActions: a Failure for this container ID kills it; restartPolicy Always restarts it.
      const message = `Container ${CONTAINER_NAME} failed ${this.probeType} probe, will be restarted`;
      const last = this.flags.count !== undefined && this.probes + 1 >= this.flags.count;
      watch.restart = last ? { message, restartCount: this.status.restartCount } : { message, ...this.status.restart() };
    }
    this.print({
      time: record.time,
      probeType: this.probeType,
      result: record.outcome?.result ?? "unknown",
      cachedResult: cached,
      output: record.outcome?.output ?? "",
      durationMs: record.durationMs,
      ...cpuOf(record.outcome),
      events: current.events,
      watch,
    });
    if (this.probeType === "startup" && cached === "Success") {
      if (this.flags.output === "text") this.ctx.stdout(STARTUP_DONE);
      this.finish(0);
      return;
    }
    this.counted();
  }
}

const STARTUP_DONE = "startup probe succeeded: the container has started; the kubelet never runs this startup probe again for it\n";

/** WatchProber reports the probes that errored: a kubelet worker discards them without a record. */
class WatchProber extends Prober {
  constructor(
    options: ProberOptions,
    private readonly clock: Clock,
    private readonly onErrored: (probed: ProberResult, durationMs: number) => void,
  ) {
    super(options);
  }

  override async probe(...args: Parameters<Prober["probe"]>): Promise<ProberResult> {
    const started = this.clock.monotonic();
    const probed = await super.probe(...args);
    if (probed.error) this.onErrored(probed, this.clock.monotonic() - started);
    return probed;
  }
}

/** proberReport turns one prober call into a report; an errored probe reports result "unknown". */
function proberReport(probeType: ProbeType, probed: ProberResult, durationMs: number, time: number, events: readonly { type: string; reason: string; message: string }[]): ProbeReport {
  const report: ProbeReport = {
    time,
    probeType,
    result: probed.error ? "unknown" : (probed.outcome?.result ?? "unknown"),
    cachedResult: probed.result,
    output: probed.outcome?.output ?? "",
    durationMs,
    ...cpuOf(probed.outcome),
    events: events.map(({ type, reason, message }) => ({ type, reason, message })),
  };
  if (probed.error) report.error = probed.error.message;
  return report;
}

/** cpuOf is the report's cpuMs field for an outcome whose command CPU was measured. */
function cpuOf(outcome: ProberResult["outcome"]): { cpuMs?: number } {
  return outcome?.cpuSeconds === undefined ? {} : { cpuMs: outcome.cpuSeconds * 1000 };
}

function sourceName(file: string): string {
  return file === "-" ? "<stdin>" : file;
}
