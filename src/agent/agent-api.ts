// The agent's surface for its status API and CLI: pods with status, events, logs, and
// the create/delete operations, in core/v1 shapes. The HTTP server (src/server/) depends on
// this interface only, never on the agent's internals.
import type { ObjectMeta, Pod } from "../api/types.js";
import type { HistoryQuery, ProbeHistoryEntry, ProbeHistoryRange } from "../prober/probe-history.js";

/** ObjectReference names the object an event is about (core/v1 ObjectReference). */
export interface ObjectReference {
  kind: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  /** e.g. "spec.containers{app}" for a container of a pod. */
  fieldPath?: string;
}

/** KubeEvent is a core/v1 Event as the agent records it (aggregated: count, first and last time). */
export interface KubeEvent {
  apiVersion: "v1";
  kind: "Event";
  metadata: ObjectMeta;
  involvedObject: ObjectReference;
  reason: string;
  message: string;
  type: "Normal" | "Warning";
  count: number;
  /** RFC 3339 times. */
  firstTimestamp: string;
  lastTimestamp: string;
  source: { component: string; host?: string };
  reportingComponent: string;
  reportingInstance?: string;
}

/** WatchEventType is the type of one watch notification. */
export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED";

/** WatchEvent is one watch notification, as the API server streams them. */
export interface WatchEvent<T> {
  type: WatchEventType;
  object: T;
}

/** ApiErrorReason is a metav1.StatusReason the agent can answer with. */
export type ApiErrorReason = "NotFound" | "AlreadyExists" | "Invalid" | "BadRequest" | "Conflict" | "MethodNotAllowed" | "InternalError";

/** ApiError is a failed agent operation, rendered by the server as a metav1.Status. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    readonly reason: ApiErrorReason,
    message: string,
    /** Field-path errors for reason Invalid. */
    readonly causes: { field?: string; message: string; reason?: string }[] = [],
  ) {
    super(message);
  }

  /** code is the HTTP status for the reason. */
  get code(): number {
    switch (this.reason) {
      case "NotFound":
        return 404;
      case "AlreadyExists":
      case "Conflict":
        return 409;
      case "Invalid":
        return 422;
      case "BadRequest":
        return 400;
      case "MethodNotAllowed":
        return 405;
      default:
        return 500;
    }
  }
}

/** LogRequest selects a container log (kubectl logs options). */
export interface LogRequest {
  namespace: string;
  name: string;
  /** Optional when the pod has exactly one container. */
  container?: string;
  /** The previous instance's log. */
  previous?: boolean;
  follow?: boolean;
  /** Only the last N lines. */
  tailLines?: number;
  /** Prefix each line with its RFC 3339 timestamp. */
  timestamps?: boolean;
  signal?: AbortSignal;
}

/** AgentApi is what the status API and the CLI need from a running agent. */
export interface AgentApi {
  /** listPods returns pods with status, optionally of one namespace, sorted by namespace/name. */
  listPods(namespace?: string): Pod[];
  /** getPod returns one pod with status or throws ApiError NotFound. */
  getPod(namespace: string, name: string): Pod;
  /** createPod validates, admits and starts a pod; throws ApiError Invalid/AlreadyExists/BadRequest. */
  createPod(input: unknown, namespace?: string): Pod;
  /** deletePod starts graceful deletion and returns the pod as it is now; throws NotFound. */
  deletePod(namespace: string, name: string, gracePeriodSeconds?: number): Pod;
  /** listEvents returns events, optionally of one namespace and/or one involved object name. */
  listEvents(namespace?: string, involvedName?: string): KubeEvent[];
  /** watchPods calls back on every pod change; returns an unsubscribe function. */
  watchPods(listener: (event: WatchEvent<Pod>) => void): () => void;
  /** watchEvents calls back on every new or updated event; returns an unsubscribe function. */
  watchEvents(listener: (event: WatchEvent<KubeEvent>) => void): () => void;
  /** readLogs streams a container's log as plain text lines (CRI framing removed). Throws ApiError. */
  readLogs(request: LogRequest): AsyncIterable<string>;
  /** probeHistory returns a pod's last probes, oldest first; throws ApiError NotFound. */
  probeHistory(namespace: string, name: string): ProbeHistoryEntry[];
  /** probeHistoryRange returns a pod's probes and collapsed runs within a time range; throws ApiError NotFound. */
  probeHistoryRange(namespace: string, name: string, query: HistoryQuery): ProbeHistoryRange;
  /** probeHistoryWindowMs is how long probe history is kept: the largest range a query may ask for. */
  readonly probeHistoryWindowMs: number;
  /** probeMetrics renders the kubelet's prober metrics in Prometheus text format. */
  probeMetrics(): Promise<string>;
  /** agentMetrics renders the agent's own metrics in Prometheus text format. */
  agentMetrics(): Promise<string>;
  /** healthz reports whether the agent's sync loop is alive. */
  healthz(): { ok: boolean; message: string };
}
