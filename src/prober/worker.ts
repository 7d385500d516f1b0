// Worker: one per (pod, container, probe type). Its loop (run) is separate from its single
// step (doProbe), which carries every rule in the kubelet's order
// (kubelet pkg/kubelet/prober/worker.go).
import { probeExtensionsOf } from "../api/probe-extensions.js";
import { isPodPhaseTerminal, isSidecarOf, probeOf } from "../api/pod-rules.js";
import type { Container, Pod, PodStatus, Probe } from "../api/types.js";
import type { ProbeOutcome } from "../probe/probe-result.js";
import type { StandingTcpProbe, StandingTcpSink } from "../probe/tcp-standing.js";
import type { Clock } from "../util/clock.js";
import type { Logger } from "../util/logger.js";
import type { WorkerSeries } from "./metrics.js";
import { findContainerStatus, type Prober, type ProberResult } from "./prober.js";
import type { ProbeType } from "./probe-type.js";
import type { Result } from "./results/cached-result.js";
import type { ResultsManager } from "./results/results-manager.js";
import type { StandingMember, StandingWorkers } from "./standing-workers.js";
import { TickScheduler, TickWait, type TickTarget } from "./tick-scheduler.js";
import { containerShouldKeepProbing, survivedManagerRestart, type WorkerFeatures } from "./worker-policy.js";

/** PodStatusProvider is what a worker needs from the status manager. */
export interface PodStatusProvider {
  getPodStatus(podUid: string): PodStatus | undefined;
  /**
   * watchPodStatuses, when the provider has it, calls `watcher` with a pod's UID whenever
   * getPodStatus(uid) starts to return something else (a new status object, or none); it returns
   * the unsubscribe. Only with it may a worker's tcpSocket probe stand on the native engine
   * (standing-workers.ts): the worker must hear of every change to check its gates again.
   */
  watchPodStatuses?(watcher: (podUid: string) => void): () => void;
}

/** ProbeRecord describes one finished probe, for history and watchers. */
export interface ProbeRecord {
  /** When the probe finished (ms since the epoch). */
  time: number;
  /** When the probe's step started, on the clock's monotonic scale (ms). */
  startedAt: number;
  probeType: ProbeType;
  containerId: string;
  result: Result;
  /** The handler's low-level outcome, when a handler ran. */
  outcome?: ProberResult["outcome"];
  error?: Error;
  durationMs: number;
  /** The consecutive count of `result` (kubelet resultRun) after this probe. */
  resultRun: number;
  /** The threshold that `resultRun` must reach for `result` to be written. */
  threshold: number;
}

/** WorkerContext is what the manager hands its workers: one object per probe type, shared. */
export interface WorkerContext {
  clock: Clock;
  prober: Prober;
  statusProvider: PodStatusProvider;
  /** The results cache for this worker's probe type. */
  results: ResultsManager;
  logger: Logger;
  /** When the probe manager was created (ms), for start jitter and restart preservation. */
  managerStart: number;
  /** Uniform random in [0, 1) for the start jitter. */
  random: () => number;
  features: WorkerFeatures;
  /** The manager's shared timer for every worker's waits; without it the worker has its own. */
  scheduler?: TickScheduler;
  /** Called after every finished probe that was not discarded. */
  onProbe?: (worker: Worker, record: ProbeRecord) => void;
  /** Called once when the worker has exited and cleaned up. */
  onExit: (worker: Worker) => void;
  /** Called when a running container's status has no `started` (liveness and readiness wait for it). */
  startedMissing?: (worker: Worker) => void;
  /**
   * The manager's standing workers; without it (a fake clock, a given prober, a status provider
   * that cannot be watched) no probe stands and the worker probes every tick itself.
   */
  standing?: StandingWorkers;
}

/** INITIAL_VALUES are the results written when a new container ID is first seen (kubelet newWorker). */
export const INITIAL_VALUES: Record<ProbeType, Result> = {
  readiness: "Failure",
  liveness: "Success",
  startup: "Unknown",
};

/** Worker periodically probes one container and writes results to its cache. */
export class Worker implements TickTarget, StandingTcpSink, StandingMember {
  /** The probe spec this worker was created with; spec updates are not picked up (kubelet). */
  readonly spec: Probe;
  /** Last container ID seen ("" before the first one); its cache entry is removed on exit. */
  containerId = "";
  /** The last probe result, for threshold counting. */
  lastResult: Result = "Unknown";
  /** How many consecutive times lastResult has been returned. */
  resultRun = 0;
  /** Set after a liveness failure or any startup threshold crossing; cleared by a new container ID. */
  onHold = false;
  /**
   * The opt-in fast period (probe extension fastPeriodMs), used until this worker writes a
   * Success for the current container; undefined without the extension (the kubelet's loop).
   */
  readonly fastPeriodMs: number | undefined;
  /** Whether a Success was written for the current container (ends fast probing). */
  private succeeded = false;

