// Registering the Node and keeping its status current (kubelet pkg/kubelet/kubelet_node_status.go
// registerWithAPIServer, tryRegisterWithAPIServer, updateNodeStatus, tryUpdateNodeStatus; the
// patch as pkg/util/node PatchNodeStatus makes it): POST the Node; on AlreadyExists GET it and
// patch its status. Every 10 s (nodeStatusUpdateFrequency) the status is computed and PATCHed
// when it changed or when 5 minutes (nodeStatusReportFrequency) passed since the last report.
import { createTwoWayMergePatch, NODE_SCHEMA, type JsonValue } from "../apiserver/patch/index.js";
import { IN_BACKGROUND, type Clock } from "../util/clock.js";
import type { Logger } from "../util/logger.js";
import { isStatus, type RestClient } from "../client/rest-client.js";
import { initialNode, mergeNodeStatus, nodeStatus, statusChanged, type NodeHealth, type NodeIdentity, type NodeObject, type NodeStatus } from "./node-object.js";

/** NODE_STATUS_UPDATE_PERIOD_MS is the kubelet's nodeStatusUpdateFrequency. */
export const NODE_STATUS_UPDATE_PERIOD_MS = 10_000;
/** NODE_STATUS_REPORT_PERIOD_MS is the kubelet's nodeStatusReportFrequency. */
export const NODE_STATUS_REPORT_PERIOD_MS = 5 * 60_000;
/** NODE_STATUS_UPDATE_RETRY is the kubelet's nodeStatusUpdateRetry: attempts per update. */
export const NODE_STATUS_UPDATE_RETRY = 5;
/** FAST_STATUS_UPDATE_LIMIT_MS bounds fastStatusUpdateOnce. */
export const FAST_STATUS_UPDATE_LIMIT_MS = NODE_STATUS_UPDATE_PERIOD_MS;
/** MAX_REGISTRATION_BACKOFF_MS caps the wait between registration attempts (kubelet: 100 ms doubling to 7 s). */
const MAX_REGISTRATION_BACKOFF_MS = 7000;

/** NodeStatusReporterOptions configure a NodeStatusReporter. */
export interface NodeStatusReporterOptions {
  client: RestClient;
  identity: NodeIdentity;
  health: () => NodeHealth;
  clock: Clock;
  logger: Logger;
}

/** NodeStatusReporter registers the node and reports its status. */
export class NodeStatusReporter {
  /** The status last accepted by the API server. */
  private reported: NodeStatus | undefined;
  private lastReportAt = Number.NEGATIVE_INFINITY;
  /** The Node as the API server returned it at registration (spec.podCIDR, uid). */
  node: NodeObject | undefined;

  constructor(private readonly options: NodeStatusReporterOptions) {}

  private get path(): string {
    return `/api/v1/nodes/${encodeURIComponent(this.options.identity.name)}`;
  }

  /**
   * register creates the Node, retrying with back-off until it succeeds or the signal aborts
   * (kubelet registerWithAPIServer). Errors are logged once per distinct message.
   */
  async register(signal: AbortSignal): Promise<NodeObject | undefined> {
    let delay = 100;
    let lastError = "";
    while (!signal.aborted) {
      try {
        this.node = await this.tryRegister();
        return this.node;
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (message !== lastError) this.options.logger.error("Unable to register node with API server", { node: this.options.identity.name, err: message });
        lastError = message;
      }
      await this.options.clock.sleep(delay, signal, IN_BACKGROUND);
      delay = Math.min(delay * 2, MAX_REGISTRATION_BACKOFF_MS);
    }
    return undefined;
  }

  private async tryRegister(): Promise<NodeObject> {
    const { client, identity, clock } = this.options;
    const node = initialNode(identity);
    node.status = nodeStatus(identity, this.options.health(), clock.now(), undefined);
    try {
      const created = await client.request<NodeObject>("POST", "/api/v1/nodes", { body: node });
      this.reported = created.status;
      this.lastReportAt = clock.now();
      this.options.logger.info("Successfully registered node", { node: identity.name });
      return created;
    } catch (err) {
      if (!isStatus(err, 409)) throw err;
    }
    // kubelet tryRegisterWithAPIServer: the node exists; read it, take the default labels
    // (updateDefaultLabels) and bring its status up to date, in one patch of nodes/<name>/status.
    const existing = await client.request<NodeObject>("GET", this.path);
    this.reported = existing.status;
    const labels = withDefaultLabels(existing.metadata.labels, node.metadata.labels ?? {});
    return this.patchStatus(existing.status, mergeNodeStatus(existing.status, nodeStatus(identity, this.options.health(), clock.now(), existing.status)), labels && { from: existing.metadata.labels ?? {}, to: labels });
  }

