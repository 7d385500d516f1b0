// The one place the REST layer calls the patch library (src/apiserver/patch): a PATCH body of
// any of the four types applied to the stored object, and managedFields kept on creates and
// updates, as the API server's field manager does.
import type { IncomingMessage } from "node:http";
import { applyPatchRequest, decodePatchBody, patchContentType, recordUpdate, type JsonObject, type PatchContentType } from "../patch/index.js";
import type { KubeObject } from "../storage/object-store.js";

/** PatchType is one of the four patch media types. */
export type PatchType = PatchContentType;

/** APPLY_PATCH is server-side apply's media type (an apply of an absent object creates it). */
export const APPLY_PATCH: PatchType = "application/apply-patch+yaml";

/** patchTypeOf reads a PATCH request's Content-Type; anything else is the API server's 415. */
export function patchTypeOf(contentType: string | undefined): PatchType {
  return patchContentType(contentType);
}

/**
 * managerOf is a write's field manager: ?fieldManager=, else the client's User-Agent up to its
 * first "/" (the API server's default manager, e.g. "kubectl"), else "unknown".
 */
export function managerOf(query: URLSearchParams, req: IncomingMessage): string {
  const given = query.get("fieldManager");
  if (given !== null) return given;
  const agent = (req.headers["user-agent"] ?? "").split("/")[0]?.trim() ?? "";
  return agent === "" ? "unknown" : agent;
}

/** PatchRequest is one PATCH to apply. */
export interface PatchRequest {
  type: PatchType;
  body: Buffer;
  fieldManager: string;
  /** The force query parameter when given (apply only). */
  force: boolean | undefined;
  now: number;
}

/**
 * applyPatch returns the object `current` becomes under the patch (current undefined: an apply
 * creating the object), managedFields included. Errors are PatchErrors with the API server's
 * codes and texts (400, 409 apply conflicts, 413, 415, 422).
 */
export function applyPatch(current: KubeObject | undefined, request: PatchRequest): KubeObject {
  const patch = decodePatchBody(request.type, request.body);
  const outcome = applyPatchRequest({
    contentType: request.type,
    live: current as unknown as JsonObject | undefined,
    patch,
    manager: request.fieldManager,
    ...(request.force !== undefined ? { force: request.force } : {}),
    now: new Date(request.now),
  });
  return outcome.object as unknown as KubeObject;
}

/** withManagedFields records a create (current undefined) or an update by `manager` in the object's managedFields. */
export function withManagedFields(current: KubeObject | undefined, next: KubeObject, manager: string, now: number): KubeObject {
  return recordUpdate(current as unknown as JsonObject | undefined, next as unknown as JsonObject, manager, new Date(now)) as unknown as KubeObject;
}
