// StatusManager: the authoritative, versioned cache of pod statuses and the setters the
// kubelet's sync loop calls on probe updates (kubelet pkg/kubelet/status/status_manager.go).
// Statuses are copied on write, so a stored object is never mutated after it is stored.
import type { ContainerStatus, Pod, PodStatus } from "../api/types.js";
import type { PodStatusProvider } from "../prober/worker.js";
import type { Clock } from "../util/clock.js";
import { silentLogger, type Logger } from "../util/logger.js";
import { formatConditionTime, generateContainersReadyCondition, generatePodReadyCondition, updateCondition } from "./generate.js";
import { stampObservedGeneration } from "./observed-generation.js";

/** PodLookup is the subset of the pod manager the status manager needs (kubelet status.PodManager). */
export interface PodLookup {
  /** getPodByUid returns the desired pod with that UID, or undefined once it is gone. */
  getPodByUid(uid: string): Pod | undefined;
}

/** StatusListener is told about every stored status (after setPodStatus or a setter changed it). */
export type StatusListener = (uid: string, status: PodStatus) => void;

/** ContainerType is the kubelet's container_type metric label value (metrics.go Container, InitContainer). */
export type ContainerType = "container" | "init_container";

/** StatusManagerOptions are the StatusManager's dependencies. */
export interface StatusManagerOptions {
  /** Source of lastTransitionTime values. */
  clock: Clock;
  /** The pod manager: setters ignore pods it no longer knows. */
  podLookup: PodLookup;
  /** Logger for the setters' no-op messages (default: silent). */
  logger?: Logger;
  /**
   * Told once per container that turns Terminated in a stored status (kubelet
   * kubelet_terminated_containers_total{container_type, exit_code, reason}).
   */
  onContainerTerminated?: (containerType: ContainerType, exitCode: number, reason: string) => void;
}

/** VersionedStatus is one cache entry; `version` grows by one on every store (kubelet versionedPodStatus). */
interface VersionedStatus {
  status: PodStatus;
  version: number;
  /** The status serialised, to drop unchanged updates cheaply. */
  json: string;
}

/** StatusManager owns pod statuses: a versioned cache with change notification. */
export class StatusManager implements PodStatusProvider {
  private readonly clock: Clock;
  private readonly podLookup: PodLookup;
  private readonly log: Logger;
  private readonly onContainerTerminated: StatusManagerOptions["onContainerTerminated"];
  /** Invariant: entries are private deep copies, replaced (never mutated) on every update. */
  private readonly statuses = new Map<string, VersionedStatus>();
  private readonly listeners = new Set<StatusListener>();
  /** watchPodStatuses listeners: told of every store and removal. */
  private readonly watchers = new Set<(uid: string) => void>();

  constructor(options: StatusManagerOptions) {
    this.clock = options.clock;
    this.podLookup = options.podLookup;
    this.log = (options.logger ?? silentLogger).child("status");
    this.onContainerTerminated = options.onContainerTerminated;
  }

  /**
   * setPodStatus stores a deep copy of `status` for the pod and bumps its version. Nothing is
   * recomputed: conditions and their transition times are stored as given.
   */
  setPodStatus(pod: Pod, status: PodStatus): void {
    const uid = pod.metadata.uid;
    if (uid === undefined || uid === "") throw new TypeError("setPodStatus: pod has no metadata.uid");
    this.store(uid, structuredClone(status), pod.metadata.generation, pod.status);
  }

  /**
   * getPodStatus returns the stored status object itself, not a copy. Callers must treat it
   * as read-only: the manager replaces entries on update and relies on them never changing.
   */
  getPodStatus(uid: string): PodStatus | undefined {
    return this.statuses.get(uid)?.status;
  }

  /** version returns how many times the pod's status has been stored (0 when none is cached). */
  version(uid: string): number {
    return this.statuses.get(uid)?.version ?? 0;
  }

  /** removePod forgets a pod's status and version; listeners are not called, watchers are. */
  removePod(uid: string): void {
    if (this.statuses.delete(uid)) this.tellWatchers(uid);
  }

  /**
   * watchPodStatuses calls `watcher` with a pod's UID whenever getPodStatus(uid) starts to
   * return something else: a new status, or none. The returned function unsubscribes.
   */
  watchPodStatuses(watcher: (uid: string) => void): () => void {
    this.watchers.add(watcher);
    return () => {
      this.watchers.delete(watcher);
    };
  }

  private tellWatchers(uid: string): void {
    for (const watcher of [...this.watchers]) {
      try {
        watcher(uid);
      } catch (err) {
        this.log.error("Pod status watcher failed", { podUID: uid, err });
      }
    }
  }