  /** Set by stop(); the loop exits at its next check. An in-flight probe is not aborted (kubelet). */
  private stopRequested = false;
  /**
   * The loop's pending wait: none, the start jitter's sleep (a manual trigger does not end it),
   * or the wait for the next tick (a trigger does). The loop holds no promise while it waits.
   */
  private waiting: "none" | "jitter" | "tick" = "none";
  /** The wait that ended, while the worker is queued to go on from it (resumeSoon). */
  private resumeWith: "none" | "jitter" | "tick" = "none";
  private readonly scheduler: TickScheduler;
  /** This worker's slot in the scheduler, reused for every wait. */
  private readonly tickWait: TickWait;
  private triggerPending = false;
  private launched = false;
  private exited = false;
  /** Resolvers of whenExited() promises, made only when someone waits. */
  private exitWaiters: (() => void)[] | undefined;
  /** The ticker (kubelet worker.go run): the probe's period in ms, its base and the next tick. */
  private readonly specPeriodMs: number;
  private period = 0;
  private tickBase = 0;
  private nextTick = 0;
  /**
   * The probe standing on the native engine, while this worker's ticker runs there: after a
   * steady Success, until a probe fails, the pod's status changes, stop() or a trigger.
   */
  private standing: StandingTcpProbe | undefined;
  /** The status the last step's gates passed with, when that step ended in a steady Success. */
  private standableStatus: PodStatus | undefined;
  /** startedAt of the current container instance, parsed once per container ID. */
  private startedAtMs = Number.NaN;
  private startedAtText: string | undefined;

  constructor(
    private readonly ctx: WorkerContext,
    readonly probeType: ProbeType,
    /** The pod as given to AddPod; never refreshed (kubelet keeps the original object). */
    readonly pod: Pod,
    readonly container: Container,
    /** Metric series for this worker, if metrics are enabled. */
    private readonly series?: WorkerSeries,
  ) {
    const spec = probeOf(container, probeType);
    if (!spec) throw new Error(`container ${container.name} has no ${probeType} probe`);
    this.spec = spec;
    this.specPeriodMs = (spec.periodSeconds ?? 10) * 1000;
    this.fastPeriodMs = probeExtensionsOf(pod, container, probeType)?.fastPeriodMs;
    this.scheduler = ctx.scheduler ?? new TickScheduler(ctx.clock);
    // Only tcpSocket and httpGet ticks may run a few ms late to share a wake-up: for them the
    // wake-up is a large part of a probe's cost. An exec spawn (or a gRPC connection) costs far
    // more than a wake-up, so their ticks keep the exact time of the kubelet's ticker.
    this.tickWait = new TickWait(this, spec.tcpSocket !== undefined || spec.httpGet !== undefined);
  }

  /** currentPeriodMs is the fast period until the first Success of this container, else periodSeconds. */
  private currentPeriodMs(periodMs: number): number {
    return this.fastPeriodMs !== undefined && !this.succeeded ? this.fastPeriodMs : periodMs;
  }

  /** initialValue is the result written for a newly seen container. */
  get initialValue(): Result {
    return INITIAL_VALUES[this.probeType];
  }

  /** stopped reports whether stop() has been called. */
  get stopped(): boolean {
    return this.stopRequested;
  }

  /** start launches the run loop once; whenExited() tells when it has exited. */
  start(): void {
    if (this.launched) return;
    this.launched = true;
    // kubelet worker.go: spread probes of pods found at agent start over the first period.
    // kubelet sleeps here without listening for triggers: one that arrives stays pending and
    // runs an extra probe right after the first.
    if (this.ctx.clock.now() - this.ctx.managerStart < this.specPeriodMs && !this.stopRequested) {
      this.waitFor("jitter", this.ctx.random() * this.currentPeriodMs(this.specPeriodMs));
      return;
    }
    this.startTicker();
  }

  /** whenExited resolves once the loop has exited and cleaned up. */
  whenExited(): Promise<void> {
    if (this.exited) return Promise.resolve();
    return new Promise<void>((resolve) => (this.exitWaiters ??= []).push(resolve));
  }

