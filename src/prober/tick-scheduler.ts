// One timer for every probe worker of a manager: waits are kept in binary heaps keyed by due
// time (monotonic ms), and a single clock sleep is armed for the earliest. Workers keep their
// own tick arithmetic (worker.ts run, after kubelet worker.go run: start jitter, the ticker's
// period, late ticks dropped); this only replaces one timer per waiting worker with one shared
// timer, and a wait resolves at the same clock time as the worker's own sleep did.
import { IN_BACKGROUND, type Clock } from "../util/clock.js";
import { WaitHeap, waitBefore } from "./wait-heap.js";

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

  /**
   * @param coalescible whether this wait may fire up to the scheduler's coalescing window late
   * to share a wake-up (cheap socket probes); otherwise it fires at its due time whatever the
   * window.
   */
  constructor(
    readonly target: TickTarget,
    readonly coalescible = false,
  ) {}

  /** scheduled reports whether the wait is pending. */
  get scheduled(): boolean {
    return this.index >= 0;
  }
}

/**
 * TickScheduler runs callbacks at monotonic times with one clock sleep at a time armed for the
 * earliest wait. A sleep armed for time T fires every wait due at or before T: the clock's
 * timer decides when T has come, as it did for each worker's own sleep. Coalescible and exact
 * waits are kept in two heaps so that the earliest exact wait always has a sleep armed for its
 * own due time, whatever coalescible waits are due before it.
 */
export class TickScheduler {
  private readonly coalescible = new WaitHeap();
  private readonly exact = new WaitHeap();
  private seq = 0;
  /** Due times of the sleeps in flight (a sleep made stale by an earlier wait just runs out). */
  private readonly armed: number[] = [];

  /**
   * @param coalesceMs how late a coalescible wait may fire so that waits due close together
   * share one wake-up of the event loop (0: every wait fires at its due time, as with its own
   * timer). Waits that are not coalescible always fire at their due time; they may still take
   * coalescible waits already due along with them, never one that is not due yet.
   */
  constructor(
    private readonly clock: Clock,
    private readonly coalesceMs = 0,
  ) {}

  /** size counts the pending waits. */
  get size(): number {
    return this.coalescible.size + this.exact.size;
  }

  /**
   * schedule makes `wait` fall due at monotonic time `due` (ms), moving it if it was pending; a
   * time already past falls due at the next turn.
   */
  schedule(wait: TickWait, due: number): void {
    this.cancel(wait);
    wait.due = due;
    wait.seq = this.seq++;
    const heap = this.heapOf(wait);
    heap.push(wait);
    if (heap.peek() === wait) this.armFor(wait);
  }

  /** cancel drops a pending wait; its target is not told. Idempotent. */
  cancel(wait: TickWait): void {
    if (wait.index >= 0) this.heapOf(wait).remove(wait);
  }

  private heapOf(wait: TickWait): WaitHeap {
    return wait.coalescible ? this.coalescible : this.exact;
  }

  private arm(due: number): void {
    this.armed.push(due);
    void this.clock.sleep(due - this.clock.monotonic(), undefined, IN_BACKGROUND).then(() => this.fired(due));
  }

  /** fired runs every wait due by `armedFor` (or by now), in due order, then re-arms. */
  private fired(armedFor: number): void {
    this.armed.splice(this.armed.indexOf(armedFor), 1);
    const limit = Math.max(armedFor, this.clock.monotonic());
    // Bounded by the number of waits at entry: callbacks that schedule again land in a later turn.
    for (let budget = this.size; budget > 0; budget--) {
      const wait = this.earliest();
      if (wait === undefined || wait.due > limit) break;
      this.cancel(wait);
      wait.target.onTick();
    }
    const nextCoalescible = this.coalescible.peek();
    if (nextCoalescible !== undefined) this.armFor(nextCoalescible);
    const nextExact = this.exact.peek();
    if (nextExact !== undefined) this.armFor(nextExact);
  }

  /** earliest is the first pending wait of both heaps. */
  private earliest(): TickWait | undefined {
    const a = this.coalescible.peek();
    const b = this.exact.peek();
    if (a === undefined) return b;
    if (b === undefined) return a;
    return waitBefore(a, b) ? a : b;
  }

  /** armFor makes sure a sleep ends by the wait's due time (+ coalesceMs if it is coalescible). */
  private armFor(wait: TickWait): void {
    const at = wait.coalescible ? wait.due + this.coalesceMs : wait.due;
    for (const t of this.armed) if (t <= at) return;
    this.arm(at);
  }
}
