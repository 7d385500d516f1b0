// One timer for every probe worker of a manager: waits are kept in a binary heap keyed by due
// time (monotonic ms), and a single clock sleep is armed for the earliest. Workers keep their
// own tick arithmetic (worker.ts run, after kubelet worker.go run: start jitter, the ticker's
// period, late ticks dropped); this only replaces one timer per waiting worker with one shared
// timer, and a wait resolves at the same clock time as the worker's own sleep did.
import type { Clock } from "../util/clock.js";

/** TickTarget is told when its wait falls due. */
export interface TickTarget {
  onTick(): void;
}

/**
 * TickWait is a reusable wait slot: one per worker, scheduled again for every tick, so a tick
 * allocates nothing. `target.onTick()` runs once at `due` unless the wait is cancelled first.
 */
export class TickWait {
  due = 0;
  /** Scheduling order: waits due at the same time fire in the order they were scheduled. */
  seq = 0;
  /** Position in the heap; -1 when not scheduled. */
  index = -1;

  constructor(readonly target: TickTarget) {}

  /** scheduled reports whether the wait is pending. */
  get scheduled(): boolean {
    return this.index >= 0;
  }
}

/**
 * TickScheduler runs callbacks at monotonic times with one clock sleep at a time armed for the
 * earliest wait. A sleep armed for time T fires every wait due at or before T: the clock's
 * timer decides when T has come, as it did for each worker's own sleep.
 */
export class TickScheduler {
  private readonly heap: TickWait[] = [];
  private seq = 0;
  /** Due times of the sleeps in flight (a sleep made stale by an earlier wait just runs out). */
  private readonly armed: number[] = [];

  /**
   * @param coalesceMs how late a wait may fire so that waits due close together share one
   * wake-up of the event loop (0: every wait fires at its due time, as with its own timer).
   */
  constructor(
    private readonly clock: Clock,
    private readonly coalesceMs = 0,
  ) {}

  /** size counts the pending waits. */
  get size(): number {
    return this.heap.length;
  }

  /**
   * schedule makes `wait` fall due at monotonic time `due` (ms), moving it if it was pending; a
   * time already past falls due at the next turn.
   */
  schedule(wait: TickWait, due: number): void {
    this.cancel(wait);
    wait.due = due;
    wait.seq = this.seq++;
    wait.index = this.heap.length;
    this.heap.push(wait);
    this.up(wait.index);
    if (this.heap[0] === wait) this.armFor(due);
  }

  /** cancel drops a pending wait; its target is not told. Idempotent. */
  cancel(wait: TickWait): void {
    if (wait.index < 0) return;
    const last = this.heap.pop()!;
    if (last !== wait) {
      this.heap[wait.index] = last;
      last.index = wait.index;
      this.down(last.index);
      this.up(last.index);
    }
    wait.index = -1;
  }

  private arm(due: number): void {
    this.armed.push(due);
    void this.clock.sleep(due - this.clock.monotonic()).then(() => this.fired(due));
  }

  /** fired runs every wait due by `armedFor` (or by now), in due order, then re-arms. */
  private fired(armedFor: number): void {
    this.armed.splice(this.armed.indexOf(armedFor), 1);
    const limit = Math.max(armedFor, this.clock.monotonic());
    // Bounded by the heap's size at entry: callbacks that schedule again land in a later turn.
    for (let budget = this.heap.length; budget > 0 && this.heap.length > 0 && this.heap[0]!.due <= limit; budget--) {
      const wait = this.heap[0]!;
      this.cancel(wait);
      wait.target.onTick();
    }
    const next = this.heap[0];
    if (next !== undefined) this.armFor(next.due);
  }

  /** armFor makes sure a sleep ends by `due` + coalesceMs. */
  private armFor(due: number): void {
    const at = due + this.coalesceMs;
    for (const t of this.armed) if (t <= at) return;
    this.arm(at);
  }

  private less(a: TickWait, b: TickWait): boolean {
    return a.due < b.due || (a.due === b.due && a.seq < b.seq);
  }

  private up(i: number): void {
    const heap = this.heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(heap[i]!, heap[parent]!)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const heap = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && this.less(heap[l]!, heap[m]!)) m = l;
      if (r < heap.length && this.less(heap[r]!, heap[m]!)) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }

  private swap(a: number, b: number): void {
    const heap = this.heap;
    const wa = heap[a]!;
    const wb = heap[b]!;
    heap[a] = wb;
    heap[b] = wa;
    wa.index = b;
    wb.index = a;
  }
}
