// PodWorker: serialises every sync and the termination of one pod (kubelet pod_workers.go):
// requests that arrive while a sync runs coalesce into one more sync afterwards.
import type { Logger } from "../util/logger.js";
import type { PodRecord } from "../kuberuntime/pod-record.js";

/** PodWorkerHooks are what the worker calls; the agent supplies them. */
export interface PodWorkerHooks {
  sync(record: PodRecord): Promise<unknown>;
  terminate(record: PodRecord, gracePeriodSeconds: number): Promise<void>;
  /** Called once after termination has finished. */
  terminated(record: PodRecord): void;
  /** A termination already running must honour a shorter grace period (kubelet pod_workers UpdatePod). */
  shorten(record: PodRecord, gracePeriodSeconds: number): void;
  /** Waits before a failed termination is tried again (the agent's clock). */
  retryDelay(): Promise<void>;
  logger: Logger;
}

/**
 * TERMINATE_ATTEMPTS bounds how often a failing termination is tried (the kubelet retries
 * SyncTerminatingPod until it succeeds; a runtime that refuses for longer leaves the pod's
 * leftovers to container garbage collection once the pod is forgotten).
 */
export const TERMINATE_ATTEMPTS = 5;

/** PodWorker owns one pod's reconcile loop. */
export class PodWorker {
  private dirty = false;
  private running: Promise<void> | undefined;
  /** Set once deletion was requested: the grace period to use. */
  private terminateWith: number | undefined;
  /** True once termination has completed; no further syncs run. */
  finished = false;
  /** Failed termination attempts so far. */
  private terminateFailures = 0;

  constructor(
    readonly record: PodRecord,
    private readonly hooks: PodWorkerHooks,
  ) {}

  /** queueSync asks for a sync; coalesces with one already queued. */
  queueSync(): void {
    if (this.finished) return;
    this.dirty = true;
    this.running ??= this.loop();
  }

  /**
   * terminate asks for graceful termination with the given grace period; a shorter period given
   * later wins (a second signal forces an immediate kill). Resolves when the pod is gone.
   */
  terminate(gracePeriodSeconds: number): Promise<void> {
    if (this.terminateWith === undefined) {
      this.terminateWith = gracePeriodSeconds;
    } else if (gracePeriodSeconds < this.terminateWith) {
      this.terminateWith = gracePeriodSeconds;
      if (this.running && !this.finished) this.hooks.shorten(this.record, gracePeriodSeconds);
    }
    this.queueSync();
    return this.idle();
  }

  /** terminating reports whether deletion was requested. */
  get terminating(): boolean {
    return this.terminateWith !== undefined;
  }

  /** idle resolves when no sync is running or queued. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /**
   * loop runs syncs while some are asked for. It forgets itself in the same step as its last
   * check of `dirty` (the finally below runs before the promise settles), so a sync asked for
   * right after the last one always starts a new loop and is never lost. Every pass awaits a
   * hook, so the finally never runs before queueSync has stored the promise.
   */
  private async loop(): Promise<void> {
    try {
      while (this.dirty && !this.finished) {
        this.dirty = false;
        if (this.terminateWith !== undefined) {
          await this.terminateOnce(this.terminateWith);
          if (this.finished) return;
          continue;
        }
        try {
          await this.hooks.sync(this.record);
        } catch (err) {
          this.hooks.logger.error("Error syncing pod, skipping", { pod: this.record.pod.metadata.name, podUID: this.record.pod.metadata.uid, err });
        }
      }
    } finally {
      this.running = undefined;
    }
  }

  /**
   * terminateOnce runs one termination attempt. A failed one (a runtime call that timed out or
   * was refused) is tried again after retryDelay, as the kubelet's pod workers retry
   * SyncTerminatingPod; after TERMINATE_ATTEMPTS the pod is forgotten all the same, and container
   * garbage collection removes what the runtime still holds.
   */
  private async terminateOnce(grace: number): Promise<void> {
    const fields = { pod: this.record.pod.metadata.name, podUID: this.record.pod.metadata.uid };
    try {
      await this.hooks.terminate(this.record, grace);
    } catch (err) {
      this.terminateFailures++;
      if (this.terminateFailures < TERMINATE_ATTEMPTS) {
        this.hooks.logger.warn("Error terminating pod, will retry", { ...fields, attempt: this.terminateFailures, err });
        await this.hooks.retryDelay();
        this.dirty = true;
        return;
      }
      this.hooks.logger.error("Error terminating pod, giving up; garbage collection removes what is left", { ...fields, attempts: this.terminateFailures, err });
    }
    this.finished = true;
    this.hooks.terminated(this.record);
  }
}

/** WORKER_BACKOFF_JITTER is the pod workers' jitter factor after a failed sync (pod_workers.go workerBackOffPeriodJitterFactor). */
export const WORKER_BACKOFF_JITTER = 0.5;

/**
 * requeueDelayMs is when a pod worker syncs again a pod whose sync was held back by a restart
 * back-off (pod_workers.go completeWork): the back-off's remaining time, at most the resync
 * interval, stretched by up to half again (wait.Jitter with factor 0.5). The kubelet thus
 * restarts a crashed container between 1 and 1.5 times its back-off after the crash, not at its
 * end. `random` is in [0, 1).
 */
export function requeueDelayMs(remainingMs: number, resyncIntervalMs: number, random: () => number): number {
  const base = Math.min(Math.max(remainingMs, 0), resyncIntervalMs);
  return base + random() * WORKER_BACKOFF_JITTER * base;
}