  /** subscribe registers a listener for stored statuses; the returned function unsubscribes. */
  subscribe(listener: StatusListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /**
   * setContainerReadiness records a readiness result for the container with that ID and
   * recomputes the Ready and ContainersReady conditions. It is a no-op, in this order, when
   * the pod is gone, has no cached status, has no container with that ID, or the value is
   * unchanged (kubelet status_manager.go SetContainerReadiness).
   */
  setContainerReadiness(podUid: string, containerId: string, ready: boolean): void {
    const found = this.lookup(podUid, containerId, "readiness");
    if (found === undefined) return;
    const { pod, cached, container } = found;
    if (container.ready === ready) {
      this.log.debug("Container readiness unchanged", { ready, pod: podName(pod), containerID: containerId });
      return;
    }
    // A container that is not running is never Ready: a probe's Success that lands after the
    // container exited (on another pod's server, say) is not written. The kubelet writes it and
    // undoes it at its next sync (UpdatePodStatus: not running → not ready).
    if (ready && container.state?.running === undefined) {
      this.log.debug("Container not running, readiness not set", { pod: podName(pod), containerID: containerId });
      return;
    }
    const status = structuredClone(cached);
    findContainerStatusById(status, containerId)!.ready = ready;
    const now = formatConditionTime(this.clock.now());
    // kubelet: Ready is generated first (it reads the current conditions for readiness
    // gates), then ContainersReady; both replace their old entries or are appended.
    const podReady = generatePodReadyCondition(pod.spec, status.conditions, status.containerStatuses, status.initContainerStatuses, status.phase);
    status.conditions = updateCondition(status.conditions, podReady, now);
    const containersReady = generateContainersReadyCondition(pod.spec, status.containerStatuses, status.initContainerStatuses, status.phase);
    status.conditions = updateCondition(status.conditions, containersReady, now);
    this.store(podUid, status, pod.metadata.generation);
  }

  /**
   * setContainerStartup records a startup result (`started`) for the container with that ID;
   * conditions are untouched. No-op cases as for setContainerReadiness (kubelet
   * SetContainerStartup).
   */
  setContainerStartup(podUid: string, containerId: string, started: boolean): void {
    const found = this.lookup(podUid, containerId, "startup");
    if (found === undefined) return;
    const { pod, cached, container } = found;
    if (container.started === started) {
      this.log.debug("Container startup unchanged", { pod: podName(pod), containerID: containerId });
      return;
    }
    const status = structuredClone(cached);
    findContainerStatusById(status, containerId)!.started = started;
    this.store(podUid, status, pod.metadata.generation);
  }

  /** recordTerminations counts the containers that a stored status newly shows Terminated. */
  private recordTerminations(old: PodStatus | undefined, next: PodStatus): void {
    const record = this.onContainerTerminated;
    if (record === undefined) return;
    recordTerminationsOf(old?.initContainerStatuses, next.initContainerStatuses, "init_container", record);
    recordTerminationsOf(old?.containerStatuses, next.containerStatuses, "container", record);
  }

  /** lookup applies the first three no-op checks shared by both setters, logging each. */
  private lookup(podUid: string, containerId: string, what: "readiness" | "startup"): { pod: Pod; cached: PodStatus; container: ContainerStatus } | undefined {
    const pod = this.podLookup.getPodByUid(podUid);
    if (pod === undefined) {
      this.log.debug(`Pod has been deleted, no need to update ${what}`, { podUID: podUid });
      return undefined;
    }
    const cached = this.statuses.get(podUid)?.status;
    if (cached === undefined) {
      this.log.info(`Container ${what} changed before pod has synced`, { pod: podName(pod), containerID: containerId });
      return undefined;
    }
    const container = findContainerStatusById(cached, containerId);
    if (container === undefined) {
      this.log.info(`Container ${what} changed for unknown container`, { pod: podName(pod), containerID: containerId });
      return undefined;
    }
    return { pod, cached, container };
  }

  /**
   * store replaces the pod's entry with `status` (already a private copy) and notifies.
   * `uncached` stands for the old status when none is cached (the pod object's own status).
   * The pod's `generation` is stamped on it first (observed-generation.ts).
   */
  private store(uid: string, status: PodStatus, generation: number | undefined, uncached?: PodStatus): void {
    const cached = this.statuses.get(uid);
    stampObservedGeneration(status, generation, cached?.status ?? uncached);
    this.recordTerminations(cached?.status ?? uncached, status);
    // kubelet status manager: a status equal to the cached one is dropped (no version bump, no sync).
    const json = JSON.stringify(status);
    if (cached?.json === json) return;
    const version = (cached?.version ?? 0) + 1;
    this.statuses.set(uid, { status, version, json });
    this.tellWatchers(uid);
    for (const listener of [...this.listeners]) {
      try {
        listener(uid, status);
      } catch (err) {
        this.log.error("Pod status listener failed", { podUID: uid, err });
      }
    }
  }
}

/**
 * recordTerminationsOf calls `record` for each container of `next` that is Terminated while it was
 * not in `old` (or was not there at all): kubelet updateStatusInternal, checkAndRecordTerminations.
 */
function recordTerminationsOf(old: readonly ContainerStatus[] | undefined, next: readonly ContainerStatus[] | undefined, type: ContainerType, record: (type: ContainerType, exitCode: number, reason: string) => void): void {
  for (const c of next ?? []) {
    const terminated = c.state?.terminated;
    if (terminated === undefined) continue;
    if (old?.find((o) => o.name === c.name)?.state?.terminated === undefined) record(type, terminated.exitCode, terminated.reason ?? "");
  }
}

/**
 * findContainerStatusById finds a container by its full container ID, regular containers first,
 * then init containers (kubelet status_manager.go findContainerStatus). Lookup is by ID, so a
 * result for an old container instance never touches its replacement. An empty ID matches
 * nothing (a container that does not exist yet has no results).
 */
export function findContainerStatusById(status: PodStatus, containerId: string): ContainerStatus | undefined {
  if (containerId === "") return undefined;
  return (
    status.containerStatuses?.find((c) => c.containerID === containerId) ??
    status.initContainerStatuses?.find((c) => c.containerID === containerId)
  );
}

/** podName renders a pod as klog.KObj does: "namespace/name". */
function podName(pod: Pod): string {
  const name = pod.metadata.name ?? "";
  return pod.metadata.namespace ? `${pod.metadata.namespace}/${name}` : name;
}
