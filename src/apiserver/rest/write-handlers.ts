// POST, PUT and PATCH for any resource, and PUT/PATCH of a status subresource: the body is
// decoded for the resource, written through object-writes.ts, and answered with the stored
// object (201 on create, 200 on update) and any unknown-field warnings.
import { ACCEPTED_MEDIA_TYPES, decodeObjectBody, mediaType, readBody } from "../endpoints/request-body.js";
import type { Handler, RequestContext } from "../endpoints/request-context.js";
import type { ResourceDefinition } from "../resources/resource-definition.js";
import { badRequestStatus, StatusError, unsupportedMediaTypeStatus } from "../endpoints/status-object.js";
import { decodeKubeProtobuf, KUBE_PROTOBUF } from "../protobuf/kube-protobuf.js";
import { ProtobufError } from "../protobuf/protobuf-reader.js";
import { queryBool } from "../endpoints/query.js";
import { decodeResourceObject, fieldValidationOf } from "./decode-object.js";
import { createObject, updateObject, writeOptionsOf, type UpdateTarget } from "./object-writes.js";
import { APPLY_PATCH, applyPatch, managerOf, patchTypeOf, withManagedFields } from "./patch-adapter.js";
import { nameOf, namespaceOf, sendObject } from "./request-scope.js";

async function decodeBody(ctx: RequestContext, resource: ResourceDefinition): Promise<ReturnType<typeof decodeResourceObject>> {
  const validation = fieldValidationOf(ctx.query);
  const body = parseBody(resource, await readBody(ctx.req), ctx.req.headers["content-type"]);
  const metadata = body["metadata"];
  if (metadata !== null && typeof metadata === "object" && !Array.isArray(metadata)) {
    const name = (metadata as Record<string, unknown>)["name"];
    if (typeof name === "string") ctx.subject.name = name;
  }
  return decodeResourceObject(resource, body, validation);
}

/**
 * parseBody reads JSON or YAML, and the protobuf of the kinds kubectl 1.32 sends as protobuf
 * (kube-protobuf.ts); the protobuf of another kind is a 415, malformed protobuf a 400.
 */
function parseBody(resource: ResourceDefinition, raw: Buffer, contentType: string | undefined): Record<string, unknown> {
  if (mediaType(contentType) !== KUBE_PROTOBUF) return decodeObjectBody(raw, contentType);
  let body: Record<string, unknown> | undefined;
  try {
    body = decodeKubeProtobuf(raw);
  } catch (err) {
    if (!(err instanceof ProtobufError)) throw err;
    throw new StatusError(badRequestStatus(`${resource.kind} in version "v1" cannot be handled as a ${resource.kind}: ${err.message}`));
  }
  if (body === undefined) throw new StatusError(unsupportedMediaTypeStatus(ACCEPTED_MEDIA_TYPES));
  return body;
}

/** createHandler serves POST on a collection. */
export function createHandler(resource: ResourceDefinition): Handler {
  return async (ctx) => {
    const options = writeOptionsOf(ctx.query);
    const { object, warnings } = await decodeBody(ctx, resource);
    const managed = withManagedFields(undefined, object, managerOf(ctx.query, ctx.req), ctx.clock.now());
    sendObject(ctx, resource, 201, createObject(ctx, resource, managed, namespaceOf(ctx, resource), options), warnings);
  };
}

/** updateHandler serves PUT on an object or its status. */
export function updateHandler(resource: ResourceDefinition, target: UpdateTarget): Handler {
  return async (ctx) => {
    const name = nameOf(ctx);
    const options = writeOptionsOf(ctx.query);
    const { object, warnings } = await decodeBody(ctx, resource);
    const current = ctx.api.store.mustGet(resource.name, namespaceOf(ctx, resource), name);
    const managed = withManagedFields(current, object, managerOf(ctx.query, ctx.req), ctx.clock.now());
    sendObject(ctx, resource, 200, updateObject(ctx, resource, managed, current, target, options), warnings);
  };
}

/**
 * patchHandler serves PATCH on an object or its status, in any of the four patch types; an
 * apply patch of an absent object creates it (201).
 */
export function patchHandler(resource: ResourceDefinition, target: UpdateTarget): Handler {
  return async (ctx) => {
    const name = nameOf(ctx);
    const namespace = namespaceOf(ctx, resource);
    const type = patchTypeOf(ctx.req.headers["content-type"]);
    const options = writeOptionsOf(ctx.query);
    const validation = fieldValidationOf(ctx.query);
    const body = await readBody(ctx.req);
    const fieldManager = type === APPLY_PATCH ? (ctx.query.get("fieldManager") ?? "") : managerOf(ctx.query, ctx.req);
    const request = { type, body, fieldManager, force: ctx.query.has("force") ? queryBool(ctx.query, "force") : undefined, now: ctx.clock.now() };
    const current = ctx.api.store.get(resource.name, namespace, name);
    if (current === undefined && type === APPLY_PATCH && target === "main") {
      const created = decodeResourceObject(resource, applyPatch(undefined, request) as unknown as Record<string, unknown>, validation);
      sendObject(ctx, resource, 201, createObject(ctx, resource, created.object, namespace, options), created.warnings);
      return;
    }
    const existing = current ?? ctx.api.store.mustGet(resource.name, namespace, name);
    const patched = decodeResourceObject(resource, applyPatch(existing, request) as unknown as Record<string, unknown>, validation);
    sendObject(ctx, resource, 200, updateObject(ctx, resource, patched.object, existing, target, options), patched.warnings);
  };
}
