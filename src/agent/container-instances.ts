// Every run of every container of a pod, from its start to its exit, as the pod's status showed
// them over time (state and lastState). Beyond the kubelet, whose status keeps only the current
// and the last instance: the console draws each restart and exit from this log, for containers
// with probes and without (a crash loop shows all its restarts, not only the last). Kept in
// memory only, for the probe history's window and at most MAX_INSTANCES_PER_POD per pod; a pod's
// log goes with the pod, and an agent restart starts it again from the saved status.
import type { ContainerInstance } from "../api/container-instance.js";
import type { ContainerState, Pod } from "../api/types.js";
import type { ObjectStore } from "../apiserver/storage/object-store.js";
import { PODS } from "../apiserver/resources/pods.js";
import type { Clock } from "../util/clock.js";

/** MAX_INSTANCES_PER_POD bounds a pod's log (a day of a crash loop at the 5-minute back-off is 288). */
export const MAX_INSTANCES_PER_POD = 512;

/** ContainerInstanceLog keeps the instances of every pod it observes, by pod UID. */
export class ContainerInstanceLog {
  /** pod UID → container ID → instance, in the order first seen. */
  private readonly pods = new Map<string, Map<string, ContainerInstance>>();

  constructor(
    private readonly clock: Clock,
    /** How long an exited instance is kept (the probe history's window). */
    private readonly windowMs: number,
  ) {}

  /** observe records what a pod's status says of its containers' current and last instances. */
  observe(pod: Pod): void {
    const uid = pod.metadata.uid;
    if (uid === undefined) return;
    const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
    let log = this.pods.get(uid);
    for (const status of statuses) {
      for (const state of [status.lastState, status.state]) {
        const seen = instanceOf(status.name, status.containerID, state);
        if (seen === undefined) continue;
        if (log === undefined) {
          log = new Map();
          this.pods.set(uid, log);
        }
        log.set(seen.containerID, { ...log.get(seen.containerID), ...seen });
      }
    }
    if (log !== undefined) this.prune(log);
  }

  /** forget drops a pod's log. */
  forget(podUid: string): void {
    this.pods.delete(podUid);
  }

  /** list returns a pod's instances, oldest start first. */
  list(podUid: string): ContainerInstance[] {
    return [...(this.pods.get(podUid)?.values() ?? [])].map((i) => ({ ...i })).sort((a, b) => (a.startedAt ?? "").localeCompare(b.startedAt ?? ""));
  }

  /** watch keeps the log in step with the store's pods; it returns the unsubscribe. */
  watch(store: ObjectStore): () => void {
    return store.watch<Pod>(PODS.name, {}, (event) => {
      if (event.type === "DELETED") this.forget(event.object.metadata.uid ?? "");
      else this.observe(event.object);
    });
  }

  /** prune drops instances that exited before the window, then the oldest beyond the bound. */
  private prune(log: Map<string, ContainerInstance>): void {
    const horizon = this.clock.now() - this.windowMs;
    for (const [id, instance] of log) {
      if (Date.parse(instance.finishedAt ?? "") < horizon) log.delete(id);
    }
    for (const id of log.keys()) {
      if (log.size <= MAX_INSTANCES_PER_POD) break;
      log.delete(id);
    }
  }
}

/** instanceOf reads one state: a terminated one names its own container ID, a running one is the status's. */
function instanceOf(container: string, currentId: string | undefined, state: ContainerState | undefined): ContainerInstance | undefined {
  const terminated = state?.terminated;
  if (terminated !== undefined) {
    const containerID = terminated.containerID ?? currentId;
    if (containerID === undefined || containerID === "") return undefined;
    return {
      container,
      containerID,
      ...(terminated.startedAt !== undefined ? { startedAt: terminated.startedAt } : {}),
      ...(terminated.finishedAt !== undefined ? { finishedAt: terminated.finishedAt } : {}),
      exitCode: terminated.exitCode,
      ...(terminated.signal !== undefined ? { signal: terminated.signal } : {}),
      ...(terminated.reason !== undefined ? { reason: terminated.reason } : {}),
    };
  }
  if (state?.running !== undefined && currentId !== undefined && currentId !== "") {
    return { container, containerID: currentId, ...(state.running.startedAt !== undefined ? { startedAt: state.running.startedAt } : {}) };
  }
  return undefined;
}
