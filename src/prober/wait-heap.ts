// A binary min-heap of tick waits keyed by (due time, scheduling order), with each wait knowing
// its own position so that cancelling one is O(log n): the tick scheduler's queue.
import type { TickWait } from "./tick-scheduler.js";

/** WaitHeap orders waits by due time; waits due at the same time by scheduling order (`seq`). */
export class WaitHeap {
  private readonly items: TickWait[] = [];

  /** size counts the waits in the heap. */
  get size(): number {
    return this.items.length;
  }

  /** peek returns the earliest wait without removing it. */
  peek(): TickWait | undefined {
    return this.items[0];
  }

  /** push adds a wait that is in no heap (`wait.index` < 0). */
  push(wait: TickWait): void {
    wait.index = this.items.length;
    this.items.push(wait);
    this.up(wait.index);
  }

  /** remove takes a wait of this heap out and marks it unscheduled (`index` -1). */
  remove(wait: TickWait): void {
    const last = this.items.pop()!;
    if (last !== wait) {
      this.items[wait.index] = last;
      last.index = wait.index;
      this.down(last.index);
      this.up(last.index);
    }
    wait.index = -1;
  }

  private up(i: number): void {
    const items = this.items;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!waitBefore(items[i]!, items[parent]!)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const items = this.items;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < items.length && waitBefore(items[l]!, items[m]!)) m = l;
      if (r < items.length && waitBefore(items[r]!, items[m]!)) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }

  private swap(a: number, b: number): void {
    const items = this.items;
    const wa = items[a]!;
    const wb = items[b]!;
    items[a] = wb;
    items[b] = wa;
    wa.index = b;
    wb.index = a;
  }
}

/** waitBefore orders two waits: earlier due time first, then earlier scheduling. */
export function waitBefore(a: TickWait, b: TickWait): boolean {
  return a.due < b.due || (a.due === b.due && a.seq < b.seq);
}
