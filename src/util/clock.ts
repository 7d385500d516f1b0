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
  sleep(ms: number, signal?: AbortSignal, options?: SleepOptions): Promise<void>;
}

/** SleepOptions say how a sleep relates to the life of the process. */
export interface SleepOptions {
  /**
   * background marks the wait of a loop that runs until it is stopped (resync, probe ticks,
   * rescans, lease renewals, retries inside those loops): it does not keep the process alive, so
   * a program that embeds probelet and never closes it still exits. Every other sleep belongs to
   * an operation someone awaits (a grace period, a retry, a poll) and keeps the process alive
   * until it ends, as any Node timer does: otherwise `await agent.close()` could find the event
   * loop empty halfway through a termination and the process would exit with it unfinished.
   */
  background?: boolean;
}

/** IN_BACKGROUND is the SleepOptions of a stoppable loop's wait. */
export const IN_BACKGROUND: SleepOptions = Object.freeze({ background: true });

/** SystemClock is the real clock. Only background sleeps are unref'd (SleepOptions). */
export class SystemClock implements Clock {
  now(): number {
    return Date.now();
  }

  monotonic(): number {
    return performance.now();
  }

  sleep(ms: number, signal?: AbortSignal, options?: SleepOptions): Promise<void> {
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
      if (options?.background === true) timer.unref();
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}

/** systemClock is the shared real clock. */
export const systemClock: Clock = new SystemClock();
