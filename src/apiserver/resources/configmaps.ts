// The configmaps resource (pkg/apis/core/validation ValidateConfigMap): keys of data and
// binaryData are config keys, not in both, and together at most 1 MiB.
import { invalid, type FieldError } from "../../api/field-errors.js";
import type { FieldSchema } from "../../api/schema.js";
import { objectMetaSchema } from "../../api/schema.js";
import type { KubeObject } from "../storage/object-store.js";
import { isConfigMapKey, MAX_CONFIG_DATA_BYTES, tooLargeData } from "./config-data.js";
import { firstBase64Problem } from "./secrets.js";
import { DNS_SUBDOMAIN_NAME, validateObjectMeta } from "./object-meta.js";
import { ALL_VERBS, type ResourceDefinition } from "./resource-definition.js";
import { sameJson } from "./canonical-json.js";

/** ConfigMap is core/v1 ConfigMap. */
export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
  /** Base64 in JSON, as []byte is. */
  binaryData?: Record<string, string>;
  immutable?: boolean;
}

const str: FieldSchema = { kind: "string" };
const stringMap: FieldSchema = { kind: "map", values: str };
const CONFIG_MAP_SCHEMA: FieldSchema = {
  kind: "object",
  fields: { apiVersion: str, kind: str, metadata: objectMetaSchema, data: stringMap, binaryData: stringMap, immutable: { kind: "bool" } },
  required: ["metadata"],
};

/** validateConfigMap checks the keys and the total size of a ConfigMap. */
export function validateConfigMap(cm: ConfigMap): FieldError[] {
  const errs = validateObjectMeta(cm.metadata, true, DNS_SUBDOMAIN_NAME);
  let total = 0;
  // Object.keys, not Object.entries: a pair per key costs several times the walk on a map of
  // tens of thousands of keys.
  const data = cm.data ?? {};
  for (const key of Object.keys(data)) {
    total += Buffer.byteLength(data[key]!, "utf8");
    for (const m of isConfigMapKey(key)) errs.push(invalid(`data[${key}]`, key, m));
    if (cm.binaryData !== undefined && Object.hasOwn(cm.binaryData, key)) errs.push(invalid(`data[${key}]`, key, "duplicate of key present in binaryData"));
  }
  const binaryData = cm.binaryData ?? {};
  for (const key of Object.keys(binaryData)) {
    total += Buffer.from(binaryData[key]!, "base64").length;
    for (const m of isConfigMapKey(key)) errs.push(invalid(`binaryData[${key}]`, key, m));
  }
  if (total > MAX_CONFIG_DATA_BYTES) errs.push(tooLargeData(""));
  return errs;
}

/** validateConfigMapUpdate refuses data changes of an immutable ConfigMap and unsetting immutable. */
export function validateConfigMapUpdate(next: ConfigMap, current: ConfigMap): FieldError[] {
  if (current.immutable !== true) return [];
  const errs: FieldError[] = [];
  if (next.immutable !== true) errs.push({ type: "Forbidden", field: "immutable", detail: "field is immutable when `immutable` is set" });
  if (!sameJson(next.data ?? {}, current.data ?? {}) || !sameJson(next.binaryData ?? {}, current.binaryData ?? {})) {
    errs.push({ type: "Forbidden", field: "data", detail: "field is immutable when `immutable` is set" });
  }
  return errs;
}

/** CONFIG_MAPS is the configmaps resource. */
export const CONFIG_MAPS: ResourceDefinition = {
  name: "configmaps",
  singularName: "configmap",
  kind: "ConfigMap",
  shortNames: ["cm"],
  namespaced: true,
  verbs: ALL_VERBS,
  categories: [],
  strategy: {
    schema: CONFIG_MAP_SCHEMA,
    checkEncoding: (object) => firstBase64Problem((object as ConfigMap).binaryData),
    prepareForCreate: (object) => object,
    validate: (object) => ({ object, errors: validateConfigMap(object as ConfigMap) }),
    prepareForUpdate: (next) => next,
    // The REST layer has validated `next` as a whole already (ValidateConfigMapUpdate's ValidateConfigMap), so each problem is named once.
    validateUpdate: (next, current) => validateConfigMapUpdate(next as ConfigMap, current as ConfigMap),
  },
};
