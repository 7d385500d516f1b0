// What a REST handler reads from its request for one resource: the namespace, the name, and
// how to answer with an object (as JSON, or as a Table when the client asked for one).
import { sendJson } from "../endpoints/respond.js";
import type { Handler, RequestContext } from "../endpoints/request-context.js";
import { addressedResource } from "../error-status.js";
import type { ResourceDefinition } from "../resources/resource-definition.js";
import type { KubeObject } from "../storage/object-store.js";
import { warningHeader } from "./decode-object.js";
import { renderTable, wantsTable } from "./table-adapter.js";

/**
 * onResource wraps a handler of a resource's route so that a failure's Status names that resource
 * (details.kind), as the API server's handlers scope theirs to one qualifiedResource.
 */
export function onResource(resource: ResourceDefinition, handler: Handler): Handler {
  return (ctx) => {
    addressedResource(ctx.subject, resource);
    return handler(ctx);
  };
}

/** namespaceOf is the path's namespace of a namespaced resource, else undefined. */
export function namespaceOf(ctx: RequestContext, resource: ResourceDefinition): string | undefined {
  return resource.namespaced ? ctx.params["ns"] : undefined;
}

/** nameOf is the path's object name; it also names the object in a failure's Status. */
export function nameOf(ctx: RequestContext): string {
  const name = ctx.params["name"] ?? "";
  ctx.subject.name = name;
  return name;
}

/** withTypeMeta puts kind and apiVersion first, as the API server renders a single object. */
export function withTypeMeta(resource: ResourceDefinition, object: KubeObject): KubeObject {
  const { kind: _kind, apiVersion: _apiVersion, ...rest } = object;
  return { kind: resource.kind, apiVersion: "v1", ...rest } as KubeObject;
}

/** sendObject answers with one object (a one-row Table when asked for), plus any Warning headers. */
export function sendObject(ctx: RequestContext, resource: ResourceDefinition, code: number, object: KubeObject, warnings: readonly string[] = []): void {
  if (warnings.length > 0) ctx.res.setHeader("Warning", warningHeader(warnings));
  const table = wantsTable(ctx.req.headers.accept, ctx.query);
  if (table !== undefined) {
    sendJson(ctx.res, code, renderTable(resource.name, [object], table, ctx.clock.now(), { resourceVersion: object.metadata.resourceVersion ?? "" }));
    return;
  }
  sendJson(ctx.res, code, withTypeMeta(resource, object));
}
