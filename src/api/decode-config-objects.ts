// Strict decoding of v1 ConfigMap and Secret objects (already parsed JSON or YAML values), like
// the API server's: apiVersion v1, the right kind, no unknown fields, string maps. Validation of
// names, keys and sizes belongs to the object store's API validation.
import { decodeValue, type DecodeResult } from "./decode.js";
import { childPath, formatFieldError, notSupported, required } from "./field-errors.js";
import { configMapSchema, secretSchema } from "./schema.js";
import type { ConfigMap, Secret } from "./types.js";

function decodeKind<T>(value: unknown, kind: "ConfigMap" | "Secret", path: string): DecodeResult<T> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { ok: false, errors: [`${path || "<root>"}: must be a ${kind} object`] };
  const errs: string[] = [];
  const { apiVersion, kind: actual } = value as Record<string, unknown>;
  if (apiVersion === undefined || apiVersion === "") errs.push(formatFieldError(required(childPath(path, "apiVersion"))));
  else if (apiVersion !== "v1") errs.push(formatFieldError(notSupported(childPath(path, "apiVersion"), apiVersion, ["v1"])));
  if (actual === undefined || actual === "") errs.push(formatFieldError(required(childPath(path, "kind"))));
  else if (actual !== kind) errs.push(formatFieldError(notSupported(childPath(path, "kind"), actual, [kind])));
  const decoded = decodeValue(kind === "ConfigMap" ? configMapSchema : secretSchema, value, path, errs);
  return errs.length > 0 || decoded === undefined ? { ok: false, errors: errs } : { ok: true, value: decoded as T };
}

/** decodeConfigMap decodes one parsed v1 ConfigMap; errors name field paths under `path`. */
export function decodeConfigMap(value: unknown, path = ""): DecodeResult<ConfigMap> {
  return decodeKind<ConfigMap>(value, "ConfigMap", path);
}

/** decodeSecret decodes one parsed v1 Secret; errors name field paths under `path`. */
export function decodeSecret(value: unknown, path = ""): DecodeResult<Secret> {
  return decodeKind<Secret>(value, "Secret", path);
}
