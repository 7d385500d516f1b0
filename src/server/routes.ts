// The status server's route table: the node's own endpoints (the kubelet's read-only port:
// /pods, /healthz, /metrics, /metrics/probes, plus probelet's probe history, probe trigger,
// container instances and health summary) and the
// Kubernetes API built from the resource registry (src/apiserver/rest).
import { PODS } from "../apiserver/resources/pods.js";
import { onResource } from "../apiserver/rest/request-scope.js";
import { apiRoutes } from "../apiserver/rest/rest-routes.js";
import { healthz, kubeletPods, metrics, podProbes } from "./node-handlers.js";
import { podHealthSummary } from "./pod-health-summary.js";
import { podInstances } from "./pod-instances-route.js";
import { triggerProbe } from "./probe-trigger-route.js";
import type { Route } from "../apiserver/endpoints/request-context.js";

/** ROUTES is every route the status server serves. */
export const ROUTES: readonly Route[] = [
  { pattern: "/healthz", methods: { GET: healthz } },
  { pattern: "/pods", methods: { GET: kubeletPods } },
  { pattern: "/metrics", methods: { GET: metrics((api) => api.agentMetrics()) } },
  { pattern: "/metrics/probes", methods: { GET: metrics((api) => api.probeMetrics()) } },
  { pattern: "/api/v1/namespaces/:ns/pods/:name/probes", methods: { GET: onResource(PODS, podProbes) } },
  { pattern: "/api/v1/namespaces/:ns/pods/:name/probes/trigger", methods: { POST: onResource(PODS, triggerProbe) } },
  { pattern: "/api/v1/namespaces/:ns/pods/:name/instances", methods: { GET: onResource(PODS, podInstances) } },
  { pattern: "/probes/summary", methods: { GET: podHealthSummary } },
  ...apiRoutes(),
];

/** RouteMatch is a matched route with its decoded path parameters. */
export interface RouteMatch<R extends { pattern: string } = Route> {
  route: R;
  params: Record<string, string>;
}

/**
 * matchRoute finds the route for a path ("/api/v1/namespaces/default/pods/web"). Segments are
 * percent-decoded; an empty or undecodable segment matches nothing (404). Any table of patterns
 * will do (the daemon endpoint has its own).
 */
export function matchRoute<R extends { pattern: string } = Route>(pathname: string, routes: readonly R[] = ROUTES as unknown as readonly R[]): RouteMatch<R> | undefined {
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

/**
 * malformedEscape returns the first malformed percent escape of a request path ("%zz", "%4"),
 * or undefined when there is none: Go's url.ParseRequestURI refuses such a path, and the API
 * server and the kubelet answer it 400 before any handler runs.
 */
export function malformedEscape(path: string): string | undefined {
  const match = /%(?![0-9A-Fa-f]{2})[\s\S]{0,2}/.exec(path);
  return match === null ? undefined : match[0];
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
