// FakeClock: a manually advanced Clock for deterministic timing tests.
import { SystemClock, type Clock } from "../../src/util/clock.js";

interface Sleeper {
  at: number;
  resolve: () => void;
}

/** FakeClock implements Clock; time moves only when a test calls advance() or set(). */
export class FakeClock implements Clock {
  private current: number;
  private sleepers: Sleeper[] = [];

  constructor(startMs = Date.UTC(2026, 0, 1)) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  monotonic(): number {
    return this.current;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const onAbort = (): void => {
        this.sleepers = this.sleepers.filter((s) => s !== sleeper);
        resolve();
      };
      const sleeper: Sleeper = {
        at: this.current + Math.max(0, ms),
        resolve: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      this.sleepers.push(sleeper);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** pendingSleepers counts sleeps not yet resolved (for tests that wait for a worker to park). */
  pendingSleepers(): number {
    return this.sleepers.length;
  }

  /** advance moves time forward by ms, resolving every sleep that falls due, in time order. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      await flushMicrotasks();
      const due = this.sleepers.filter((s) => s.at <= target).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.current = Math.max(this.current, due.at);
      this.sleepers = this.sleepers.filter((s) => s !== due);
      due.resolve();
    }
    this.current = target;
    await flushMicrotasks();
  }
}

/**
 * tick lets pending work run, advances the clock by `ms`, then lets the work that woke run,
 * including the file I/O it started: a short real pause gives libuv's thread pool, which the fake
 * clock cannot see, time to finish, so a loaded machine does not turn one step into two.
 */
export async function tick(clock: FakeClock, ms = 1000): Promise<void> {
  await flushMicrotasks(50);
  await clock.advance(ms);
  await flushMicrotasks(50);
  await new Promise((resolve) => setTimeout(resolve, 1));
  await flushMicrotasks(10);
}

/**
 * tickUntil ticks the fake clock until done() holds, at most maxTicks times; when fake time is
 * used up it goes on waiting in real time (at most realMs) for work that waits on real I/O (an
 * agent's state files), so a loaded machine does not fail a test about order, not speed.
 */
export async function tickUntil(clock: FakeClock, done: () => boolean, { maxTicks = 10, ms = 1000, realMs = 10_000 } = {}): Promise<void> {
  for (let i = 0; i < maxTicks && !done(); i++) await tick(clock, ms);
  const deadline = Date.now() + realMs;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** flushMicrotasks lets pending promise continuations run. */
export async function flushMicrotasks(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}

/** FixedNowClock is the real clock (timers, monotonic time) whose now() always answers one instant. */
export class FixedNowClock extends SystemClock {
  constructor(private readonly at: number) {
    super();
  }

  override now(): number {
    return this.at;
  }
}
