// GET /openapi/v2: an OpenAPI v2 document that declares the API and no schemas. kubectl 1.20
// validates `create` and `apply` against /openapi/v2 (protobuf) and stops with "the server could
// not find the requested resource" when it is missing; given a document, it skips client-side
// validation of a kind the document has no definition for (kubectl
// pkg/util/openapi/validation: "resource is not present, let's just skip validation"), and
// `apply` falls back to its compiled-in patch strategy. The server validates every write.
import type { RequestContext } from "../endpoints/request-context.js";
import { sendBody, sendJson } from "../endpoints/respond.js";
import { lengthDelimited, message } from "../protobuf/protobuf-writer.js";
import { GIT_VERSION } from "./version-info.js";

/**
 * OPENAPI_V2_PROTOBUF is the Content-Type of the protobuf document (gnostic's openapi_v2.Document)
 * as kube-openapi answers it: kubectl asks for `…spec.v2@v1.0+protobuf`, but `@` is no token
 * character and Go's mime.ParseMediaType refuses it in an answer, so the answer spells it with a dot.
 */
export const OPENAPI_V2_PROTOBUF = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

/** The Accept clause both spellings (`…spec.v2@v1.0+protobuf`, `…spec.v2.v1.0+protobuf`) start with. */
const PROTOBUF_ACCEPT_PREFIX = "application/com.github.proto-openapi.spec.v2";

const TITLE = "Kubernetes";

/** openApiV2Json is the JSON document: Swagger 2.0, the API's title and version, no paths. */
export function openApiV2Json(): Record<string, unknown> {
  return { swagger: "2.0", info: { title: TITLE, version: GIT_VERSION }, paths: {} };
}

/**
 * openApiV2Protobuf is the same document as gnostic's openapi_v2.Document: swagger (field 1),
 * info (2: title 1, version 2) and an empty paths message (8).
 */
export function openApiV2Protobuf(): Uint8Array {
  return message(lengthDelimited(1, "2.0"), lengthDelimited(2, message(lengthDelimited(1, TITLE), lengthDelimited(2, GIT_VERSION))), lengthDelimited(8, message()));
}

/** openApiV2Handler answers protobuf when the Accept header names its media type, else JSON. */
export function openApiV2Handler(ctx: RequestContext): void {
  if ((ctx.req.headers.accept ?? "").includes(PROTOBUF_ACCEPT_PREFIX)) sendBody(ctx.res, 200, OPENAPI_V2_PROTOBUF, openApiV2Protobuf());
  else sendJson(ctx.res, 200, openApiV2Json());
}
