// "Probe now": the kubelet's manual trigger of a probe worker (worker.go manualTriggerCh, which
// the kubelet itself pulls for a readiness probe that has not run yet), offered to the owner
// through POST …/pods/{name}/probes/trigger. The probe runs as a tick's would: it counts toward
// its threshold and its result is written, so a failing liveness probe triggered often enough
// restarts the container, as the ticks would. The caller gets the probe's history entry.
import { ApiError } from "../apiserver/endpoints/host-interface.js";
import { probeBlocker } from "../prober/probe-gates.js";
import type { ProbeHistoryEntry } from "../prober/probe-history.js";
import type { PodStatusProvider, ProbeRecord, Worker } from "../prober/worker.js";
import type { Clock } from "../util/clock.js";

/** The longest a trigger waits for its probe: under the status server's 60 s idle timeout. */
export const MAX_TRIGGER_WAIT_MS = 50_000;
/** What a trigger waits beyond the probe's own timeout (the step's gates, an exec's spawn). */
const TRIGGER_SLACK_MS = 5_000;

interface Waiter {
  worker: Worker;
  /** Only a probe whose step started after the trigger (monotonic ms) answers it. */
  after: number;
  resolve: (entry: ProbeHistoryEntry) => void;
}

/** ProbeTriggers runs workers' probes on demand and hands back each one's history entry. */
export class ProbeTriggers {
  private readonly waiters = new Set<Waiter>();

  constructor(
    private readonly clock: Clock,
    private readonly statuses: PodStatusProvider,
  ) {}

  /** recorded is told of every probe the history records; it answers the triggers waiting for it. */
  recorded(worker: Worker, record: ProbeRecord, entry: ProbeHistoryEntry): void {
    for (const waiter of this.waiters) {
      if (waiter.worker !== worker || record.startedAt < waiter.after) continue;
      this.waiters.delete(waiter);
      waiter.resolve(entry);
    }
  }

  /**
   * trigger probes now and resolves with the probe's entry. It throws ApiError Conflict, saying
   * why, when the worker's gates would not let it probe (probe-gates.ts), and Timeout when no
   * probe finished within the probe's timeout and some slack (at most MAX_TRIGGER_WAIT_MS).
   */
  async trigger(worker: Worker): Promise<ProbeHistoryEntry> {
    const blocker = probeBlocker(worker, this.statuses.getPodStatus(worker.pod.metadata.uid ?? ""), this.clock.now());
    if (blocker !== undefined) throw new ApiError("Conflict", `cannot probe now: ${blocker}`);
    const waitMs = Math.min(MAX_TRIGGER_WAIT_MS, (worker.spec.timeoutSeconds ?? 1) * 1000 + TRIGGER_SLACK_MS);
    const done = new AbortController();
    let waiter: Waiter | undefined;
    const answered = new Promise<ProbeHistoryEntry>((resolve) => {
      waiter = { worker, after: this.clock.monotonic(), resolve };
      this.waiters.add(waiter);
    });
    worker.manualTrigger();
    try {
      const entry = await Promise.race([answered, this.clock.sleep(waitMs, done.signal).then(() => undefined)]);
      if (entry === undefined) throw new ApiError("Timeout", `the ${worker.probeType} probe of container "${worker.container.name}" was triggered but did not finish within ${Math.round(waitMs / 1000)}s`);
      return entry;
    } finally {
      done.abort();
      if (waiter !== undefined) this.waiters.delete(waiter);
    }
  }
}
