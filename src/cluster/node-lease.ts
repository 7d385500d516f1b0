// The node's heartbeat Lease in kube-node-lease (k8s.io/component-helpers/apimachinery/lease
// controller.go, as pkg/kubelet/nodelease wires it): holderIdentity = the node, 40 s duration,
// renewed every 10 s (a quarter of it). A renewal PUTs the last lease with a new renewTime; when
// that fails the lease is read again or created (backoffEnsureLease: 100 ms doubling to 7 s) and
// the update tried up to 5 times (retryUpdateLease).
import { IN_BACKGROUND, type Clock } from "../util/clock.js";
import type { Logger } from "../util/logger.js";
import { isStatus, type RestClient } from "../client/rest-client.js";

/** LEASE_DURATION_SECONDS is the kubelet's nodeLeaseDurationSeconds. */
export const LEASE_DURATION_SECONDS = 40;
/** LEASE_RENEW_INTERVAL_MS is 0.25 of the duration (kubelet nodeLeaseRenewIntervalFraction). */
export const LEASE_RENEW_INTERVAL_MS = (LEASE_DURATION_SECONDS * 1000) / 4;
/** MAX_UPDATE_RETRIES is the lease controller's maxUpdateRetries. */
export const MAX_UPDATE_RETRIES = 5;
/** MAX_ENSURE_BACKOFF_MS is the lease controller's maxBackoff. */
export const MAX_ENSURE_BACKOFF_MS = 7000;

/** Lease is a coordination.k8s.io/v1 Lease. */
export interface Lease {
  apiVersion: "coordination.k8s.io/v1";
  kind: "Lease";
  metadata: { name: string; namespace: string; resourceVersion?: string; ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string }[] };
  spec: { holderIdentity?: string; leaseDurationSeconds?: number; renewTime?: string };
}

/** NodeLeaseOptions configure a NodeLease. */
export interface NodeLeaseOptions {
  client: RestClient;
  nodeName: string;
  clock: Clock;
  logger: Logger;
  /** The Node's UID once known: the lease gets an owner reference to it (kubelet setNodeOwnerFunc). */
  nodeUid: () => string | undefined;
  /** Jitter source for the renew interval (wait.JitterUntil, factor 0.04). */
  random?: () => number;
}

/** NodeLease keeps the node's lease renewed. */
export class NodeLease {
  private latest: Lease | undefined;

  constructor(private readonly options: NodeLeaseOptions) {}

  private get path(): string {
    return `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${encodeURIComponent(this.options.nodeName)}`;
  }

  /** run renews the lease at once and then every renew interval until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const random = this.options.random ?? Math.random;
    while (!signal.aborted) {
      await this.sync(signal);
      await this.options.clock.sleep(LEASE_RENEW_INTERVAL_MS * (1 + 0.04 * random()), signal, IN_BACKGROUND);
    }
  }

  /** sync renews the lease once (lease controller sync). */
  async sync(signal: AbortSignal): Promise<void> {
    if (this.latest !== undefined) {
      try {
        this.latest = await this.update(this.newLease(this.latest));
        return;
      } catch (err) {
        this.options.logger.info("Failed to update lease using latest lease, fallback to ensure lease", { err: message(err) });
      }
    }
    const { lease, created } = await this.backoffEnsureLease(signal);
    if (lease === undefined || signal.aborted) return;
    this.latest = lease;
    // A lease made just now is current; one that existed is renewed (the lease controller).
    if (!created) await this.retryUpdateLease(lease, signal);
  }

  private newLease(base: Lease | undefined): Lease {
    const { nodeName, clock } = this.options;
    const lease: Lease = base !== undefined ? structuredClone(base) : { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: nodeName, namespace: "kube-node-lease" }, spec: {} };
    lease.spec.holderIdentity = nodeName;
    lease.spec.leaseDurationSeconds = LEASE_DURATION_SECONDS;
    lease.spec.renewTime = new Date(clock.now()).toISOString().replace("Z", "000Z");
    const uid = this.options.nodeUid();
    if ((lease.metadata.ownerReferences ?? []).length === 0 && uid !== undefined) {
      lease.metadata.ownerReferences = [{ apiVersion: "v1", kind: "Node", name: nodeName, uid }];
    }
    return lease;
  }

  private update(lease: Lease): Promise<Lease> {
    return this.options.client.request<Lease>("PUT", this.path, { body: lease });
  }

  /** backoffEnsureLease gets or creates the lease, retrying with back-off until it can or the signal aborts. */
  private async backoffEnsureLease(signal: AbortSignal): Promise<{ lease?: Lease; created: boolean }> {
    let sleep = 100;
    while (!signal.aborted) {
      try {
        return await this.ensureLease();
      } catch (err) {
        sleep = Math.min(2 * sleep, MAX_ENSURE_BACKOFF_MS);
        this.options.logger.error("Failed to ensure lease exists, will retry", { interval: `${sleep}ms`, err: message(err) });
        await this.options.clock.sleep(sleep, signal, IN_BACKGROUND);
      }
    }
    return { created: false };
  }

  private async ensureLease(): Promise<{ lease: Lease; created: boolean }> {
    try {
      return { lease: await this.options.client.request<Lease>("GET", this.path), created: false };
    } catch (err) {
      if (!isStatus(err, 404)) throw err;
    }
    const lease = await this.options.client.request<Lease>("POST", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", { body: this.newLease(undefined) });
    return { lease, created: true };
  }

  private async retryUpdateLease(base: Lease, signal: AbortSignal): Promise<void> {
    let lease = base;
    for (let i = 0; i < MAX_UPDATE_RETRIES && !signal.aborted; i++) {
      try {
        this.latest = await this.update(this.newLease(lease));
        return;
      } catch (err) {
        this.options.logger.error("Failed to update lease", { err: message(err) });
        // A conflict means someone else wrote it: read it again before the next try.
        if (isStatus(err, 409) && i > 0) {
          const again = await this.backoffEnsureLease(signal);
          if (again.lease === undefined) return;
          lease = again.lease;
        }
      }
    }
    this.options.logger.error(`failed ${MAX_UPDATE_RETRIES} attempts to update lease`);
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
