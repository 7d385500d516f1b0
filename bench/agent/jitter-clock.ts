// A Clock for the start-to-probe bench that reveals each probe worker's start jitter. The agent
// builds its ProbeManager itself and passes no `random`, so the jitter a worker draws
// (kubelet worker.go: sleep a random part of the period when the manager is younger than one
// period) is not observable from outside. This clock is the system clock plus one observation:
// the jitter is the only sleep a worker requests synchronously inside ProbeManager.startWorker
// (start → run → jitter sleep, before the run loop's first await; tick sleeps come later, from
// continuations), so a sleep with startWorker/addPod on its synchronous stack is a jitter
// sleep. The pod it belongs to is found with AsyncLocalStorage, because the agent starts a
// pod's workers inside the sync that admit() launches (admit → PodWorker → PodSyncer.publish →
// ProbeManager.addPod → startWorker), all continuations of the admit call.
// Bench-only instrumentation: it depends on those call paths and says so when they change
// (jitter sleeps not attributed to any pod are counted).
import { AsyncLocalStorage } from "node:async_hooks";
import { systemClock, type Clock, type SleepOptions } from "../../src/util/clock.js";

/** JitterSleep is one observed start-jitter sleep. */
export interface JitterSleep {
  /** When the worker called sleep (performance.now() ms): the worker's start. */
  at: number;
  /** The drawn jitter, ms. */
  ms: number;
}

/** WORKER_START_FRAME matches the manager frames that start workers, as V8 names them. */
const WORKER_START_FRAME = /^\s*at (?:async )?ProbeManager\.(?:startWorker|addPod) \(/m;

/** STACK_FRAMES is deep enough to reach startWorker from the clock (sleep ← helpers ← run ← start ← startWorker). */
const STACK_FRAMES = 16;

/** JitterClock is systemClock plus a record of every probe worker's start-jitter sleep, per pod. */
export class JitterClock implements Clock {
  private readonly context = new AsyncLocalStorage<string>();
  /** Jitter sleeps per pod, in the order the pod's workers started. */
  private readonly sleeps = new Map<string, JitterSleep[]>();
  /** Jitter sleeps seen outside any pod's context (0 unless the agent's call paths changed). */
  unattributed = 0;

  /** runAs runs fn (e.g. agent.admit) so that workers it leads to are attributed to `pod`. */
  runAs<T>(pod: string, fn: () => T): T {
    return this.context.run(pod, fn);
  }

  /** jitterOf returns the pod's jitter sleeps, in worker start order (PROBE_TYPES order within a sync). */
  jitterOf(pod: string): readonly JitterSleep[] {
    return this.sleeps.get(pod) ?? [];
  }

  now(): number {
    return systemClock.now();
  }

  monotonic(): number {
    return systemClock.monotonic();
  }

  sleep(ms: number, signal?: AbortSignal, options?: SleepOptions): Promise<void> {
    if (calledFromWorkerStart()) {
      const pod = this.context.getStore();
      if (pod === undefined) {
        this.unattributed++;
      } else {
        const list = this.sleeps.get(pod) ?? [];
        list.push({ at: performance.now(), ms });
        this.sleeps.set(pod, list);
      }
    }
    return systemClock.sleep(ms, signal, options);
  }
}

/** calledFromWorkerStart tells whether the current sleep was requested synchronously while a worker was being started. */
function calledFromWorkerStart(): boolean {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = STACK_FRAMES;
  const stack = new Error().stack ?? "";
  Error.stackTraceLimit = limit;
  return WORKER_START_FRAME.test(stack);
}
