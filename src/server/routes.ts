// The status server's route table: which handler serves which method on which path, plus the
// small healthz and metrics handlers. Paths follow the API server (/api/v1/…) and the kubelet's
// read-only port (/pods, /healthz, /metrics, /metrics/probes).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AgentApi } from "../agent/agent-api.js";
import type { Logger } from "../util/logger.js";
import { listEvents } from "./event-handlers.js";
import { createPod, deletePod, getPod, kubeletPods, listPods, podLogs, podProbes } from "./pod-handlers.js";
import { PROMETHEUS_CONTENT_TYPE, sendBody, sendText } from "./respond.js";
import type { ErrorSubject } from "./status-object.js";
import type { StreamTracker } from "./stream-tracker.js";

/** RequestContext is what a handler gets for one request. */
export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  /** Decoded path parameters (":ns" → params.ns). */
  params: Record<string, string>;
  query: URLSearchParams;
  api: AgentApi;
  streams: StreamTracker;
  logger: Logger;
  /** Handlers set subject.name so a failure's Status names the pod (details.name). */
  subject: ErrorSubject;
}

/** Handler serves one method on one route; it answers through ctx.res or throws (ApiError, StatusError, …). */
export type Handler = (ctx: RequestContext) => void | Promise<void>;

/** Route is one path pattern ("/api/v1/namespaces/:ns/pods/:name") and its handlers by method. */
export interface Route {
  pattern: string;
  methods: Readonly<Partial<Record<string, Handler>>>;
}

function healthz(ctx: RequestContext): void {
  let health: { ok: boolean; message: string };
  try {
    health = ctx.api.healthz();
  } catch (err) {
    health = { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
  // The kubelet's healthz answers a bare "ok"; a failure carries the reason as plain text.
  sendText(ctx.res, health.ok ? 200 : 500, health.ok ? "ok" : health.message);
}

function metrics(render: (api: AgentApi) => Promise<string>): Handler {
  return async (ctx) => sendBody(ctx.res, 200, PROMETHEUS_CONTENT_TYPE, await render(ctx.api));
}

/** ROUTES is every route the status server serves. */
export const ROUTES: readonly Route[] = [
  { pattern: "/healthz", methods: { GET: healthz } },
  { pattern: "/pods", methods: { GET: kubeletPods } },
  { pattern: "/metrics", methods: { GET: metrics((api) => api.agentMetrics()) } },
  { pattern: "/metrics/probes", methods: { GET: metrics((api) => api.probeMetrics()) } },
  { pattern: "/api/v1/pods", methods: { GET: listPods } },
  { pattern: "/api/v1/events", methods: { GET: listEvents } },
  { pattern: "/api/v1/namespaces/:ns/pods", methods: { GET: listPods, POST: createPod } },
  { pattern: "/api/v1/namespaces/:ns/pods/:name", methods: { GET: getPod, DELETE: deletePod } },
  { pattern: "/api/v1/namespaces/:ns/pods/:name/log", methods: { GET: podLogs } },
  { pattern: "/api/v1/namespaces/:ns/pods/:name/probes", methods: { GET: podProbes } },
  { pattern: "/api/v1/namespaces/:ns/events", methods: { GET: listEvents } },
];

/** RouteMatch is a matched route with its decoded path parameters. */
export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

/**
 * matchRoute finds the route for a path ("/api/v1/namespaces/default/pods/web"). Segments are
 * percent-decoded; an empty or undecodable segment matches nothing (404).
 */
export function matchRoute(pathname: string, routes: readonly Route[] = ROUTES): RouteMatch | undefined {
  const segments = pathname.split("/").slice(1);
  for (const route of routes) {
    const pattern = route.pattern.split("/").slice(1);
    if (pattern.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const matched = pattern.every((part, i) => {
      const segment = segments[i] ?? "";
      if (!part.startsWith(":")) return part === segment;
      const value = decodeSegment(segment);
      if (value === undefined || value === "") return false;
      params[part.slice(1)] = value;
      return true;
    });
    if (matched) return { route, params };
  }
  return undefined;
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
