// The status manager's half that talks to the API server (kubelet
// pkg/kubelet/status/status_manager.go: SetPodStatus bumps a per-pod version and queues the pod;
// syncPod PATCHes pods/<name>/status with a two-way strategic merge patch made by pkg/util/pod
// PatchPodStatus, with metadata.uid in the patch as a precondition; syncBatch runs every 10 s and
// syncs every pod that needsUpdate or needsReconcile; a pod whose termination finished and that
// the API server is deleting is removed with DELETE grace 0 and a UID precondition, canBeDeleted).
import { isKubeletCondition } from "../api/kubelet-pod-conditions.js";
import { withPhaseHeldBack } from "../status/held-back-phase.js";
import type { Pod, PodCondition, PodStatus } from "../api/types.js";
import { createTwoWayMergePatch, POD_SCHEMA, type JsonValue } from "../apiserver/patch/index.js";
import { IN_BACKGROUND, type Clock } from "../util/clock.js";
import type { Logger } from "../util/logger.js";
import { isStatus, type RestClient } from "../client/rest-client.js";
import type { PodStatusSink } from "../status/pod-status-sink.js";

/** SYNC_BATCH_PERIOD_MS is the kubelet's syncPeriod of the status manager. */
export const SYNC_BATCH_PERIOD_MS = 10_000;

/** PodEntry is what the syncer knows of one pod (kubelet versionedPodStatus). */
interface PodEntry {
  namespace: string;
  name: string;
  uid: string;
  status: PodStatus;
  /** Bumped on every stored status. */
  version: number;
  /** The version the API server last accepted (kubelet apiStatusVersions). */
  syncedVersion: number;
  /** The agent stopped every container and forgot the pod. */
  terminated: boolean;
  /** Whether the agent could still run containers of the pod when this status came. */
  couldHaveRunningContainers: boolean;
}

/** ApiPodLookup gives the pod as the API server last showed it (the pod source's cache). */
export type ApiPodLookup = (uid: string) => Pod | undefined;

/** ApiStatusSyncOptions configure an ApiStatusSync. */
export interface ApiStatusSyncOptions {
  client: RestClient;
  clock: Clock;
  logger: Logger;
  /** The API server's copy of a pod, for needsReconcile (kubelet: the pod manager's pod). */
  apiPod?: ApiPodLookup;
  /**
   * Whether containers of a pod may still run (kubelet podDeletionSafety
   * PodCouldHaveRunningContainers): a terminal phase is not written until they have stopped.
   * Default: none may.
   */
  couldHaveRunningContainers?: (uid: string) => boolean;
}

