// Per-probe bookkeeping of the load driver: latency and schedule lag of every probe, computed
// the way the anchor computes them. The first probe of a worker is due at the worker's start
// plus its random start offset; later probes are due on the grid first-probe-start + k × period
// (the worker's ticker is anchored where its first probe ran, and drops ticks it missed).

/**
 * EARLY_TOLERANCE_MS: a probe that starts up to this much before a grid point belongs to that
 * grid point (its lag is then negative). Node timers are scheduled against the event loop's
 * cached time, which lags behind performance.now() while a busy loop iteration runs, so a
 * worker's timer can fire a few ms before its intended tick; without this tolerance such a
 * probe would count as one period late. Capped at a quarter period.
 */
const EARLY_TOLERANCE_MS = 50;

interface WorkerTrack {
  /** When the worker was started (performance.now() ms). */
  startedAt: number;
  /** The worker's random start offset in ms (0 if it started without jitter). */
  offsetMs: number;
  /** Start of the worker's first probe; NaN before it ran. */
  firstStart: number;
}

/** RecorderSummary holds the sorted samples and counters of a run. */
export interface RecorderSummary {
  latencyMs: Float64Array;
  lagMs: Float64Array;
  success: number;
  failure: number;
  lastError: string;
}

/** LoadRecorder collects probe latencies and schedule lags for N workers with one period. */
export class LoadRecorder {
  private readonly workers: WorkerTrack[] = [];
  private readonly latency: number[] = [];
  private readonly lag: number[] = [];
  /** Per-probe rows for -dump: start (ms since `origin`), lag, latency, worker index. */
  private readonly rows: number[] | undefined;
  private readonly earlyToleranceMs: number;
  private success = 0;
  private failure = 0;
  private lastError = "";

  /**
   * @param periodMs the probe period of every worker.
   * @param dump keep one row per probe for dumpCsv (the anchor's -dump).
   * @param origin time origin of dumped start times (performance.now() ms).
   */
  constructor(
    private readonly periodMs: number,
    dump = false,
    private readonly origin = 0,
  ) {
    if (dump) this.rows = [];
    this.earlyToleranceMs = Math.min(EARLY_TOLERANCE_MS, periodMs / 4);
  }

  /** workerStarted notes when worker `index` was started (just before its jitter is drawn). */
  workerStarted(index: number, at: number): void {
    this.workers[index] = { startedAt: at, offsetMs: 0, firstStart: Number.NaN };
  }

  /** jitterDrawn notes worker `index`'s start offset, a fraction of the period. */
  jitterDrawn(index: number, fraction: number): void {
    const w = this.workers[index];
    if (w) w.offsetMs = fraction * this.periodMs;
  }

  /** record notes one finished probe of worker `index` that started at `startMs`. */
  record(index: number, startMs: number, durationMs: number, ok: boolean, output: string | undefined): void {
    const w = this.workers[index];
    if (!w) return;
    this.latency.push(durationMs);
    let lag: number;
    if (Number.isNaN(w.firstStart)) {
      w.firstStart = startMs;
      lag = startMs - (w.startedAt + w.offsetMs);
    } else {
      const k = Math.floor((startMs - w.firstStart + this.earlyToleranceMs) / this.periodMs);
      lag = startMs - (w.firstStart + k * this.periodMs);
    }
    this.lag.push(lag);
    this.rows?.push(startMs - this.origin, lag, durationMs, index);
    if (ok) {
      this.success++;
    } else {
      this.failure++;
      if (output) this.lastError = output;
    }
  }

  /** completed is the number of probes recorded so far. */
  get completed(): number {
    return this.success + this.failure;
  }

  /** dumpCsv renders the kept rows as CSV (the anchor's columns plus the worker index). */
  dumpCsv(): string {
    const rows = this.rows ?? [];
    const lines = ["start_ms,lag_ms,latency_ms,worker"];
    for (let i = 0; i + 3 < rows.length; i += 4) {
      lines.push(`${rows[i]!.toFixed(3)},${rows[i + 1]!.toFixed(3)},${rows[i + 2]!.toFixed(3)},${rows[i + 3]!}`);
    }
    return lines.join("\n") + "\n";
  }

  /** summary sorts the samples and returns them with the counters. */
  summary(): RecorderSummary {
    return {
      latencyMs: Float64Array.from(this.latency).sort(),
      lagMs: Float64Array.from(this.lag).sort(),
      success: this.success,
      failure: this.failure,
      lastError: this.lastError,
    };
  }
}
