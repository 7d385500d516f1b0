// The secrets resource (pkg/apis/core/validation ValidateSecret, pkg/registry/core/secret):
// data values are base64 ([]byte in JSON), stringData is merged into data on write and never
// stored, keys are config keys, the decoded data is at most 1 MiB, and the type (default
// Opaque) requires the keys its kind needs and cannot change.
import { invalid, required, type FieldError } from "../../api/field-errors.js";
import type { FieldSchema } from "../../api/schema.js";
import { objectMetaSchema } from "../../api/schema.js";
import type { KubeObject } from "../storage/object-store.js";
import { isConfigMapKey, MAX_CONFIG_DATA_BYTES, tooLargeData } from "./config-data.js";
import { sameJson } from "./canonical-json.js";
import { DNS_SUBDOMAIN_NAME, validateObjectMeta } from "./object-meta.js";
import { ALL_VERBS, type ResourceDefinition } from "./resource-definition.js";

/** Secret is core/v1 Secret as stored: data base64-encoded, no stringData. */
export interface Secret extends KubeObject {
  type?: string;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  immutable?: boolean;
}

const str: FieldSchema = { kind: "string" };
const stringMap: FieldSchema = { kind: "map", values: str };
const SECRET_SCHEMA: FieldSchema = {
  kind: "object",
  fields: { apiVersion: str, kind: str, metadata: objectMetaSchema, type: str, data: stringMap, stringData: stringMap, immutable: { kind: "bool" } },
  required: ["metadata"],
};

// The keys each well-known secret type must carry (ValidateSecret's switch on secret.Type).
const REQUIRED_KEYS: Readonly<Record<string, readonly string[]>> = {
  "kubernetes.io/dockercfg": [".dockercfg"],
  "kubernetes.io/dockerconfigjson": [".dockerconfigjson"],
  "kubernetes.io/ssh-auth": ["ssh-privatekey"],
  "kubernetes.io/tls": ["tls.crt", "tls.key"],
};

const BASE64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** base64Problem names the first byte that is not standard padded base64, as Go's decoder reports it. */
export function base64Problem(value: string): string | undefined {
  if (BASE64_RE.test(value)) return undefined;
  let i = 0;
  while (i < value.length && /[A-Za-z0-9+/]/.test(value[i] ?? "")) i++;
  return `illegal base64 data at input byte ${i}`;
}

/** firstBase64Problem checks every value of a []byte map. */
export function firstBase64Problem(values: Record<string, string> | undefined): string | undefined {
  const map = values ?? {};
  // Object.keys, not Object.values: cheaper on a map of tens of thousands of keys.
  for (const key of Object.keys(map)) {
    const problem = base64Problem(map[key]!);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** mergeStringData moves stringData into data (base64), stringData winning, as the API server's conversion does. */
export function mergeStringData(secret: Secret): Secret {
  const { stringData, ...rest } = secret;
  const out: Secret = { ...rest, type: secret.type === undefined || secret.type === "" ? "Opaque" : secret.type };
  if (stringData === undefined) return out;
  const data = { ...(secret.data ?? {}) };
  for (const [key, value] of Object.entries(stringData)) data[key] = Buffer.from(value, "utf8").toString("base64");
  return { ...out, data };
}

/** validateSecret checks keys, decoded size and the type's required keys. */
export function validateSecret(secret: Secret): FieldError[] {
  const errs = validateObjectMeta(secret.metadata, true, DNS_SUBDOMAIN_NAME);
  const data = secret.data ?? {};
  let total = 0;
  for (const key of Object.keys(data)) {
    for (const m of isConfigMapKey(key)) errs.push(invalid(`data[${key}]`, key, m));
    total += Buffer.from(data[key]!, "base64").length;
  }
  if (total > MAX_CONFIG_DATA_BYTES) errs.push(tooLargeData("data"));
  for (const key of REQUIRED_KEYS[secret.type ?? "Opaque"] ?? []) {
    if (!Object.hasOwn(data, key)) errs.push(required(`data[${key}]`));
  }
  if (secret.type === "kubernetes.io/basic-auth" && !Object.hasOwn(data, "username") && !Object.hasOwn(data, "password")) {
    errs.push(required("data[username]"), required("data[password]"));
  }
  return errs;
}

/** validateSecretUpdate keeps the type and, once immutable, the data. */
export function validateSecretUpdate(next: Secret, current: Secret): FieldError[] {
  const errs: FieldError[] = [];
  if ((next.type ?? "Opaque") !== (current.type ?? "Opaque")) errs.push(invalid("type", next.type ?? "", "field is immutable"));
  if (current.immutable === true) {
    if (next.immutable !== true) errs.push({ type: "Forbidden", field: "immutable", detail: "field is immutable when `immutable` is set" });
    if (!sameJson(next.data ?? {}, current.data ?? {})) errs.push({ type: "Forbidden", field: "data", detail: "field is immutable when `immutable` is set" });
  }
  return errs;
}

/** SECRETS is the secrets resource. */
export const SECRETS: ResourceDefinition = {
  name: "secrets",
  singularName: "secret",
  kind: "Secret",
  shortNames: [],
  namespaced: true,
  verbs: ALL_VERBS,
  categories: [],
  strategy: {
    schema: SECRET_SCHEMA,
    checkEncoding: (object) => firstBase64Problem((object as Secret).data),
    prepareForCreate: (object) => mergeStringData(object as Secret),
    validate: (object) => ({ object, errors: validateSecret(object as Secret) }),
    prepareForUpdate: (next) => mergeStringData(next as Secret),
    // The REST layer has validated `next` as a whole already (ValidateSecretUpdate's ValidateSecret), so each problem is named once.
    validateUpdate: (next, current) => validateSecretUpdate(next as Secret, current as Secret),
  },
};
