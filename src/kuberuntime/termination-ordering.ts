// The order in which the containers of a pod stop when they are killed together (kubelet
// pkg/kubelet/kuberuntime/kuberuntime_termination_order.go): every container is killed at once,
// but a sidecar waits, within the one grace period, until every regular container and every
// later sidecar has stopped, so sidecars stop in reverse order after the main containers.
import { isRestartableInitContainer } from "../api/pod-rules.js";
import type { Pod } from "../api/types.js";
import type { Clock } from "../util/clock.js";

/** Stopped is one container's "has stopped" signal. */
interface Stopped {
  promise: Promise<void>;
  resolve: () => void;
}

function stoppedSignal(done: boolean): Stopped {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  if (done) resolve();
  return { promise, resolve };
}

/** TerminationOrdering holds who waits for whom while a pod's containers are killed together. */
export class TerminationOrdering {
  private readonly stopped = new Map<string, Stopped>();
  private readonly prerequisites = new Map<string, Promise<void>[]>();

  /**
   * Builds the ordering from the pod spec and the names of the containers running now (kubelet
   * newTerminationOrdering): a container that is not running counts as stopped already; each
   * sidecar waits for all regular containers and for the sidecar declared after it.
   */
  constructor(
    pod: Pod,
    runningNames: Iterable<string>,
    private readonly clock: Clock,
  ) {
    const running = new Set(runningNames);
    const regular: Promise<void>[] = [];
    for (const c of pod.spec.containers) {
      const signal = stoppedSignal(!running.has(c.name));
      this.stopped.set(c.name, signal);
      regular.push(signal.promise);
    }
    let laterSidecar: string | undefined;
    for (const c of [...(pod.spec.initContainers ?? [])].reverse()) {
      this.stopped.set(c.name, stoppedSignal(!running.has(c.name)));
      if (!isRestartableInitContainer(c)) continue;
      const waits = [...regular];
      const later = laterSidecar === undefined ? undefined : this.stopped.get(laterSidecar);
      if (later) waits.push(later.promise);
      this.prerequisites.set(c.name, waits);
      laterSidecar = c.name;
    }
  }

  /**
   * waitForTurn waits until the container may stop, for at most `gracePeriodSeconds`, and
   * returns the seconds it waited (kubelet waitForTurn). No grace period means no wait.
   */
  async waitForTurn(name: string, gracePeriodSeconds: number): Promise<number> {
    if (gracePeriodSeconds <= 0) return 0;
    const started = this.clock.monotonic();
    const cancel = new AbortController();
    const expired = this.clock.sleep(gracePeriodSeconds * 1000, cancel.signal).then(() => "expired" as const);
    try {
      for (const prerequisite of this.prerequisites.get(name) ?? []) {
        if ((await Promise.race([prerequisite.then(() => "stopped" as const), expired])) === "expired") break;
      }
    } finally {
      cancel.abort();
    }
    return (this.clock.monotonic() - started) / 1000;
  }

  /** containerTerminated marks a container as stopped, releasing those that wait for it. */
  containerTerminated(name: string): void {
    this.stopped.get(name)?.resolve();
  }
}

/** hasSidecars reports whether a pod needs a termination ordering (kubelet HasRestartableInitContainer). */
export function hasSidecars(pod: Pod): boolean {
  return (pod.spec.initContainers ?? []).some(isRestartableInitContainer);
}
