// Worker: one per (pod, container, probe type). Its loop (run) is separate from its single
// step (doProbe), which carries every rule in the kubelet's order
// (kubelet pkg/kubelet/prober/worker.go).
import { probeExtensionsOf } from "../api/probe-extensions.js";
import type { Container, Pod, PodStatus, Probe } from "../api/types.js";
import type { Clock } from "../util/clock.js";
import type { Logger } from "../util/logger.js";
import type { WorkerSeries } from "./metrics.js";
import { findContainerStatus, type Prober, type ProberResult } from "./prober.js";
import type { ProbeType } from "./probe-type.js";
import type { Result } from "./results/result.js";
import type { ResultsManager } from "./results/results-manager.js";
import { TickScheduler, TickWait, type TickTarget } from "./tick-scheduler.js";
import { containerShouldKeepProbing, survivedManagerRestart, type WorkerFeatures } from "./worker-policy.js";

/** PodStatusProvider is the one method a worker needs from the status manager. */
export interface PodStatusProvider {
  getPodStatus(podUid: string): PodStatus | undefined;
}

/** ProbeRecord describes one finished probe, for history and watchers. */
export interface ProbeRecord {
  time: number;
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

/** WorkerContext is what the manager hands every worker. */
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
  /** Metric series for this worker, if metrics are enabled. */
  series?: WorkerSeries;
  /** Called after every finished probe that was not discarded. */
  onProbe?: (worker: Worker, record: ProbeRecord) => void;
  /** Called once when the worker has exited and cleaned up. */
  onExit: (worker: Worker) => void;
}

/** INITIAL_VALUES are the results written when a new container ID is first seen (kubelet newWorker). */
export const INITIAL_VALUES: Record<ProbeType, Result> = {
  readiness: "Failure",
  liveness: "Success",
  startup: "Unknown",
};

/** Worker periodically probes one container and writes results to its cache. */
export class Worker implements TickTarget {
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
  /** The current wait's resolver, while the loop waits for a tick (or the start jitter). */
  private resolveWait: (() => void) | undefined;
  /** Whether a manual trigger ends the current wait (the start jitter's sleep ignores triggers). */
  private triggerEndsWait = false;
  private readonly scheduler: TickScheduler;
  /** This worker's slot in the scheduler, reused for every wait. */
  private readonly tickWait: TickWait;
  private triggerPending = false;
  private done: Promise<void> | undefined;
  /** startedAt of the current container instance, parsed once per container ID. */
  private startedAtMs = Number.NaN;
  private startedAtText: string | undefined;

