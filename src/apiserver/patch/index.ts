// The patch library the agent's REST layer calls for PATCH requests (docs/patches.md).

export { PatchError, MAX_PATCH_DEPTH, type PatchErrorCode } from "./patch-error.js";
export type { JsonObject, JsonValue } from "./json-value.js";
export { applyJsonPatch, MAX_JSON_PATCH_COPY_BYTES, MAX_JSON_PATCH_OPERATIONS } from "./json-patch.js";
export { applyMergePatch, createMergePatch } from "./merge-patch.js";
export { applyStrategicMergePatch } from "./strategic-merge-patch.js";
export { createTwoWayMergePatch } from "./strategic-merge-diff.js";
export {
  ApplyConflictError, BEFORE_FIRST_APPLY_MANAGER, recordUpdate, serverSideApply,
  type ApplyOptions, type ApplyResult, type ConflictCause, type ManagedFieldsEntry,
} from "./server-side-apply.js";
export {
  CONFIG_MAP_SCHEMA, EVENT_SCHEMA, NAMESPACE_SCHEMA, NODE_SCHEMA, NODE_STATUS_SCHEMA, OBJECT_META_SCHEMA, PATCH_SCHEMAS,
  POD_SCHEMA, POD_SPEC_SCHEMA, POD_STATUS_SCHEMA, SECRET_SCHEMA, schemaForObject, type TypeSchema,
} from "./patch-schema.js";
export {
  applyPatchRequest, decodePatchBody, MAX_PATCH_BODY_BYTES, PATCH_CONTENT_TYPES, patchContentType,
  type PatchContentType, type PatchOutcome, type PatchRequest,
} from "./patch-request.js";
