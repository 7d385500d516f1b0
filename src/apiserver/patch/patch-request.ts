// One entry point for a PATCH request body: pick the patch type from the Content-Type, decode the
// body within the API server's size limit, apply it, and keep managedFields the way the API
// server's patch handler does (handlers/patch.go: apply patches go through the field manager's
// Apply, the other types through Update with the request's fieldManager).

import { MAX_YAML_INPUT_BYTES, parseBounded, type BoundedParseResult } from "../../api/bounded-parse.js";
import { goQuote } from "../../api/field-errors.js";
import { applyJsonPatch } from "./json-patch.js";
import { applyMergePatch } from "./merge-patch.js";
import { applyStrategicMergePatch } from "./strategic-merge-patch.js";
import { recordUpdate, serverSideApply } from "./server-side-apply.js";
import { PatchError } from "./patch-error.js";
import { isJsonObject, type JsonObject, type JsonValue } from "./json-value.js";
import { schemaForObject, type TypeSchema } from "./patch-schema.js";

/** The patch media types the API server accepts, in the order its 415 message lists them. */
export const PATCH_CONTENT_TYPES = [
  "application/json-patch+json",
  "application/merge-patch+json",
  "application/strategic-merge-patch+json",
  "application/apply-patch+yaml",
] as const;

/** PatchContentType is one accepted patch media type. */
export type PatchContentType = (typeof PATCH_CONTENT_TYPES)[number];

/** MAX_FIELD_MANAGER_LENGTH is apimachinery's FieldManagerMaxLength. */
export const MAX_FIELD_MANAGER_LENGTH = 128;

const INVALID_PATCH_OPTIONS = 'PatchOptions.meta.k8s.io "" is invalid';

/** MAX_PATCH_BODY_BYTES is the API server's request body limit (3 MiB). */
export const MAX_PATCH_BODY_BYTES = 3 * 1024 * 1024;

/** patchContentType reads the media type of a Content-Type header, or answers the API server's 415. */
export function patchContentType(header: string | undefined): PatchContentType {
  const mediaType = (header ?? "").split(";")[0]!.trim().toLowerCase();
  const known = PATCH_CONTENT_TYPES.find((candidate) => candidate === mediaType);
  if (known === undefined) {
    throw new PatchError(415, `the body of the request was in an unknown format - accepted media types include: ${PATCH_CONTENT_TYPES.join(", ")}`);
  }
  return known;
}

/**
 * decodePatchBody decodes a patch body within the bounds of src/api/bounded-parse.ts: JSON for
 * the JSON types; for apply, JSON when the body is JSON (what kubectl sends; YAML includes it, and
 * JSON costs a few bytes of work per byte) and YAML otherwise (1 MiB, a token budget, duplicate
 * keys found in linear time). Past a bound the answer is 413 or 400, quickly.
 */
export function decodePatchBody(contentType: PatchContentType, body: string | Uint8Array): JsonValue {
  const size = typeof body === "string" ? Buffer.byteLength(body) : body.byteLength;
  if (size > MAX_PATCH_BODY_BYTES) throw new PatchError(413, `Request entity too large: limit is ${MAX_PATCH_BODY_BYTES}`);
  const text = typeof body === "string" ? body : Buffer.from(body).toString("utf8");
  const apply = contentType === "application/apply-patch+yaml";
  const prefix = apply ? "error decoding YAML" : "error decoding patch";
  let parsed: BoundedParseResult = parseBounded(text, apply && !/^\s*[[{]/.test(text) ? "yaml" : "json", "body");
  // A flow mapping such as `{a: 1}` is YAML though not JSON: within YAML's size limit it gets a second reading.
  if (apply && !parsed.ok && parsed.reason === "Syntax" && /^\s*[[{]/.test(text) && size <= MAX_YAML_INPUT_BYTES) parsed = parseBounded(text, "yaml", "body");
  if (!parsed.ok && parsed.reason === "TooLarge") throw new PatchError(413, `Request entity too large: limit is ${MAX_YAML_INPUT_BYTES}`);
  if (!parsed.ok) throw new PatchError(400, `${prefix}: ${parsed.errors.join("; ")}`);
  if (parsed.documents.length > 1) throw new PatchError(400, `${prefix}: the body must be a single document, got ${parsed.documents.length}`);
  return (parsed.documents[0]?.value ?? null) as JsonValue;
}

/** PatchRequest is everything applyPatchRequest needs from one PATCH. */
export interface PatchRequest {
  contentType: PatchContentType;
  /** The stored object; undefined when absent (only an apply may then create it). */
  live: JsonObject | undefined;
  /** The decoded body (decodePatchBody). */
  patch: JsonValue;
  /**
   * The fieldManager query parameter (required for apply). For other patches the REST layer passes
   * the request's fieldManager or, without one, the client's User-Agent (managerOrUserAgent).
   */
  manager: string;
  /** The force query parameter, when given (only an apply may carry it). */
  force?: boolean;
  now: Date;
  /** Patch metadata; defaults to the core/v1 schema of the object's kind. */
  schema?: TypeSchema;
}

/** The outcome of a PATCH: the new object and whether it was created (201) rather than updated (200). */
export interface PatchOutcome {
  object: JsonObject;
  created: boolean;
}

/**
 * applyPatchRequest applies one PATCH body of any accepted type and returns the new object with
 * its managedFields maintained. A missing object is only created by an apply; the REST layer answers
 * 404 for the other types before calling this (an undefined `live` here is a 400).
 */
export function applyPatchRequest(request: PatchRequest): PatchOutcome {
  const { contentType, live, patch, manager, now } = request;
  validateFieldManager(manager);
  if (contentType === "application/apply-patch+yaml") {
    return serverSideApply(live, patch, { manager, now, force: request.force === true, ...(request.schema ? { schema: request.schema } : {}) });
  }
  if (request.force !== undefined) {
    throw new PatchError(422, `${INVALID_PATCH_OPTIONS}: force: Forbidden: may not be specified for non-apply patch`);
  }
  if (live === undefined) throw new PatchError(400, "only an apply patch can create an object");
  let patched: JsonValue;
  if (contentType === "application/json-patch+json") patched = applyJsonPatch(live, patch);
  else if (contentType === "application/merge-patch+json") patched = applyMergePatch(live, patch);
  else patched = applyStrategicMergePatch(live, patch, request.schema ?? schemaForObject(live));
  if (!isJsonObject(patched)) throw new PatchError(422, "the patched document is not a JSON object");
  return { object: recordUpdate(live, patched, manager, now, request.schema), created: false };
}

/** validateFieldManager is apimachinery's ValidateFieldManager: at most 128 bytes, printable characters only. */
function validateFieldManager(manager: string): void {
  if (Buffer.byteLength(manager) > MAX_FIELD_MANAGER_LENGTH) {
    throw new PatchError(422, `${INVALID_PATCH_OPTIONS}: fieldManager: Too long: may not be more than ${MAX_FIELD_MANAGER_LENGTH} bytes`);
  }
  if (/\p{C}/u.test(manager)) {
    throw new PatchError(422, `${INVALID_PATCH_OPTIONS}: fieldManager: Invalid value: ${goQuote(manager)}: must only contain printable characters`);
  }
}
