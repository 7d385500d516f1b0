// The agent's surface for its status API and CLI: the object store that holds pods, events and
// the other resources, plus the node-only functions (logs, probe history, metrics, health).
// The HTTP server (src/server/) depends on this interface only, never on the agent's internals.
import type { ObjectMeta } from "../api/types.js";
import type { ExecStatus } from "../apiserver/exec/exec-status.js";
import type { ExecContainer, PodSandboxTarget } from "../apiserver/exec/handle-exec.js";
import type { ObjectStore } from "../apiserver/storage/object-store.js";
import type { HistoryQuery, ProbeHistoryEntry, ProbeHistoryRange, ProbeHistorySegment } from "../prober/probe-history.js";

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

/**
 * NodeApi is what only the node can answer: container logs, exec, probe history, metrics and
 * health (the kubelet's own endpoints). Pods, events and every other object are in the store.
 */
export interface NodeApi {
  /** readLogs streams a container's log as plain text lines (CRI framing removed). Throws ApiError. */
  readLogs(request: LogRequest): AsyncIterable<string>;
  /** probeHistory returns a pod's last probes, oldest first; throws ApiError NotFound. */
  probeHistory(namespace: string, name: string): ProbeHistoryEntry[];
  /** probeHistoryRuns returns a pod's probe history as runs of identical results, oldest first; throws ApiError NotFound. */
  probeHistoryRuns(namespace: string, name: string): ProbeHistorySegment[];
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
  /** execContainer finds the running container an exec goes into, or the Status refusing it. */
  execContainer(namespace: string, pod: string, container?: string): ExecContainer | ExecStatus;
  /** podSandbox finds the running sandbox of a pod (port-forward), or the Status refusing it. */
  podSandbox(namespace: string, pod: string): PodSandboxTarget | ExecStatus;
}

/** AgentApi is what the status server serves: the object store of the Kubernetes API and the node's own functions. */
export interface AgentApi extends NodeApi {
  /** The objects of every served resource; the agent reads its pods from here and writes their status back. */
  readonly store: ObjectStore;
  /** The node the agent runs as (pods created through the API are bound to it). */
  readonly nodeName: string;
}
