// DELETE on an object and on a collection for any resource. DeleteOptions come from the body
// (kubectl sends {"propagationPolicy":"Background"}) and from the query, which wins
// (gracePeriodSeconds, dryRun, propagationPolicy); preconditions come from the body.
import { decodeObjectBody, mediaType, readBody } from "../../server/request-body.js";
import { nonNegativeInt, queryNonNegativeInt } from "../../server/query.js";
import { sendJson } from "../../server/respond.js";
import type { Handler, RequestContext } from "../../server/request-context.js";
import { badRequestStatus, StatusError } from "../../server/status-object.js";
import type { ResourceDefinition } from "../resources/resource-definition.js";
import type { KubeObject } from "../storage/object-store.js";
import { deleteObject, type DeleteRequest } from "./object-deletes.js";
import { writeOptionsOf } from "./object-writes.js";
import { nameOf, namespaceOf, sendObject, withTypeMeta } from "./request-scope.js";
import { selectorFilter } from "./selector-adapter.js";

const PROPAGATION_POLICIES: readonly string[] = ["Orphan", "Background", "Foreground"];

/** deleteRequestOf reads DeleteOptions from the body and the query. */
async function deleteRequestOf(ctx: RequestContext): Promise<DeleteRequest> {
  const request: DeleteRequest = { preconditions: {}, dryRun: writeOptionsOf(ctx.query).dryRun };
  const raw = await readBody(ctx.req);
  let propagation = ctx.query.get("propagationPolicy") ?? undefined;
  if (raw.toString("utf8").trim() !== "") {
    // kubectl sends DeleteOptions as JSON; anything but YAML (curl's defaults, none) is read as JSON.
    const contentType = mediaType(ctx.req.headers["content-type"]) === "application/yaml" ? "application/yaml" : "application/json";
    const body = decodeObjectBody(raw, contentType);
    const grace = body["gracePeriodSeconds"];
    if (grace !== undefined && grace !== null) request.gracePeriodSeconds = nonNegativeInt("gracePeriodSeconds", grace);
    const preconditions = body["preconditions"];
    if (preconditions !== null && typeof preconditions === "object" && !Array.isArray(preconditions)) {
      const { uid, resourceVersion } = preconditions as Record<string, unknown>;
      if (typeof uid === "string") request.preconditions.uid = uid;
      if (typeof resourceVersion === "string") request.preconditions.resourceVersion = resourceVersion;
    }
    if (Array.isArray(body["dryRun"]) && body["dryRun"].includes("All")) request.dryRun = true;
    if (propagation === undefined && typeof body["propagationPolicy"] === "string") propagation = body["propagationPolicy"];
  }
  const fromQuery = queryNonNegativeInt(ctx.query, "gracePeriodSeconds");
  if (fromQuery !== undefined) request.gracePeriodSeconds = fromQuery;
  if (propagation !== undefined && !PROPAGATION_POLICIES.includes(propagation)) {
    throw new StatusError(badRequestStatus(`propagationPolicy: Unsupported value: "${propagation}": supported values: "Foreground", "Background", "Orphan"`));
  }
  return request;
}

/** successStatus is the Status a delete answers for resources that do not return the object. */
function successStatus(resource: ResourceDefinition, object: KubeObject): Record<string, unknown> {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", details: { name: object.metadata.name ?? "", kind: resource.name, uid: object.metadata.uid ?? "" } };
}

/** deleteHandler serves DELETE on one object. */
export function deleteHandler(resource: ResourceDefinition): Handler {
  return async (ctx) => {
    const name = nameOf(ctx);
    const request = await deleteRequestOf(ctx);
    const { object } = deleteObject(ctx.api.store, resource, namespaceOf(ctx, resource), name, request, ctx.clock.now());
    if (resource.returnsDeletedObject === true) sendObject(ctx, resource, 200, object, resource.deleteWarnings?.(object) ?? []);
    else sendJson(ctx.res, 200, successStatus(resource, object));
  };
}

/** deleteCollectionHandler serves DELETE on a collection: every selected object, answered as a list. */
export function deleteCollectionHandler(resource: ResourceDefinition): Handler {
  return async (ctx) => {
    const namespace = namespaceOf(ctx, resource);
    const filter = selectorFilter(resource.name, ctx.query);
    const request = await deleteRequestOf(ctx);
    const { items, resourceVersion } = ctx.api.store.list(resource.name, { ...(namespace !== undefined ? { namespace } : {}), ...(filter !== undefined ? { filter } : {}) });
    const deleted = items.map((o) => deleteObject(ctx.api.store, resource, o.metadata.namespace, o.metadata.name ?? "", request, ctx.clock.now()).object);
    sendJson(ctx.res, 200, { kind: `${resource.kind}List`, apiVersion: "v1", metadata: { resourceVersion }, items: deleted.map((o) => withTypeMeta(resource, o)) });
  };
}
