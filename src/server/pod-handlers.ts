// The pod resource: list and watch, get, create (JSON or YAML), graceful delete, logs and probe
// history, with the API server's paths, status codes and error texts.
import type { LogRequest, WatchEvent } from "../agent/agent-api.js";
import type { Pod } from "../api/types.js";
import type { ProbeHistoryEntry, ProbeHistorySegment } from "../prober/probe-history.js";
import { isRangeQuery, parseRangeQuery } from "./probe-range-query.js";
import { serveLogs } from "./log-stream.js";
import { nonNegativeInt, queryBool, queryNonNegativeInt } from "./query.js";
import { decodeObjectBody, mediaType, readBody } from "./request-body.js";
import { sendJson } from "./respond.js";
import type { RequestContext } from "./routes.js";
import { badRequestStatus, StatusError } from "./status-object.js";
import { serveWatch } from "./watch-stream.js";

/** NAMESPACE_MISMATCH is the API server's text when a body's namespace differs from the URL's. */
export const NAMESPACE_MISMATCH = "the namespace of the provided object does not match the namespace sent on the request";

/** PodList is core/v1 PodList as the list routes render it. */
export interface PodList {
  kind: "PodList";
  apiVersion: "v1";
  metadata: Record<string, never>;
  items: Pod[];
}

/** asPod returns the pod with kind and apiVersion first, as the API server renders a single object. */
export function asPod(pod: Pod): Pod {
  const { kind: _kind, apiVersion: _apiVersion, ...rest } = pod;
  return { kind: "Pod", apiVersion: "v1", ...rest };
}

function namespaceOf(pod: Pod): string {
  return pod.metadata.namespace ?? "default";
}

/** listPods serves GET /api/v1/pods and /api/v1/namespaces/{ns}/pods, or a watch on them with ?watch. */
export function listPods(ctx: RequestContext): Promise<void> | void {
  const namespace = ctx.params["ns"];
  if (!queryBool(ctx.query, "watch")) return kubeletPods(ctx);
  return serveWatch(ctx.res, ctx.streams.start(ctx.res), {
    list: () => ctx.api.listPods(namespace),
    subscribe: (listener: (event: WatchEvent<Pod>) => void) => ctx.api.watchPods(listener),
    matches: (pod) => namespace === undefined || namespaceOf(pod) === namespace,
    render: asPod,
  }, ctx.logger);
}

/** kubeletPods serves GET /pods, the kubelet read-only port's pod list (also the non-watch list routes). */
export function kubeletPods(ctx: RequestContext): void {
  const list: PodList = { kind: "PodList", apiVersion: "v1", metadata: {}, items: ctx.api.listPods(ctx.params["ns"]).map(asPod) };
  sendJson(ctx.res, 200, list);
}

/** getPod serves GET /api/v1/namespaces/{ns}/pods/{name}. */
export function getPod(ctx: RequestContext): void {
  const { ns = "", name = "" } = ctx.params;
  ctx.subject.name = name;
  sendJson(ctx.res, 200, asPod(ctx.api.getPod(ns, name)));
}

