// Back-off between failed attempts as client-go's wait.Backoff and the reflector's
// ExponentialBackoffManager compute it (apimachinery pkg/util/wait/wait.go; client-go
// tools/cache/reflector.go NewReflector: 800 ms doubling to 30 s, jitter 1.0, reset after 2 min
// without failure).

/** BackoffPolicy is an exponential back-off with jitter and a cap. */
export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
  factor: number;
  /** Each wait is stretched by up to this fraction of itself at random (wait.Jitter). */
  jitter: number;
  /** A failure this long after the previous one starts again from initialMs. */
  resetAfterMs: number;
}

/** REFLECTOR_BACKOFF is the list/watch back-off of client-go's reflector. */
export const REFLECTOR_BACKOFF: BackoffPolicy = { initialMs: 800, maxMs: 30_000, factor: 2, jitter: 1, resetAfterMs: 120_000 };

/** Backoff hands out successive waits of a policy. */
export class Backoff {
  private next: number;
  private lastFailure = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly policy: BackoffPolicy,
    private readonly random: () => number = Math.random,
  ) {
    this.next = policy.initialMs;
  }

  /** failed returns how long to wait after a failure at `now` (ms). */
  failed(now: number): number {
    if (now - this.lastFailure > this.policy.resetAfterMs) this.next = this.policy.initialMs;
    this.lastFailure = now;
    const base = this.next;
    this.next = Math.min(this.policy.maxMs, this.next * this.policy.factor);
    return base + base * this.policy.jitter * this.random();
  }

  /** reset starts the next failure from the initial wait. */
  reset(): void {
    this.next = this.policy.initialMs;
    this.lastFailure = Number.NEGATIVE_INFINITY;
  }
}