  /** stop asks the loop to exit; idempotent and non-blocking (kubelet stopCh with buffer 1). */
  stop(): void {
    this.stopRequested = true;
    this.standing?.end();
    this.endWait();
  }

  /** manualTrigger requests an immediate probe; extra triggers before it runs coalesce. */
  manualTrigger(): boolean {
    if (this.triggerPending) return false;
    this.triggerPending = true;
    if (this.waiting === "tick") this.endWait();
    else this.standing?.end();
    return true;
  }

  /** podStatusChanged: a standing probe ends so that the next step checks the gates again. @internal (StandingMember) */
  podStatusChanged(): void {
    this.standing?.end();
  }

  // The loop, after kubelet worker.go run: probe on every tick of a ticker (a tick that falls
  // due while probing is kept, later ones are dropped) or manual trigger, until told to stop or
  // until doProbe says to end. Each step below is one stretch of that loop between waits.

  /** startTicker starts the ticker from now and probes at once. */
  private startTicker(): void {
    this.period = this.currentPeriodMs(this.specPeriodMs);
    this.tickBase = this.ctx.clock.monotonic();
    this.nextTick = this.tickBase + this.period;
    this.probe();
  }

  /** probe runs one doProbe unless stop() was called. */
  private probe(): void {
    if (this.stopRequested) return this.exit();
    void this.doProbe().then((keepGoing) => this.afterProbe(keepGoing));
  }

  /** afterProbe moves the ticker on and waits for the next tick or trigger. */
  private afterProbe(keepGoing: boolean): void {
    if (!keepGoing || this.stopRequested) return this.exit();
    const { clock } = this.ctx;
    if (this.currentPeriodMs(this.specPeriodMs) !== this.period) {
      // Fast probing started (a new container) or ended (a Success): a new ticker from now.
      this.period = this.currentPeriodMs(this.specPeriodMs);
      this.tickBase = clock.monotonic();
      this.nextTick = this.tickBase + this.period;
    }
    const now = clock.monotonic();
    if (now >= this.nextTick) {
      // A tick fell due while probing: Go's ticker keeps one, later ones are dropped.
      this.nextTick = this.tickBase + (Math.floor((now - this.tickBase) / this.period) + 1) * this.period;
      return this.probe();
    }
    if (this.triggerPending) return this.afterTick();
    if (this.standableStatus !== undefined && this.stand()) return;
    this.waitFor("tick", this.nextTick - now);
  }

  /**
   * stand hands the ticker to the native engine when the probe can stand there: the gates passed
   * with the pod's current status object, so until it changes every tick would probe the same
   * target and a Success would change nothing but counts. Returns whether it stands.
   */
  private stand(): boolean {
    const status = this.standableStatus;
    this.standableStatus = undefined;
    const standing = this.ctx.standing;
    const podUid = this.pod.metadata.uid ?? "";
    if (standing === undefined || !standing.accepting || status === undefined || this.ctx.statusProvider.getPodStatus(podUid) !== status) return false;
    const schedule = { baseMs: this.tickBase, nextMs: this.nextTick, periodMs: this.period, coalesceMs: standing.coalesceMs };
    this.standing = this.ctx.prober.standTcp(this.probeType, status, this.container, schedule, this);
    if (this.standing === undefined) return false;
    standing.add(podUid, this);
    return true;
  }

  /** onStandingProbe: a standing probe finished; the rest of doProbe runs as for a probe of the loop. @internal (StandingTcpSink) */
  onStandingProbe(outcome: ProbeOutcome, startMs: number, endMs: number): void {
    const { clock, prober } = this.ctx;
    const probed = prober.resultOf(this.probeType, this.pod, this.container, outcome);
    this.finishProbe(probed, startMs, endMs - startMs, clock.now() - (clock.monotonic() - endMs));
  }

  /** onStandingEnded: the ticker is back; the loop goes on from the probe that finished last. @internal (StandingTcpSink) */
  onStandingEnded(nextTickMs: number): void {
    this.standing = undefined;
    this.ctx.standing?.delete(this.pod.metadata.uid ?? "", this);
    this.nextTick = nextTickMs;
    this.afterProbe(true);
  }

  /** afterTick: the tick came, or a manual trigger; the next probe runs now. */
  private afterTick(): void {
    if (this.triggerPending) {
      // Newest kubelet: a manual run resets the ticker to a full period from now.
      this.triggerPending = false;
      this.tickBase = this.ctx.clock.monotonic();
      this.nextTick = this.tickBase + this.period;
    } else {
      this.nextTick += this.period;
    }
    this.probe();
  }

