// The namespaces resource (pkg/registry/core/namespace): DNS-label names, spec.finalizers
// ["kubernetes"] and status.phase Active on create; the phase is the server's alone.
import type { FieldSchema } from "../../api/schema.js";
import { objectMetaSchema } from "../../api/schema.js";
import type { KubeObject } from "../storage/object-store.js";
import { DNS_LABEL_NAME, validateObjectMeta } from "./object-meta.js";
import type { ResourceDefinition } from "./resource-definition.js";

/** Namespace is core/v1 Namespace. */
export interface Namespace extends KubeObject {
  spec?: { finalizers?: string[] };
  status?: { phase?: "Active" | "Terminating" };
}

/** INITIAL_NAMESPACES exist from the start, as on every cluster. */
export const INITIAL_NAMESPACES: readonly string[] = ["default", "kube-node-lease", "kube-public", "kube-system"];

const str: FieldSchema = { kind: "string" };
const NAMESPACE_SCHEMA: FieldSchema = {
  kind: "object",
  fields: {
    apiVersion: str,
    kind: str,
    metadata: objectMetaSchema,
    spec: { kind: "object", fields: { finalizers: { kind: "array", items: str } }, required: [] },
    status: { kind: "object", fields: { phase: str, conditions: { kind: "opaque" } }, required: [] },
  },
  required: ["metadata"],
};

/** newNamespace is a Namespace object as the strategy stores it on create. */
export function newNamespace(name: string): Namespace {
  return { apiVersion: "v1", kind: "Namespace", metadata: { name, labels: { "kubernetes.io/metadata.name": name } }, spec: { finalizers: ["kubernetes"] }, status: { phase: "Active" } };
}

/** NAMESPACES is the namespaces resource. */
export const NAMESPACES: ResourceDefinition = {
  name: "namespaces",
  singularName: "namespace",
  kind: "Namespace",
  shortNames: ["ns"],
  namespaced: false,
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
  categories: [],
  returnsDeletedObject: true,
  finalizedOnDelete: true,
  strategy: {
    schema: NAMESPACE_SCHEMA,
    prepareForCreate: (object) => {
      const name = object.metadata.name ?? "";
      return { ...object, metadata: { ...object.metadata, labels: { ...object.metadata.labels, "kubernetes.io/metadata.name": name } }, spec: { finalizers: ["kubernetes"] }, status: { phase: "Active" } } as KubeObject;
    },
    validate: (object) => ({ object, errors: validateObjectMeta(object.metadata, false, DNS_LABEL_NAME) }),
    prepareForUpdate: (next, current) => ({ ...next, status: (current as Namespace).status }) as KubeObject,
    validateUpdate: () => [],
  },
};
