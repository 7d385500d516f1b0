// The node's own endpoints (the kubelet's, not the API server's): /healthz, /metrics,
// /metrics/probes, the read-only port's /pods, and probelet's probe history of a pod.
import type { NodeApi } from "../agent/agent-api.js";
import type { Pod } from "../api/types.js";
import { PODS } from "../apiserver/resources/pods.js";
import type { ProbeHistoryEntry, ProbeHistorySegment } from "../prober/probe-history.js";
import { isRangeQuery, parseRangeQuery } from "./probe-range-query.js";
import { PROMETHEUS_CONTENT_TYPE, sendBody, sendJson, sendText } from "./respond.js";
import type { Handler, RequestContext } from "./request-context.js";

/** healthz answers a bare "ok", as the kubelet's healthz does; a failure carries the reason as plain text. */
export function healthz(ctx: RequestContext): void {
  let health: { ok: boolean; message: string };
  try {
    health = ctx.api.healthz();
  } catch (err) {
    health = { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
  sendText(ctx.res, health.ok ? 200 : 500, health.ok ? "ok" : health.message);
}

/** metrics serves one Prometheus text rendering of the node. */
export function metrics(render: (api: NodeApi) => Promise<string>): Handler {
  return async (ctx) => sendBody(ctx.res, 200, PROMETHEUS_CONTENT_TYPE, await render(ctx.api));
}

/** kubeletPods serves GET /pods, the kubelet read-only port's PodList of the node's pods. */
export function kubeletPods(ctx: RequestContext): void {
  const items = ctx.api.store.list<Pod>(PODS.name).items.map(({ kind: _k, apiVersion: _a, ...pod }) => ({ kind: "Pod", apiVersion: "v1", ...pod }));
  sendJson(ctx.res, 200, { kind: "PodList", apiVersion: "v1", metadata: {}, items });
}

/** ProbeHistoryList is what GET …/pods/{name}/probes answers: the pod's last probes, oldest first. */
export interface ProbeHistoryList {
  kind: "ProbeHistoryList";
  apiVersion: "probelet/v1alpha1";
  metadata: { namespace: string; name: string };
  items: ProbeHistoryEntry[];
  /** With a range query: the older runs folded into segments (docs/console.md). */
  segments?: ProbeHistorySegment[];
  /** Without one: the whole window as runs of identical results, oldest first (what describe shows). */
  runs?: ProbeHistorySegment[];
}

/** podProbes serves GET /api/v1/namespaces/{ns}/pods/{name}/probes (beyond the API server: probe history). */
export function podProbes(ctx: RequestContext): void {
  const { ns = "", name = "" } = ctx.params;
  ctx.subject.name = name;
  ctx.api.store.mustGet(PODS.name, ns, name);
  const metadata = { namespace: ns, name };
  if (isRangeQuery(ctx.query)) {
    const range = ctx.api.probeHistoryRange(ns, name, parseRangeQuery(ctx.query, ctx.api.probeHistoryWindowMs));
    sendJson(ctx.res, 200, { kind: "ProbeHistoryList", apiVersion: "probelet/v1alpha1", metadata, items: range.items, segments: range.segments } satisfies ProbeHistoryList);
    return;
  }
  const list: ProbeHistoryList = { kind: "ProbeHistoryList", apiVersion: "probelet/v1alpha1", metadata, items: ctx.api.probeHistory(ns, name), runs: ctx.api.probeHistoryRuns(ns, name) };
  sendJson(ctx.res, 200, list);
}