/** SERVER_SET_METADATA are the metadata fields the API server sets itself on create, ignoring the client's. */
export const SERVER_SET_METADATA = ["uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "resourceVersion", "generation"] as const;

// checkTypeMeta refuses a body that names another type, as the API server's create handler does
// (apiserver pkg/endpoints/handlers/create.go: a decode into the wrong kind is "<kind> in version
// <v> cannot be handled as a Pod", another group/version "the API version in the data …").
// Absent or empty apiVersion and kind default to v1 Pod; non-strings are left to strict decoding.
function checkTypeMeta(body: Record<string, unknown>): void {
  const apiVersion = body["apiVersion"];
  const kind = body["kind"];
  if (typeof apiVersion === "string" && apiVersion !== "" && apiVersion !== "v1") {
    throw new StatusError(badRequestStatus(`the API version in the data (${apiVersion}) does not match the expected API version (v1)`));
  }
  if (typeof kind === "string" && kind !== "" && kind !== "Pod") {
    throw new StatusError(badRequestStatus(`${kind} in version "v1" cannot be handled as a Pod: the kind in the data (${kind}) does not match the expected kind (Pod)`));
  }
}

/**
 * createPod serves POST /api/v1/namespaces/{ns}/pods. A body of another kind or API version, or
 * that names another namespace, is refused as the API server refuses it (400 BadRequest); an
 * empty namespace takes the URL's. Client-set uid, timestamps and resourceVersion are dropped:
 * the server sets its own (apiserver rest.FillObjectMetaSystemFields / BeforeCreate).
 */
export async function createPod(ctx: RequestContext): Promise<void> {
  const ns = ctx.params["ns"] ?? "";
  const body = decodeObjectBody(await readBody(ctx.req), ctx.req.headers["content-type"]);
  checkTypeMeta(body);
  const metadata = body["metadata"];
  if (metadata !== null && typeof metadata === "object" && !Array.isArray(metadata)) {
    const meta = metadata as Record<string, unknown>;
    if (typeof meta["name"] === "string") ctx.subject.name = meta["name"];
    const bodyNamespace = meta["namespace"];
    if (bodyNamespace !== undefined && bodyNamespace !== "" && bodyNamespace !== ns) {
      throw new StatusError(badRequestStatus(NAMESPACE_MISMATCH));
    }
    const serverSet: ReadonlySet<string> = new Set(SERVER_SET_METADATA);
    body["metadata"] = Object.fromEntries(Object.entries(meta).filter(([field]) => !serverSet.has(field)));
  }
  sendJson(ctx.res, 201, asPod(ctx.api.createPod(body, ns)));
}

/**
 * deletePod serves DELETE /api/v1/namespaces/{ns}/pods/{name}. The grace period comes from
 * ?gracePeriodSeconds=N or a DeleteOptions body; the query wins, as in the API server, which
 * decodes query parameters over the body's options.
 */
export async function deletePod(ctx: RequestContext): Promise<void> {
  const { ns = "", name = "" } = ctx.params;
  ctx.subject.name = name;
  let grace = queryNonNegativeInt(ctx.query, "gracePeriodSeconds");
  const raw = await readBody(ctx.req);
  if (raw.toString("utf8").trim() !== "") {
    // kubectl sends DeleteOptions as JSON; anything but YAML (curl's defaults, none) is read as JSON.
    const contentType = mediaType(ctx.req.headers["content-type"]) === "application/yaml" ? "application/yaml" : "application/json";
    const options = decodeObjectBody(raw, contentType);
    const fromBody = options["gracePeriodSeconds"];
    if (grace === undefined && fromBody !== undefined && fromBody !== null) grace = nonNegativeInt("gracePeriodSeconds", fromBody);
  }
  const pod = grace === undefined ? ctx.api.deletePod(ns, name) : ctx.api.deletePod(ns, name, grace);
  sendJson(ctx.res, 200, asPod(pod));
}

/**
 * ProbeHistoryList is what GET …/pods/{name}/probes answers: the pod's newest probes, oldest
 * first; a range query (?since, until, container, probeType) adds the collapsed runs (segments).
 */
export interface ProbeHistoryList {
  kind: "ProbeHistoryList";
  apiVersion: "probelet/v1alpha1";
  metadata: { namespace: string; name: string };
  items: ProbeHistoryEntry[];
  segments?: ProbeHistorySegment[];
}

/** podProbes serves GET /api/v1/namespaces/{ns}/pods/{name}/probes (beyond the API server: probe history). */
export function podProbes(ctx: RequestContext): void {
  const { ns = "", name = "" } = ctx.params;
  ctx.subject.name = name;
  const metadata = { namespace: ns, name };
  if (isRangeQuery(ctx.query)) {
    const range = ctx.api.probeHistoryRange(ns, name, parseRangeQuery(ctx.query, ctx.api.probeHistoryWindowMs));
    sendJson(ctx.res, 200, { kind: "ProbeHistoryList", apiVersion: "probelet/v1alpha1", metadata, items: range.items, segments: range.segments } satisfies ProbeHistoryList);
    return;
  }
  const list: ProbeHistoryList = { kind: "ProbeHistoryList", apiVersion: "probelet/v1alpha1", metadata, items: ctx.api.probeHistory(ns, name) };
  sendJson(ctx.res, 200, list);
}

/** podLogs serves GET /api/v1/namespaces/{ns}/pods/{name}/log (container, previous, follow, tailLines, timestamps). */
export function podLogs(ctx: RequestContext): Promise<void> {
  const { ns = "", name = "" } = ctx.params;
  ctx.subject.name = name;
  const tailLines = queryNonNegativeInt(ctx.query, "tailLines");
  const container = ctx.query.get("container");
  const request: LogRequest & { signal: AbortSignal } = {
    namespace: ns,
    name,
    previous: queryBool(ctx.query, "previous"),
    follow: queryBool(ctx.query, "follow"),
    timestamps: queryBool(ctx.query, "timestamps"),
    signal: ctx.streams.start(ctx.res),
  };
  if (container !== null && container !== "") request.container = container;
  if (tailLines !== undefined) request.tailLines = tailLines;
  return serveLogs(ctx.res, ctx.api, request, ctx.logger);
}