  constructor(
    private readonly ctx: WorkerContext,
    readonly probeType: ProbeType,
    /** The pod as given to AddPod; never refreshed (kubelet keeps the original object). */
    readonly pod: Pod,
    readonly container: Container,
  ) {
    const spec = probeType === "liveness" ? container.livenessProbe : probeType === "readiness" ? container.readinessProbe : container.startupProbe;
    if (!spec) throw new Error(`container ${container.name} has no ${probeType} probe`);
    this.spec = spec;
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

  /** start launches the run loop once; returns a promise that settles when the worker exits. */
  start(): Promise<void> {
    this.done ??= this.run();
    return this.done;
  }

  /** stop asks the loop to exit; idempotent and non-blocking (kubelet stopCh with buffer 1). */
  stop(): void {
    this.stopRequested = true;
    this.endWait();
  }

  /** manualTrigger requests an immediate probe; extra triggers before it runs coalesce. */
  manualTrigger(): boolean {
    if (this.triggerPending) return false;
    this.triggerPending = true;
    if (this.triggerEndsWait) this.endWait();
    return true;
  }

  /** run is the loop: start jitter, then doProbe on every tick or trigger until told to stop. */
  private async run(): Promise<void> {
    const { clock } = this.ctx;
    const periodMs = (this.spec.periodSeconds ?? 10) * 1000;
    try {
      // kubelet worker.go: spread probes of pods found at agent start over the first period.
      if (clock.now() - this.ctx.managerStart < periodMs) {
        // kubelet sleeps here without listening for triggers: one that arrives stays pending and
        // runs an extra probe right after the first.
        await this.sleepUnlessStopped(this.ctx.random() * this.currentPeriodMs(periodMs));
      }
      let period = this.currentPeriodMs(periodMs);
      let tickBase = clock.monotonic();
      let nextTick = tickBase + period;
      while (!this.stopped && (await this.doProbe())) {
        if (this.stopped) break;
        if (this.currentPeriodMs(periodMs) !== period) {
          // Fast probing started (a new container) or ended (a Success): a new ticker from now.
          period = this.currentPeriodMs(periodMs);
          tickBase = clock.monotonic();
          nextTick = tickBase + period;
        }
        const now = clock.monotonic();
        if (now >= nextTick) {
          // A tick fell due while probing: Go's ticker keeps one, later ones are dropped.
          nextTick = tickBase + (Math.floor((now - tickBase) / period) + 1) * period;
          continue;
        }
        if (await this.waitForTickOrTrigger(nextTick - now)) {
          // Newest kubelet: a manual run resets the ticker to a full period from now.
          tickBase = clock.monotonic();
          nextTick = tickBase + period;
        } else {
          nextTick += period;
        }
      }
    } finally {
      this.cleanup();
    }
  }

  /** sleepUnlessStopped sleeps `ms` (the start jitter); only stop() ends it early. */
  private async sleepUnlessStopped(ms: number): Promise<void> {
    if (this.stopRequested) return;
    await this.wait(ms, false);
  }

  /** waitForTickOrTrigger sleeps until the next tick; resolves true if a manual trigger woke it. */
  private async waitForTickOrTrigger(ms: number): Promise<boolean> {
    if (!this.triggerPending && !this.stopRequested) await this.wait(ms, true);
    const triggered = this.triggerPending;
    this.triggerPending = false;
    return triggered;
  }

  /**
   * wait resolves when the scheduler reaches now + ms, or earlier on stop() (and on a manual
   * trigger if `triggerEnds`): one promise per wait, no timer of its own.
   */
  private wait(ms: number, triggerEnds: boolean): Promise<void> {
    return new Promise<void>((resolve) => {
      this.resolveWait = resolve;
      this.triggerEndsWait = triggerEnds;
      this.scheduler.schedule(this.tickWait, this.ctx.clock.monotonic() + ms);
    });
  }

  /** onTick: the scheduler reached this worker's wait. @internal (TickTarget) */
  onTick(): void {
    const resolve = this.resolveWait;
    this.resolveWait = undefined;
    this.triggerEndsWait = false;
    resolve?.();
  }

  /** endWait ends the current wait early (stop or trigger). */
  private endWait(): void {
    if (this.resolveWait === undefined) return;
    this.scheduler.cancel(this.tickWait);
    this.onTick();
  }

  private cleanup(): void {
    if (this.containerId !== "") this.ctx.results.remove(this.containerId);
    this.ctx.series?.remove();
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
    const podUid = this.pod.metadata.uid ?? "";
    const fields = (): Record<string, unknown> => ({ probeType: this.probeType, pod: this.pod.metadata.name, podUID: podUid, containerName: this.container.name });

    const status = this.ctx.statusProvider.getPodStatus(podUid);
    if (!status) {
      if (logger.isEnabled("debug")) logger.debug("No status for pod", fields());
      return true;
    }
    // Terminal pods are never probed again.
    if (status.phase === "Failed" || status.phase === "Succeeded") {
      logger.debug("Pod is terminated, exiting probe worker", { ...fields(), phase: status.phase });
      return false;
    }
    const c = findContainerStatus(status, this.container.name);
    if (!c) {
      if (logger.isEnabled("debug")) logger.debug("Probe target container not found", fields());
      return true;
    }

    if (this.containerId !== c.containerID) {
      if (this.containerId !== "") results.remove(this.containerId);
      this.containerId = c.containerID ?? "";
      if (!survivedManagerRestart(c, this.ctx.managerStart, this.ctx.features)) results.set(this.containerId, this.initialValue, podUid);
      // A new container instance may be probed again (and fast again, with the extension).
      this.onHold = false;
      this.succeeded = false;
    }
    if (this.onHold) return true;

    if (!c.state?.running) {
      if (logger.isEnabled("debug")) logger.debug("Non-running container probed", fields());
      if (this.containerId !== "") results.set(this.containerId, "Failure", podUid);
      return containerShouldKeepProbing(this.pod, this.container, c, this.ctx.features);
    }

    // A pod being deleted shuts liveness and startup down quietly; readiness keeps probing.
    if (this.pod.metadata.deletionTimestamp && (this.probeType === "liveness" || this.probeType === "startup")) {
      results.set(this.containerId, "Success", podUid);
      if (this.probeType === "startup") logger.info("Pod deletion requested before container has fully started", fields());
      return false;
    }

    // Initial delay, in whole seconds since the container started (truncated, as the kubelet does).
    if (this.startedAtText !== c.state.running.startedAt) {
      this.startedAtText = c.state.running.startedAt;
      this.startedAtMs = Date.parse(this.startedAtText ?? "");
    }
    const sinceStart = Number.isNaN(this.startedAtMs) ? 0 : Math.trunc((clock.now() - this.startedAtMs) / 1000);
    if (sinceStart < (this.spec.initialDelaySeconds ?? 0)) return true;

    // Startup gating: liveness/readiness wait for started; startup stops once started.
    if (c.started === true) {
      if (this.probeType === "startup") return true;
    } else if (this.probeType !== "startup") {
      return true;
    }

    const probed = await this.ctx.prober.probe(this.probeType, this.pod, status, this.container, this.containerId, signal);
    if (probed.error) return true; // The probe could not run: discard (kubelet prober error path).
    const durationMs = clock.monotonic() - startTime;
    this.ctx.series?.record(probed.result, durationMs / 1000);

    if (this.lastResult === probed.result) {
      this.resultRun++;
    } else {
      this.lastResult = probed.result;
      this.resultRun = 1;
    }
    const threshold = probed.result === "Failure" ? (this.spec.failureThreshold ?? 3) : (this.spec.successThreshold ?? 1);
    this.ctx.onProbe?.(this, {
      time: clock.now(),
      probeType: this.probeType,
      containerId: this.containerId,
      result: probed.result,
      ...(probed.outcome ? { outcome: probed.outcome } : {}),
      durationMs,
      resultRun: this.resultRun,
      threshold,
    });
    if ((probed.result === "Failure" || probed.result === "Success") && this.resultRun < threshold) return true;

    results.set(this.containerId, probed.result, podUid);
    if (probed.result === "Success") this.succeeded = true;
    if ((this.probeType === "liveness" && probed.result === "Failure") || this.probeType === "startup") {
      // Hold until the container is replaced: no exec into a dying container (k8s #21751); a
      // startup probe runs at most until its first threshold crossing (k8s #117153).
      this.onHold = true;
      this.resultRun = 0;
    }
    return true;
  }

}
