// The single place where probelet touches wall-clock time and timers. Everything that
// waits or measures time takes a Clock, so timing rules (periods, jitter, initial delays,
// thresholds, back-off) are tested deterministically with test/fakes/fake-clock.ts.

/** Clock is the injected source of time and timers. */
export interface Clock {
  /** now returns the current time in milliseconds since the Unix epoch. */
  now(): number;
  /** monotonic returns a monotonic time in milliseconds, for measuring durations. */
  monotonic(): number;
  /**
   * sleep resolves after `ms` milliseconds, or as soon as `signal` aborts (it then
   * resolves too, never rejects: callers check the signal).
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** timeoutSignal returns a signal that aborts after `ms` milliseconds. */
  timeoutSignal(ms: number): AbortSignal;
}

/** SystemClock is the real clock. Its timers are unref'd so they never keep a CLI alive. */
export class SystemClock implements Clock {
  now(): number {
    return Date.now();
  }

  monotonic(): number {
    return performance.now();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const onAbort = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, Math.max(0, ms));
      timer.unref();
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  timeoutSignal(ms: number): AbortSignal {
    return AbortSignal.timeout(Math.max(0, ms));
  }
}

/** systemClock is the shared real clock. */
export const systemClock: Clock = new SystemClock();