  /**
   * fastStatusUpdateOnce checks the node's health every 100 ms after registration and reports the
   * status as soon as it is ready, so the node does not wait a whole period as NotReady (kubelet
   * fastStatusUpdateOnce). It gives up after FAST_STATUS_UPDATE_LIMIT_MS.
   */
  async fastStatusUpdateOnce(signal: AbortSignal): Promise<void> {
    const { clock } = this.options;
    const until = clock.now() + FAST_STATUS_UPDATE_LIMIT_MS;
    while (!signal.aborted && clock.now() < until) {
      if (this.options.health().runtimeErrors.length === 0) {
        if (this.reported?.conditions?.find((c) => c.type === "Ready")?.status !== "True") await this.updateNodeStatus();
        return;
      }
      await clock.sleep(100, signal, IN_BACKGROUND);
    }
  }

  /** run reports the status every period until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.options.clock.sleep(NODE_STATUS_UPDATE_PERIOD_MS, signal, IN_BACKGROUND);
      if (signal.aborted) return;
      await this.updateNodeStatus();
    }
  }

  /** updateNodeStatus tries NODE_STATUS_UPDATE_RETRY times to report the status (kubelet updateNodeStatus). */
  async updateNodeStatus(): Promise<void> {
    for (let i = 0; i < NODE_STATUS_UPDATE_RETRY; i++) {
      try {
        await this.tryUpdateNodeStatus(i);
        return;
      } catch (err) {
        this.options.logger.warn("Error updating node status, will retry", { err: err instanceof Error ? err.message : String(err) });
      }
    }
    this.options.logger.error("Unable to update node status: update node status exceeds retry count");
  }

  /**
   * tryUpdateNodeStatus reads the Node (the first try from the API server's cache,
   * resourceVersion=0, as the kubelet does) and PATCHes its status when it changed or the
   * report period passed.
   */
  async tryUpdateNodeStatus(attempt: number): Promise<void> {
    const { client, identity, clock } = this.options;
    const current = await client.request<NodeObject>("GET", attempt === 0 ? `${this.path}?resourceVersion=0` : this.path);
    const now = clock.now();
    const next = mergeNodeStatus(current.status, nodeStatus(identity, this.options.health(), now, current.status));
    if (!statusChanged(current.status, next) && now - this.lastReportAt < NODE_STATUS_REPORT_PERIOD_MS) return;
    await this.patchStatus(current.status, next);
  }

  private async patchStatus(original: NodeStatus | undefined, next: NodeStatus, labels?: { from: Record<string, string>; to: Record<string, string> }): Promise<NodeObject> {
    const before: Record<string, JsonValue> = { status: (original ?? {}) as unknown as JsonValue };
    const after: Record<string, JsonValue> = { status: next as unknown as JsonValue };
    if (labels) {
      before["metadata"] = { labels: labels.from };
      after["metadata"] = { labels: labels.to };
    }
    const patch = createTwoWayMergePatch(before, after, NODE_SCHEMA);
    const patched = await this.options.client.request<NodeObject>("PATCH", `${this.path}/status`, { body: patch, contentType: "application/strategic-merge-patch+json" });
    this.reported = patched.status;
    this.lastReportAt = this.options.clock.now();
    return patched;
  }

  /** lastReported is the status the API server last accepted (for tests and logs). */
  get lastReported(): NodeStatus | undefined {
    return this.reported;
  }
}

/**
 * withDefaultLabels returns an existing Node's labels with the kubelet's default labels
 * (hostname, os, arch) set to this node's values, or undefined when they already are: a Node made
 * by someone else before the node registered gets them, as the kubelet's updateDefaultLabels
 * gives them (kubelet_node_status.go). Other labels are left as they are.
 */
export function withDefaultLabels(existing: Record<string, string> | undefined, defaults: Record<string, string>): Record<string, string> | undefined {
  const current = existing ?? {};
  const changed = Object.entries(defaults).filter(([key, value]) => current[key] !== value);
  return changed.length === 0 ? undefined : { ...current, ...Object.fromEntries(changed) };
}
