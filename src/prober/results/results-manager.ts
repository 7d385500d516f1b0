// ResultsManager: the per-probe-type cache of probe results, publishing only changes
// (kubelet pkg/kubelet/prober/results/results_manager.go).
import type { Result } from "./cached-result.js";

/** ResultUpdate is published when a container's cached result is new or changed. */
export interface ResultUpdate {
  containerId: string;
  result: Result;
  podUid: string;
  /**
   * True for the value a worker writes for a newly seen container (INITIAL_VALUES: readiness
   * Failure, liveness Success, startup Unknown) before any probe ran; listeners get these only
   * when they ask (subscribe with { initial: true }), as the kubelet's sync loop does.
   */
  initial: boolean;
}

/** ResultListener receives updates synchronously, in publication order. */
export type ResultListener = (update: ResultUpdate) => void;

/** SubscribeOptions choose which updates a listener gets. */
export interface SubscribeOptions {
  /** Also the initial values of new containers (default false: only what probes, or a container's end, decided). */
  initial?: boolean;
}

/** ResultsManager caches one Result per container ID and publishes changes. */
export class ResultsManager {
  /** Invariant: holds an entry for every container ID a live worker has written. */
  private readonly cache = new Map<string, Result>();
  private readonly listeners = new Map<ResultListener, boolean>();

  /** get returns the cached result for a container ID, or undefined when none is set. */
  get(containerId: string): Result | undefined {
    return this.cache.get(containerId);
  }

  /**
   * set stores a result; when the ID is new or the value differs it publishes an update and
   * returns true. Setting the same value again is silent (kubelet results_manager.go Set).
   * `initial` marks a worker's initial value for a new container.
   */
  set(containerId: string, result: Result, podUid: string, initial = false): boolean {
    if (this.cache.get(containerId) === result) return false;
    this.cache.set(containerId, result);
    const update: ResultUpdate = { containerId, result, podUid, initial };
    for (const [listener, withInitial] of this.listeners) if (withInitial || !initial) listener(update);
    return true;
  }

  /** remove deletes a container's entry without publishing anything (kubelet Remove). */
  remove(containerId: string): void {
    this.cache.delete(containerId);
  }

  /** size is the number of cached entries. */
  get size(): number {
    return this.cache.size;
  }

  /**
   * subscribe registers a listener for updates (the initial values of new containers only with
   * `{ initial: true }`); the returned function unsubscribes.
   */
  subscribe(listener: ResultListener, options: SubscribeOptions = {}): () => void {
    this.listeners.set(listener, options.initial === true);
    return () => this.listeners.delete(listener);
  }
}
