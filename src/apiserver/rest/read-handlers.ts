// GET on a collection (list, or watch with ?watch) and on one object, for any resource: the
// store's list and watch narrowed by the path's namespace and the request's selectors, paged
// with limit/continue, as JSON or as a Table.
import { queryBool, queryNonNegativeInt } from "../endpoints/query.js";
import { sendJson } from "../endpoints/respond.js";
import type { Handler, RequestContext } from "../endpoints/request-context.js";
import { badRequestStatus, StatusError } from "../endpoints/status-object.js";
import type { ResourceDefinition } from "../resources/resource-definition.js";
import type { KubeObject } from "../storage/object-store.js";
import { nameOf, namespaceOf, sendObject, withTypeMeta } from "./request-scope.js";
import { selectorFilter } from "./selector-adapter.js";
import { renderTable, wantsTable, type ListMeta } from "./table-adapter.js";
import { serveResourceWatch } from "./watch-response.js";

/** MAX_WATCH_TIMEOUT_SECONDS bounds timeoutSeconds (the API server's --min-request-timeout doubled). */
const MAX_WATCH_TIMEOUT_SECONDS = 3600;

/** resourceVersionOf reads ?resourceVersion= as a store revision ("" and "0": undefined). */
function resourceVersionOf(query: URLSearchParams): number | undefined {
  const value = query.get("resourceVersion") ?? "";
  if (value === "" || value === "0") return undefined;
  if (!/^\d{1,15}$/.test(value)) throw new StatusError(badRequestStatus(`invalid resource version: ${value}`));
  return Number(value);
}

/** listHandler serves GET on a collection: a list, or a watch with ?watch. */
export function listHandler(resource: ResourceDefinition): Handler {
  return (ctx) => {
    const namespace = namespaceOf(ctx, resource);
    const filter = selectorFilter(resource.name, ctx.query);
    if (queryBool(ctx.query, "watch")) return watchCollection(ctx, resource, namespace, filter);
    const limit = queryNonNegativeInt(ctx.query, "limit");
    const continueToken = ctx.query.get("continue") ?? "";
    const page = ctx.api.store.list(resource.name, {
      ...(namespace !== undefined ? { namespace } : {}),
      ...(filter !== undefined ? { filter } : {}),
      ...(limit !== undefined && limit > 0 ? { limit } : {}),
      ...(continueToken !== "" ? { continueToken } : {}),
    });
    const listMeta: ListMeta = { resourceVersion: page.resourceVersion };
    if (page.continueToken !== undefined) listMeta.continue = page.continueToken;
    if (page.remainingItemCount !== undefined) listMeta.remainingItemCount = page.remainingItemCount;
    const table = wantsTable(ctx.req.headers.accept, ctx.query);
    if (table !== undefined) {
      sendJson(ctx.res, 200, renderTable(resource.name, page.items, table, ctx.clock.now(), listMeta));
      return;
    }
    sendJson(ctx.res, 200, { kind: `${resource.kind}List`, apiVersion: "v1", metadata: listMeta, items: page.items.map((o) => withTypeMeta(resource, o)) });
  };
}

function watchCollection(ctx: RequestContext, resource: ResourceDefinition, namespace: string | undefined, filter: ((o: KubeObject) => boolean) | undefined): Promise<void> {
  const timeoutSeconds = queryNonNegativeInt(ctx.query, "timeoutSeconds");
  const table = wantsTable(ctx.req.headers.accept, ctx.query);
  const render = (object: KubeObject): unknown =>
    table === undefined ? withTypeMeta(resource, object) : renderTable(resource.name, [object], table, ctx.clock.now(), { resourceVersion: object.metadata.resourceVersion ?? "" });
  return serveResourceWatch(ctx.res, ctx.streams.start(ctx.res), ctx.api.store, {
    resource: resource.name,
    kind: resource.kind,
    namespace,
    filter,
    fromResourceVersion: resourceVersionOf(ctx.query),
    allowBookmarks: queryBool(ctx.query, "allowWatchBookmarks"),
    bookmarkIntervalMs: ctx.bookmarkIntervalMs,
    timeoutMs: timeoutSeconds === undefined || timeoutSeconds === 0 ? undefined : Math.min(timeoutSeconds, MAX_WATCH_TIMEOUT_SECONDS) * 1000,
    render,
  }, ctx.clock, ctx.logger);
}

/** getHandler serves GET on one object (also the status subresource). */
export function getHandler(resource: ResourceDefinition): Handler {
  return (ctx) => {
    const name = nameOf(ctx);
    sendObject(ctx, resource, 200, ctx.api.store.mustGet(resource.name, namespaceOf(ctx, resource), name));
  };
}
