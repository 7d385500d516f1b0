// OpenAPI v3 component schemas for the served kinds, built from the schemas the server decodes
// bodies with (src/api/schema.ts and each resource's strategy), so `kubectl explain` (1.32 reads
// /openapi/v3) shows every field the agent knows with its type. There are no descriptions, and a
// field the agent keeps as opaque JSON (a container's resources, securityContext, …) is an open
// object. Each kind's schema carries x-kubernetes-group-version-kind, as the API server's do,
// which is how explain finds it. The PATCH operations declare no request body, so kubectl's
// client-side apply still takes its patch strategy from its compiled-in types
// (apply.go gvkSupportsPatchOpenAPIV3), not from these schemas.
import type { FieldSchema } from "../../api/schema.js";
import type { ResourceDefinition } from "../resources/resource-definition.js";

/** schemaName is a kind's component name, as the API server names core/v1 definitions. */
export function schemaName(kind: string): string {
  return `io.k8s.api.core.v1.${kind}`;
}

/** componentSchemas returns `components.schemas`: one schema per served kind. */
export function componentSchemas(resources: readonly ResourceDefinition[]): Record<string, unknown> {
  return Object.fromEntries(
    resources.map((r) => [schemaName(r.kind), { ...openApiSchema(r.strategy.schema), "x-kubernetes-group-version-kind": [{ group: "", version: "v1", kind: r.kind }] }]),
  );
}

/** openApiSchema translates one decoding schema to OpenAPI v3. */
function openApiSchema(schema: FieldSchema): Record<string, unknown> {
  switch (schema.kind) {
    case "string":
      return { type: "string" };
    case "bool":
      return { type: "boolean" };
    case "int32":
    case "int64":
      return { type: "integer", format: schema.kind };
    case "intOrString":
      // apimachinery's IntOrString definition.
      return { type: "string", format: "int-or-string" };
    case "opaque":
      return { type: "object", "x-kubernetes-preserve-unknown-fields": true };
    case "dropped":
      // The 1.37 API publishes the field; only its value is dropped while the gate is off.
      return openApiSchema(schema.value);
    case "array":
      return { type: "array", items: openApiSchema(schema.items) };
    case "map":
      return { type: "object", additionalProperties: openApiSchema(schema.values) };
    case "object":
      // schema.required names the fields decoding fills with Go's zero value, not the fields the
      // API requires, so it is not published.
      return { type: "object", properties: Object.fromEntries(Object.entries(schema.fields).map(([name, field]) => [name, openApiSchema(field)])) };
  }
}
