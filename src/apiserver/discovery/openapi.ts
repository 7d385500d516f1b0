// Just enough OpenAPI v3 for kubectl 1.32's server-side validation check
// (kubectl pkg/cmd/util: it looks in /openapi/v3/api/v1 for a PATCH operation of kind v1 Pod
// that declares the fieldValidation query parameter; found, it sends fieldValidation=Strict
// and needs no /openapi/v2). Every served resource gets its POST, PUT and PATCH operations
// with x-kubernetes-group-version-kind and the fieldValidation parameter, and each kind's
// schema for `kubectl explain` (openapi-schemas.ts; the server validates).
import { createHash } from "node:crypto";
import type { ResourceDefinition } from "../resources/resource-definition.js";
import { componentSchemas } from "./openapi-schemas.js";

/**
 * openApiIndex is GET /openapi/v3: the served group-versions. Each URL carries the hash of its
 * document (as the API server's: SHA-512 of the content, upper-case hex), so kubectl's cache,
 * keyed by URL, never serves an older agent's document.
 */
export function openApiIndex(resources: readonly ResourceDefinition[]): Record<string, unknown> {
  const hash = createHash("sha512").update(JSON.stringify(openApiCoreV1(resources))).digest("hex").toUpperCase();
  return { paths: { "api/v1": { serverRelativeURL: `/openapi/v3/api/v1?hash=${hash}` } } };
}

const FIELD_VALIDATION = {
  name: "fieldValidation",
  in: "query",
  description: "fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields: Ignore, Warn or Strict.",
  schema: { type: "string", uniqueItems: true },
};
const DRY_RUN = { name: "dryRun", in: "query", schema: { type: "string", uniqueItems: true } };
const FIELD_MANAGER = { name: "fieldManager", in: "query", schema: { type: "string", uniqueItems: true } };

/** openApiCoreV1 is GET /openapi/v3/api/v1. */
export function openApiCoreV1(resources: readonly ResourceDefinition[]): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const r of resources) {
    const gvk = { group: "", version: "v1", kind: r.kind };
    const op = (action: string, id: string): Record<string, unknown> => ({
      operationId: id,
      parameters: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION],
      responses: { "200": { description: "OK" } },
      "x-kubernetes-action": action,
      "x-kubernetes-group-version-kind": gvk,
    });
    const scope = r.namespaced ? "/api/v1/namespaces/{namespace}" : "/api/v1";
    const kindName = r.kind;
    const namespacedWord = r.namespaced ? "Namespaced" : "";
    paths[`${scope}/${r.name}`] = { post: op("post", `createCoreV1${namespacedWord}${kindName}`) };
    paths[`${scope}/${r.name}/{name}`] = {
      put: op("put", `replaceCoreV1${namespacedWord}${kindName}`),
      patch: op("patch", `patchCoreV1${namespacedWord}${kindName}`),
    };
  }
  return {
    openapi: "3.0.0",
    info: { title: "Kubernetes", version: "v1" },
    paths,
    components: { schemas: componentSchemas(resources) },
  };
}
