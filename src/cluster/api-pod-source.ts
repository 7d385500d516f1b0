// The API server as a pod source (kubelet pkg/kubelet/config/apiserver.go NewSourceApiserver: a
// reflector listing and watching pods with fieldSelector=spec.nodeName=<node>; client-go
// tools/cache/reflector.go ListAndWatch: list, then watch from the list's resourceVersion with
// bookmarks, relist on 410 Gone or an expired resourceVersion, back-off on errors). Changes are
// emitted as PodUpdates, as the kubelet's config merger turns the source's snapshots into ADD,
// UPDATE, DELETE (deletionTimestamp set) and REMOVE (gone from the API server).
import type { Pod } from "../api/types.js";
import type { Clock } from "../util/clock.js";
import type { Logger } from "../util/logger.js";
import { ApiStatusError, type ApiClient, type ApiWatchEvent } from "./api-client.js";
import { Backoff, REFLECTOR_BACKOFF } from "./backoff.js";
import type { PodUpdateListener } from "./pod-updates.js";

/**
 * API_SOURCE names the API server source in PodUpdates (kubetypes.ApiserverSource is "api"; that
 * name is taken by pods made through the agent's own API).
 */
export const API_SOURCE = "apiserver";

/** WATCH_TIMEOUT_SECONDS is how long one watch lasts at most (reflector: a random 5–10 min). */
const MIN_WATCH_TIMEOUT_SECONDS = 300;

/** ApiPodSourceOptions configure an ApiPodSource. */
export interface ApiPodSourceOptions {
  client: ApiClient;
  nodeName: string;
  clock: Clock;
  logger: Logger;
  listener: PodUpdateListener;
  random?: () => number;
}

/** ApiPodSource lists and watches the node's pods and emits their changes. */
export class ApiPodSource {
  /** The pods as the API server last showed them, by UID. */
  private readonly pods = new Map<string, Pod>();
  private resourceVersion = "";
  private synced = false;
  private readonly backoff: Backoff;
  private markSynced: () => void = () => undefined;
  /** Resolves after the first successful list (the kubelet waits for its sources before cleaning up). */
  readonly hasSynced: Promise<void>;

  constructor(private readonly options: ApiPodSourceOptions) {
    this.backoff = new Backoff(REFLECTOR_BACKOFF, options.random);
    this.hasSynced = new Promise((resolve) => (this.markSynced = resolve));
  }

  /** get returns the API server's copy of a pod (for the status manager's needsReconcile). */
  get(uid: string): Pod | undefined {
    return this.pods.get(uid);
  }

  private get selector(): string {
    return `fieldSelector=${encodeURIComponent(`spec.nodeName=${this.options.nodeName}`)}`;
  }

  /** run lists and watches until the signal aborts; errors back off and retry, they never end the loop. */
  async run(signal: AbortSignal): Promise<void> {
    const { clock, logger } = this.options;
    while (!signal.aborted) {
      try {
        if (this.resourceVersion === "") await this.list(signal);
        await this.watch(signal);
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof ApiStatusError && (err.code === 410 || err.reason === "Expired" || err.reason === "Gone")) {
          logger.info("Watch of pods closed: resource version too old, relisting", { err: err.message });
          this.resourceVersion = "";
          continue;
        }
        const wait = this.backoff.failed(clock.now());
        logger.warn("Failed to list or watch pods", { err: err instanceof Error ? err.message : String(err), retryIn: `${Math.round(wait)}ms` });
        await clock.sleep(wait, signal);
      }
    }
  }

  /** list replaces the snapshot and emits what changed since the last one. */
  async list(signal: AbortSignal): Promise<void> {
    const list = await this.options.client.request<{ metadata: { resourceVersion?: string }; items: Pod[] }>("GET", `/api/v1/pods?${this.selector}`, { signal });
    const seen = new Set<string>();
    for (const pod of list.items ?? []) {
      const uid = pod.metadata.uid ?? "";
      seen.add(uid);
      this.apply(pod);
    }
    for (const [uid, pod] of [...this.pods]) {
      if (!seen.has(uid)) {
        this.pods.delete(uid);
        this.options.listener({ op: "REMOVE", source: API_SOURCE, pods: [pod] });
      }
    }
    this.resourceVersion = list.metadata?.resourceVersion ?? "";
    this.backoff.reset();
    if (!this.synced) {
      this.synced = true;
      this.markSynced();
    }
  }

  private async watch(signal: AbortSignal): Promise<void> {
    const timeout = Math.floor(MIN_WATCH_TIMEOUT_SECONDS * (1 + (this.options.random ?? Math.random)()));
    const path = `/api/v1/pods?${this.selector}&watch=true&allowWatchBookmarks=true&timeoutSeconds=${timeout}&resourceVersion=${encodeURIComponent(this.resourceVersion)}`;
    let failure: ApiStatusError | undefined;
    await this.options.client.watch(path, (event) => {
      if (failure === undefined) failure = this.handle(event);
    }, signal);
    if (failure !== undefined) throw failure;
  }

  /** handle applies one watch event; an ERROR event is returned as the error it carries. */
  private handle(event: ApiWatchEvent): ApiStatusError | undefined {
    const object = event.object as unknown as Pod & { code?: number; reason?: string; message?: string };
    if (event.type === "ERROR") return new ApiStatusError(object.code ?? 500, object.reason ?? "", object.message ?? "watch error");
    const rv = object.metadata?.resourceVersion;
    if (rv !== undefined) this.resourceVersion = rv;
    if (event.type === "BOOKMARK") return undefined;
    if (event.type === "DELETED") {
      const uid = object.metadata.uid ?? "";
      this.pods.delete(uid);
      this.options.listener({ op: "REMOVE", source: API_SOURCE, pods: [object] });
      return undefined;
    }
    this.apply(object);
    return undefined;
  }

  /** apply stores a pod and emits ADD, DELETE (deletion began) or UPDATE (spec or metadata changed). */
  private apply(pod: Pod): void {
    const uid = pod.metadata.uid ?? "";
    const old = this.pods.get(uid);
    this.pods.set(uid, pod);
    const deleting = pod.metadata.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null;
    if (old === undefined) {
      this.options.listener({ op: deleting ? "DELETE" : "ADD", source: API_SOURCE, pods: [pod] });
      return;
    }
    const wasDeleting = old.metadata.deletionTimestamp !== undefined && old.metadata.deletionTimestamp !== null;
    if (deleting && (!wasDeleting || old.metadata.deletionGracePeriodSeconds !== pod.metadata.deletionGracePeriodSeconds)) {
      this.options.listener({ op: "DELETE", source: API_SOURCE, pods: [pod] });
      return;
    }
    // kubelet config checkAndUpdatePod: only spec, labels, annotations and deletion matter; status changes are the kubelet's own.
    if (JSON.stringify(old.spec) !== JSON.stringify(pod.spec) || JSON.stringify(old.metadata.labels) !== JSON.stringify(pod.metadata.labels) || JSON.stringify(old.metadata.annotations) !== JSON.stringify(pod.metadata.annotations)) {
      this.options.listener({ op: "UPDATE", source: API_SOURCE, pods: [pod] });
    }
  }
}