/** ApiStatusSync writes pod statuses to the API server. */
export class ApiStatusSync implements PodStatusSink {
  private readonly pods = new Map<string, PodEntry>();
  /** UIDs waiting for a sync, in order (kubelet podStatusChannel). */
  private readonly queue = new Set<string>();
  private draining: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: ApiStatusSyncOptions) {}

  statusChanged(pod: Pod, version?: number): void {
    const uid = pod.metadata.uid;
    if (uid === undefined || pod.status === undefined || this.stopped) return;
    const old = this.pods.get(uid);
    const could = this.couldHaveRunningContainers(uid);
    // The same status again: only worth a sync when its containers have stopped since, so a
    // terminal phase held back can be written now (kubelet TerminatePod forces that update).
    if (old !== undefined && (version === undefined || version === old.version) && JSON.stringify(old.status) === JSON.stringify(pod.status) && old.couldHaveRunningContainers === could) return;
    this.pods.set(uid, {
      namespace: pod.metadata.namespace ?? "default",
      name: pod.metadata.name ?? "",
      uid,
      status: structuredClone(pod.status),
      version: version ?? (old?.version ?? 0) + 1,
      syncedVersion: old?.syncedVersion ?? 0,
      terminated: old?.terminated ?? false,
      couldHaveRunningContainers: could,
    });
    this.enqueue(uid);
  }

  /** couldHaveRunningContainers asks the agent at sync time, as the kubelet's syncPod asks podDeletionSafety. */
  private couldHaveRunningContainers(uid: string): boolean {
    return this.options.couldHaveRunningContainers?.(uid) ?? false;
  }

  podTerminated(pod: Pod): void {
    const uid = pod.metadata.uid;
    if (uid === undefined || this.stopped) return;
    if (pod.status !== undefined) this.statusChanged(pod);
    const entry = this.pods.get(uid);
    if (entry === undefined) return;
    entry.terminated = true;
    this.enqueue(uid);
  }

  /** run syncs queued pods as they come and every pod that needs it every 10 s, until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.options.clock.sleep(SYNC_BATCH_PERIOD_MS, signal, IN_BACKGROUND);
      if (signal.aborted) break;
      this.syncBatch();
    }
    this.stopped = true;
    await this.draining;
  }

  /** stop makes the syncer ignore further statuses (an agent shutting down stops pods the API server should not see stopped). */
  stop(): Promise<void> {
    this.stopped = true;
    this.queue.clear();
    return this.draining ?? Promise.resolve();
  }

  /** syncBatch queues every pod that needsUpdate or needsReconcile (kubelet syncBatch). */
  syncBatch(): void {
    for (const entry of this.pods.values()) {
      if (this.needsUpdate(entry) || this.needsReconcile(entry)) this.enqueue(entry.uid);
    }
  }

  /** idle resolves once the queue is empty (tests). */
  async idle(): Promise<void> {
    while (this.draining !== undefined) await this.draining;
  }

  /** needsUpdate: a newer status than the API server has, or a finished pod still to delete. */
  private needsUpdate(entry: PodEntry): boolean {
    return entry.version > entry.syncedVersion || entry.terminated;
  }

  /**
   * needsReconcile: the API server's copy differs from ours (someone else changed it, or a
   * patch was lost), comparing as the kubelet does without lastProbeTime and condition order.
   */
  private needsReconcile(entry: PodEntry): boolean {
    const api = this.options.apiPod?.(entry.uid);
    if (api?.status === undefined) return false;
    return normalise(mergePodStatus(api.status, entry.status, this.couldHaveRunningContainers(entry.uid) && !entry.terminated)) !== normalise(api.status);
  }

  private enqueue(uid: string): void {
    if (this.stopped) return;
    this.queue.add(uid);
    this.draining ??= this.drain().finally(() => (this.draining = undefined));
  }

  private async drain(): Promise<void> {
    for (let uid = first(this.queue); uid !== undefined && !this.stopped; uid = first(this.queue)) {
      this.queue.delete(uid);
      const entry = this.pods.get(uid);
      if (entry === undefined) continue;
      try {
        await this.syncPod(entry);
      } catch (err) {
        // Left for syncBatch: the version stays ahead of syncedVersion.
        this.options.logger.warn("Failed to update status for pod", { pod: `${entry.namespace}/${entry.name}`, podUID: uid, err: err instanceof Error ? err.message : String(err) });
      }
    }
  }

  /** syncPod brings one pod's API status up to ours and deletes the pod once it can be (kubelet syncPod). */
  private async syncPod(entry: PodEntry): Promise<void> {
    const { client, logger } = this.options;
    const path = `/api/v1/namespaces/${encodeURIComponent(entry.namespace)}/pods/${encodeURIComponent(entry.name)}`;
    let api: Pod;
    try {
      api = await client.request<Pod>("GET", path);
    } catch (err) {
      if (isStatus(err, 404)) {
        logger.info("Pod does not exist on the server", { pod: `${entry.namespace}/${entry.name}`, podUID: entry.uid });
        if (entry.terminated) this.pods.delete(entry.uid);
        return;
      }
      throw err;
    }
    if (api.metadata.uid !== entry.uid) {
      logger.info("Pod was deleted and then recreated, skipping status update", { pod: `${entry.namespace}/${entry.name}`, oldPodUID: entry.uid, podUID: api.metadata.uid });
      this.pods.delete(entry.uid);
      return;
    }
    const version = entry.version;
    const merged = mergePodStatus(api.status ?? {}, entry.status, this.couldHaveRunningContainers(entry.uid) && !entry.terminated);
    if (normalise(merged) !== normalise(api.status ?? {})) {
      // pkg/util/pod preparePatchBytesForPodStatus: the UID only in the new object, so the patch carries it as a precondition.
      const patch = createTwoWayMergePatch({ status: (api.status ?? {}) as JsonValue }, { metadata: { uid: entry.uid }, status: merged as JsonValue }, POD_SCHEMA);
      await client.request<Pod>("PATCH", `${path}/status`, { body: patch, contentType: "application/strategic-merge-patch+json" });
      logger.debug("Patch status for pod", { pod: `${entry.namespace}/${entry.name}`, patch: JSON.stringify(patch) });
    }
    entry.syncedVersion = Math.max(entry.syncedVersion, version);
    if (!entry.terminated) return;
    if (api.metadata.deletionTimestamp === undefined || api.metadata.deletionTimestamp === null) {
      // Finished but not being deleted (the agent let go of it): nothing more to do.
      this.pods.delete(entry.uid);
      return;
    }
    // canBeDeleted: every container stopped (the agent forgot the pod only after that).
    await client.request("DELETE", path, { body: { kind: "DeleteOptions", apiVersion: "v1", gracePeriodSeconds: 0, preconditions: { uid: entry.uid } } }).catch((err: unknown) => {
      if (!isStatus(err, 404) && !isStatus(err, 409)) throw err;
    });
    logger.info("Pod fully terminated and removed from etcd", { pod: `${entry.namespace}/${entry.name}` });
    this.pods.delete(entry.uid);
  }
}

/**
 * mergePodStatus keeps the conditions of the API server's status the kubelet does not own
 * (readiness gates and others' conditions) and takes everything else from ours; while containers
 * could still run, a phase turning terminal keeps the API server's phase, reason and message
 * (kubelet status_manager.go mergePodStatus).
 */
export function mergePodStatus(api: PodStatus, ours: PodStatus, couldHaveRunningContainers = false): PodStatus {
  const conditions: PodCondition[] = [];
  // kubetypes.PodConditionByKubelet, one list for the agent and the API server's copy: it names
  // AllContainersRestarting (RestartAllContainersOnContainerExits, on in 1.37), which a list of
  // its own here left out, so that condition never reached the API server.
  for (const c of api.conditions ?? []) if (!isKubeletCondition(c.type)) conditions.push(c);
  for (const c of ours.conditions ?? []) if (isKubeletCondition(c.type)) conditions.push(c);
  const merged: PodStatus = { ...ours };
  if (conditions.length > 0) merged.conditions = conditions;
  else delete merged.conditions;
  return withPhaseHeldBack(api, merged, couldHaveRunningContainers);
}

/** normalise renders a status for comparison without lastProbeTime and with conditions sorted (kubelet normalizeStatus, isPodStatusByKubeletEqual). */
function normalise(status: PodStatus): string {
  const conditions = [...(status.conditions ?? [])].map((c) => ({ ...c, lastProbeTime: null })).sort((a, b) => a.type.localeCompare(b.type));
  return canonical({ ...status, conditions });
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => a.localeCompare(b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

function first(set: Set<string>): string | undefined {
  for (const v of set) return v;
  return undefined;
}
