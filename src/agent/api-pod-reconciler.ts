// What the agent does with the pod config's updates of its "api" source (pod-config.ts): the
// kubelet's HandlePodAdditions, HandlePodUpdates, HandlePodRemoves and HandlePodReconcile
// (pkg/kubelet/kubelet.go) for pods the store (the agent's own API, or the API server through the
// store bridge) binds to this node.
import type { Pod } from "../api/types.js";
import type { ObjectStore } from "../apiserver/storage/object-store.js";
import type { StatusManager } from "../status/status-manager.js";
import type { Clock } from "../util/clock.js";
import type { Logger } from "../util/logger.js";
import type { ConfigObjects } from "../volumes/config-objects.js";
import { mergeApiConditions } from "./pod-conditions.js";
import { refreshReadyConditions } from "./pod-status.js";
import { apiPodsToSave, specOf } from "./pod-store-sync.js";
import type { PodWorker } from "./pod-worker.js";
import type { StateStore } from "./state-store.js";

/** PodWorkersAccess is the part of the agent's pod workers the reconciler drives. */
export interface PodWorkersAccess {
  /** worker returns the pod worker of a UID, if the agent runs that pod. */
  worker(uid: string): PodWorker | undefined;
  /** start begins running a pod (its worker, saved status, first sync). */
  start(pod: Pod, source: string): void;
  /** publish writes a pod's current status into the store. */
  publish(uid: string): void;
  /** terminate starts (or shortens) a pod's graceful termination. */
  terminate(worker: PodWorker, gracePeriodSeconds: number, deletionTimestamp?: string): void;
  /** closing reports that the agent is shutting down (nothing is saved then). */
  closing(): boolean;
}

/** ApiPodReconcilerOptions are the reconciler's collaborators. */
export interface ApiPodReconcilerOptions {
  store: ObjectStore;
  nodeName: string;
  workers: PodWorkersAccess;
  statusManager: StatusManager;
  configObjects: ConfigObjects;
  state: StateStore;
  clock: Clock;
  logger: Logger;
}

/** ApiPodReconciler applies the api pod source's additions, updates, removals and reconciles to the pod workers. */
export class ApiPodReconciler {
  constructor(private readonly o: ApiPodReconcilerOptions) {}

  /** add starts a pod the source added (kubelet HandlePodAdditions); one still terminating under its UID is not started twice. */
  add(stored: Pod): void {
    const uid = stored.metadata.uid ?? "";
    if (this.o.workers.worker(uid) !== undefined) return;
    this.o.workers.start(specOf(stored), "api");
    this.o.workers.publish(uid);
    if (stored.metadata.deletionTimestamp !== undefined) this.update(stored);
    void this.save();
  }

  /**
   * update applies a change of a running pod (kubelet HandlePodUpdates, for the config's UPDATE
   * and DELETE): a deletion started (or shortened) terminates it with the deletion's grace
   * period; a spec change (a container image) is synced, and the sync restarts the containers
   * whose spec hash changed; a new generation is stamped on the status as its observedGeneration.
   */
  update(stored: Pod): void {
    const worker = this.o.workers.worker(stored.metadata.uid ?? "");
    if (worker === undefined) return;
    if (this.terminateDeleted(worker, stored)) return;
    const next = specOf(stored);
    worker.record.pod = next;
    this.o.configObjects.registerPod?.(next);
    this.o.statusManager.setPodStatus(next, this.o.statusManager.getPodStatus(next.metadata.uid ?? "") ?? { phase: "Pending" });
    worker.queueSync();
    void this.save();
  }

  /**
   * reconcile takes a change of the API's copy of the status alone (kubelet HandlePodReconcile):
   * the conditions the kubelet does not own (a readiness gate's) are taken from it and Ready
   * recomputed. A pod being deleted goes on terminating.
   */
  reconcile(stored: Pod): void {
    const worker = this.o.workers.worker(stored.metadata.uid ?? "");
    if (worker === undefined || this.terminateDeleted(worker, stored)) return;
    this.adoptApiConditions(worker.record.pod, stored.status);
  }

  /** terminateDeleted terminates a pod whose deletion the API's copy shows, with its grace period; tells whether it did. */
  private terminateDeleted(worker: PodWorker, stored: Pod): boolean {
    const { deletionTimestamp, deletionGracePeriodSeconds } = stored.metadata;
    if (deletionTimestamp === undefined) return false;
    this.o.workers.terminate(worker, deletionGracePeriodSeconds ?? 0, deletionTimestamp);
    return true;
  }

  /** remove handles a pod deleted from the store at once (grace 0): it is killed without grace. */
  remove(stored: Pod): void {
    const worker = this.o.workers.worker(stored.metadata.uid ?? "");
    if (worker !== undefined) this.o.workers.terminate(worker, 0, stored.metadata.deletionTimestamp);
    void this.save();
  }

  /** save records the store's API pods of this node (specs only) for the next agent. */
  async save(): Promise<void> {
    if (this.o.workers.closing()) return;
    await this.o.state.saveApiPods(apiPodsToSave(this.o.store, this.o.nodeName)).catch((err: unknown) => this.o.logger.warn("Cannot save API pods", { err }));
  }

  /**
   * adoptApiConditions takes the conditions the kubelet does not own (a readiness gate's) from
   * the API's copy of a pod and recomputes Ready with them, as the kubelet's generateAPIPodStatus
   * does on its next sync.
   */
  private adoptApiConditions(pod: Pod, api: Pod["status"]): void {
    const own = this.o.statusManager.getPodStatus(pod.metadata.uid ?? "");
    const merged = own === undefined ? undefined : mergeApiConditions(own, api);
    if (merged === undefined) return;
    refreshReadyConditions(pod, merged, this.o.clock.now(), own);
    this.o.statusManager.setPodStatus(pod, merged);
  }
}
