// The API server as a pod source (kubelet pkg/kubelet/config/apiserver.go NewSourceApiserver: a
// reflector listing and watching pods with fieldSelector=spec.nodeName=<node>, reflector.ts).
// Changes are
// emitted as PodUpdates, as the kubelet's config merger turns the source's snapshots into ADD,
// UPDATE, DELETE (deletionTimestamp set) and REMOVE (gone from the API server).
import type { Pod } from "../api/types.js";
import type { Clock } from "../util/clock.js";
import type { Logger } from "../util/logger.js";
import type { RestClient } from "../client/rest-client.js";
import type { PodUpdateListener } from "./pod-updates.js";
import { Reflector } from "./reflector.js";

/**
 * API_SOURCE names the API server source in PodUpdates (kubetypes.ApiserverSource is "api"; that
 * name is taken by pods made through the agent's own API).
 */
export const API_SOURCE = "apiserver";

/** ApiPodSourceOptions configure an ApiPodSource. */
export interface ApiPodSourceOptions {
  client: RestClient;
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
  private synced = false;
  private readonly reflector: Reflector<Pod>;
  private markSynced: () => void = () => undefined;
  /** Resolves after the first successful list (the kubelet waits for its sources before cleaning up). */
  readonly hasSynced: Promise<void>;

  constructor(private readonly options: ApiPodSourceOptions) {
    this.hasSynced = new Promise((resolve) => (this.markSynced = resolve));
    const { client, clock, logger, random } = options;
    this.reflector = new Reflector<Pod>({
      client, clock, logger,
      ...(random !== undefined ? { random } : {}),
      // Always with the node's field selector: newer Node authorization allows a node only its own pods.
      path: `/api/v1/pods?fieldSelector=${encodeURIComponent(`spec.nodeName=${options.nodeName}`)}`,
      what: "*v1.Pod",
      replace: (items) => this.replace(items),
      apply: (type, pod) => (type === "DELETED" ? this.removed(pod) : this.apply(pod)),
    });
  }

  /** get returns the API server's copy of a pod (for the status manager's needsReconcile). */
  get(uid: string): Pod | undefined {
    return this.pods.get(uid);
  }

  /** run lists and watches until the signal aborts; errors back off and retry, they never end the loop. */
  run(signal: AbortSignal): Promise<void> {
    return this.reflector.run(signal);
  }

  /** replace takes a new list and emits what changed since the last one (pods missing from it are removed). */
  private replace(items: Pod[]): void {
    const seen = new Set<string>();
    for (const pod of items) {
      seen.add(pod.metadata.uid ?? "");
      this.apply(pod);
    }
    for (const [uid, pod] of [...this.pods]) if (!seen.has(uid)) this.removed(pod);
    if (!this.synced) {
      this.synced = true;
      this.markSynced();
    }
  }

  private removed(pod: Pod): void {
    this.pods.delete(pod.metadata.uid ?? "");
    this.options.listener({ op: "REMOVE", source: API_SOURCE, pods: [pod] });
  }

  /** apply stores a pod and emits ADD, DELETE (deletion began), UPDATE (spec or metadata changed) or RECONCILE (status changed). */
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
    // kubelet config checkAndUpdatePod: a change of spec, labels or annotations is an UPDATE; a
    // change of the status alone a RECONCILE (the consumer takes the conditions others own, such
    // as a readiness gate's, from it).
    if (JSON.stringify(old.spec) !== JSON.stringify(pod.spec) || JSON.stringify(old.metadata.labels) !== JSON.stringify(pod.metadata.labels) || JSON.stringify(old.metadata.annotations) !== JSON.stringify(pod.metadata.annotations)) {
      this.options.listener({ op: "UPDATE", source: API_SOURCE, pods: [pod] });
    } else if (JSON.stringify(old.status) !== JSON.stringify(pod.status)) {
      this.options.listener({ op: "RECONCILE", source: API_SOURCE, pods: [pod] });
    }
  }
}