  /** waitFor has the scheduler call onTick `ms` from now. */
  private waitFor(kind: "jitter" | "tick", ms: number): void {
    this.waiting = kind;
    this.scheduler.schedule(this.tickWait, this.ctx.clock.monotonic() + ms);
  }

  /** onTick: the scheduler reached this worker's wait. @internal (TickTarget) */
  onTick(): void {
    const kind = this.waiting;
    this.waiting = "none";
    // The loop goes on in a microtask, never inside the caller (the scheduler's turn, or a
    // stop() or trigger from status code), as an awaited wait did.
    if (kind === "none") return;
    this.resumeWith = kind;
    Worker.resumeSoon(this);
  }

  /** resume goes on from the wait that ended: the first probe after the jitter, or a tick's. */
  private resume(): void {
    const kind = this.resumeWith;
    this.resumeWith = "none";
    if (kind === "jitter") this.startTicker();
    else if (kind === "tick") this.afterTick();
  }

  /**
   * Workers whose loop goes on at the next microtask checkpoint, in the order their waits
   * ended. One microtask runs them all, so a tick or a stop makes no closure: a closure per
   * worker made closing 10,000 workers a burst of 10,000 live closures.
   */
  private static readonly resumeQueue: Worker[] = [];

  private static resumeSoon(worker: Worker): void {
    Worker.resumeQueue.push(worker);
    if (Worker.resumeQueue.length === 1) queueMicrotask(Worker.drainResumeQueue);
  }

  /** drainResumeQueue resumes every queued worker, those queued while it runs included. */
  private static readonly drainResumeQueue = (): void => {
    const queue = Worker.resumeQueue;
    let i = 0;
    try {
      for (; i < queue.length; i++) queue[i]!.resume();
    } finally {
      // After a throw, the workers behind the one that threw still go on, in a new microtask.
      queue.splice(0, Math.min(i + 1, queue.length));
      if (queue.length > 0) queueMicrotask(Worker.drainResumeQueue);
    }
  };

  /** endWait ends the current wait early (stop or trigger). */
  private endWait(): void {
    if (this.waiting === "none") return;
    this.scheduler.cancel(this.tickWait);
    this.onTick();
  }

  /** exit cleans up once and tells whoever waits in whenExited(). */
  private exit(): void {
    if (this.exited) return;
    this.exited = true;
    this.cleanup();
    const waiters = this.exitWaiters;
    this.exitWaiters = undefined;
    for (const resolve of waiters ?? []) resolve();
  }

  private cleanup(): void {
    if (this.containerId !== "") this.ctx.results.remove(this.containerId);
    this.series?.remove();
    this.ctx.onExit(this);
  }

  /**
   * doProbe runs one step; it returns whether the worker should keep going. Every rule below
   * follows kubelet worker.go doProbe, in its order.
   */
  async doProbe(signal?: AbortSignal): Promise<boolean> {
    try {
      return await this.step(signal);
    } catch (err) {
      // kubelet: a panicking probe is recovered; results stay unchanged and the worker goes on.
      this.ctx.logger.error("Probe step failed", { probeType: this.probeType, pod: this.pod.metadata.name, err });
      return true;
    }
  }

