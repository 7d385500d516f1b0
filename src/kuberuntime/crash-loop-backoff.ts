// CrashLoopBackOff: the kubelet's per-container restart back-off (flowcontrol.Backoff with
// 10 s initial, doubling, 300 s cap; an entry idle for 2 × the cap is forgotten, so a container
// that ran for 10 minutes starts again from 10 s). The image pull back-off is another instance
// with the same delays (kubelet.go imageBackOff, src/kuberuntime/image-manager.ts).
import type { Clock } from "../util/clock.js";

/** BACKOFF_INITIAL_MS is the first restart delay (kubelet initialBackOff = 10 s). */
export const BACKOFF_INITIAL_MS = 10_000;
/** BACKOFF_MAX_MS caps the delay (kubelet MaxContainerBackOff = 300 s). */
export const BACKOFF_MAX_MS = 300_000;

interface Entry {
  /** Current delay. */
  delayMs: number;
  /** When the delay was last raised (ms since epoch). */
  lastUpdate: number;
}

/** BackoffOptions let tests and fast demos scale the delays. */
export interface BackoffOptions {
  initialMs?: number;
  maxMs?: number;
}

/** RestartBackoff tracks the restart delay per key (pod UID + container name + spec hash; for image pulls, pod UID + image). */
export class RestartBackoff {
  private readonly entries = new Map<string, Entry>();
  readonly initialMs: number;
  readonly maxMs: number;

  constructor(
    private readonly clock: Clock,
    options: BackoffOptions = {},
  ) {
    this.initialMs = options.initialMs ?? BACKOFF_INITIAL_MS;
    this.maxMs = options.maxMs ?? BACKOFF_MAX_MS;
  }

  /**
   * inBackoffSince reports whether restarting a container that finished at `finishedAt` is still
   * held back (client-go Backoff.IsInBackOffSince: an entry not raised within 2 × the cap before
   * that finish is stale; otherwise now − finishedAt < the current delay).
   */
  inBackoffSince(key: string, finishedAt: number): boolean {
    const entry = this.entries.get(key);
    if (!entry || this.expired(finishedAt, entry)) return false;
    return this.clock.now() - finishedAt < entry.delayMs;
  }

  /**
   * inBackOffSinceUpdate reports whether less than the current delay has passed since the key
   * was last raised (client-go Backoff.IsInBackOffSinceUpdate, the image pull back-off's test).
   */
  inBackOffSinceUpdate(key: string): boolean {
    const entry = this.entries.get(key);
    const now = this.clock.now();
    if (!entry || this.expired(now, entry)) return false;
    return now - entry.lastUpdate < entry.delayMs;
  }

  /** delayMs is the current delay for a key (0 when none is held). */
  delayMs(key: string): number {
    return this.entries.get(key)?.delayMs ?? 0;
  }

  /**
   * next records a restart of a container that finished at `finishedAt` (client-go Backoff.Next):
   * the first one, or one after the entry went stale, sets the initial delay; later ones double
   * it up to the cap. The entry is stamped with the current time.
   */
  next(key: string, finishedAt: number): void {
    const entry = this.entries.get(key);
    const now = this.clock.now();
    if (!entry || this.expired(finishedAt, entry)) {
      this.entries.set(key, { delayMs: this.initialMs, lastUpdate: now });
      return;
    }
    entry.delayMs = Math.min(entry.delayMs * 2, this.maxMs);
    entry.lastUpdate = now;
  }

  /** remainingMs is how long a container that finished at `finishedAt` is still held back. */
  remainingMs(key: string, finishedAt: number): number {
    return this.inBackoffSince(key, finishedAt) ? finishedAt + this.delayMs(key) - this.clock.now() : 0;
  }

  /**
   * gc drops the entries not raised within 2 × the cap, which every lookup already treats as
   * gone, so a deleted pod's entries do not outlive it by more than that (client-go Backoff.GC,
   * which the kubelet's HandlePodCleanups calls on every housekeeping). A pod's entries are not
   * dropped when it goes: a static pod made again from the same manifest has the same UID and
   * keeps its back-off, as in the kubelet.
   */
  gc(): void {
    const now = this.clock.now();
    for (const [key, entry] of this.entries) if (this.expired(now, entry)) this.entries.delete(key);
  }

  /** expired: an entry not raised within 2 × the cap before `at` is stale (client-go hasExpired). */
  private expired(at: number, entry: Entry): boolean {
    return at - entry.lastUpdate > 2 * this.maxMs;
  }
}