  private async step(signal: AbortSignal | undefined): Promise<boolean> {
    const { clock, results, logger } = this.ctx;
    const startTime = clock.monotonic();
    this.standableStatus = undefined;
    const podUid = this.pod.metadata.uid ?? "";

    const status = this.ctx.statusProvider.getPodStatus(podUid);
    if (!status) {
      if (logger.isEnabled("debug")) logger.debug("No status for pod", this.logFields());
      return true;
    }
    // Terminal pods are never probed again.
    if (isPodPhaseTerminal(status.phase)) {
      logger.debug("Pod is terminated, exiting probe worker", { ...this.logFields(), phase: status.phase });
      return false;
    }
    const c = findContainerStatus(status, this.container.name);
    if (!c) {
      if (logger.isEnabled("debug")) logger.debug("Probe target container not found", this.logFields());
      return true;
    }

    if (this.containerId !== c.containerID) {
      if (this.containerId !== "") results.remove(this.containerId);
      this.containerId = c.containerID ?? "";
      // kubernetes#137146: a sidecar that had started before the agent restarted gets a startup
      // Success at once, so the sync sees the pod's initialisation done and goes on to restart
      // a crashed main container (computeInitContainerActions reads this result).
      if (this.ctx.features.preserveStateOnRestart && this.probeType === "startup" && c.started === true && isSidecarOf(this.pod, this.container)) {
        results.set(this.containerId, "Success", podUid, true);
      }
      if (!survivedManagerRestart(c, this.ctx.managerStart, this.ctx.features)) results.set(this.containerId, this.initialValue, podUid, true);
      // A new container instance may be probed again (and fast again, with the extension).
      this.onHold = false;
      this.succeeded = false;
    }
    if (this.onHold) return true;

    if (!c.state?.running) {
      if (logger.isEnabled("debug")) logger.debug("Non-running container probed", this.logFields());
      if (this.containerId !== "") results.set(this.containerId, "Failure", podUid);
      return containerShouldKeepProbing(this.pod, this.container, c, this.ctx.features, status);
    }

    // A pod being deleted shuts liveness and startup down quietly; readiness keeps probing.
    if (this.pod.metadata.deletionTimestamp && (this.probeType === "liveness" || this.probeType === "startup")) {
      results.set(this.containerId, "Success", podUid);
      if (this.probeType === "startup") logger.info("Pod deletion requested before container has fully started", this.logFields());
      return false;
    }

    // Initial delay, in whole seconds since the container started (truncated, as the kubelet does).
    if (this.startedAtText !== c.state.running.startedAt) {
      this.startedAtText = c.state.running.startedAt;
      this.startedAtMs = Date.parse(this.startedAtText ?? "");
    }
    const sinceStart = Number.isNaN(this.startedAtMs) ? 0 : Math.trunc((clock.now() - this.startedAtMs) / 1000);
    if (sinceStart < (this.spec.initialDelaySeconds ?? 0)) return true;

    // Startup gating: liveness/readiness wait for started; startup stops once started. A status
    // without `started` is not started, as in the kubelet (worker.go: Started nil or false).
    if (c.started === true) {
      if (this.probeType === "startup") return true;
    } else if (this.probeType !== "startup") {
      if (c.started === undefined) this.ctx.startedMissing?.(this);
      return true;
    }

    const probed = await this.ctx.prober.probe(this.probeType, this.pod, status, this.container, this.containerId, signal);
    if (probed.error) return true; // The probe could not run: discard (kubelet prober error path).
    this.finishProbe(probed, startTime, clock.monotonic() - startTime, clock.now());
    // A steady Success of a tcpSocket probe may stand on the engine until the status changes.
    if (probed.result === "Success" && this.resultRun >= (this.spec.successThreshold ?? 1) && !this.onHold && this.spec.tcpSocket !== undefined && this.ctx.standing !== undefined) {
      this.standableStatus = status;
    }
    return true;
  }

  /**
   * finishProbe is the rest of doProbe once a probe has a result: metrics, the threshold run, the
   * record and the cache write (kubelet worker.go doProbe, after the probe call).
   */
  private finishProbe(probed: ProberResult, startTime: number, durationMs: number, time: number): void {
    const { results } = this.ctx;
    const podUid = this.pod.metadata.uid ?? "";
    this.series?.record(probed.result, durationMs / 1000);

    if (this.lastResult === probed.result) {
      this.resultRun++;
    } else {
      this.lastResult = probed.result;
      this.resultRun = 1;
    }
    const threshold = probed.result === "Failure" ? (this.spec.failureThreshold ?? 3) : (this.spec.successThreshold ?? 1);
    if (this.ctx.onProbe !== undefined) {
      // Two literals rather than a spread of the optional outcome: same fields in the same order.
      const { probeType, containerId, resultRun } = this;
      const record: ProbeRecord = probed.outcome
        ? { time, startedAt: startTime, probeType, containerId, result: probed.result, outcome: probed.outcome, durationMs, resultRun, threshold }
        : { time, startedAt: startTime, probeType, containerId, result: probed.result, durationMs, resultRun, threshold };
      this.ctx.onProbe(this, record);
    }
    if ((probed.result === "Failure" || probed.result === "Success") && this.resultRun < threshold) return;

    results.set(this.containerId, probed.result, podUid);
    if (probed.result === "Success") this.succeeded = true;
    if ((this.probeType === "liveness" && probed.result === "Failure") || this.probeType === "startup") {
      // Hold until the container is replaced: no exec into a dying container (k8s #21751); a
      // startup probe runs at most until its first threshold crossing (k8s #117153).
      this.onHold = true;
      this.resultRun = 0;
    }
  }


  /** logFields names this worker's probe in log lines. */
  private logFields(): Record<string, unknown> {
    return { probeType: this.probeType, pod: this.pod.metadata.name, podUID: this.pod.metadata.uid ?? "", containerName: this.container.name };
  }
}
