// Decoding a request body into an object of one resource, as the API server's create and
// update handlers do: JSON or YAML, the type meta checked against the resource, strict decoding
// against the resource's schema, and unknown fields handled as the fieldValidation parameter
// says (Strict: 400; Warn, the default: a Warning header per field; Ignore: dropped).
import { decodeValue } from "../../api/decode.js";
import { badRequestStatus, StatusError } from "../endpoints/status-object.js";
import type { ResourceDefinition } from "../resources/resource-definition.js";
import type { KubeObject } from "../storage/object-store.js";

/** FieldValidation is the fieldValidation query parameter's directive. */
export type FieldValidation = "Ignore" | "Warn" | "Strict";

const UNKNOWN_FIELD = "strict decoding error: unknown field ";

/** fieldValidationOf reads ?fieldValidation= (absent: Warn, the API server's default). */
export function fieldValidationOf(query: URLSearchParams): FieldValidation {
  const value = query.get("fieldValidation") ?? "";
  if (value === "") return "Warn";
  if (value === "Ignore" || value === "Warn" || value === "Strict") return value;
  throw new StatusError(badRequestStatus(`fieldValidation parameter unsupported: ${value}`));
}

/** DecodedObject is a decoded body and the warnings to send with the answer. */
export interface DecodedObject {
  object: KubeObject;
  warnings: string[];
}

/**
 * decodeResourceObject checks a parsed body against the resource and returns the object with
 * its unknown fields dropped. Type errors (a string where a number goes, a malformed []byte)
 * and, under Strict, unknown fields are 400s worded as the API server words them.
 */
export function decodeResourceObject(resource: ResourceDefinition, body: Record<string, unknown>, validation: FieldValidation): DecodedObject {
  const { kind } = resource;
  const cannotHandle = (detail: string): StatusError => new StatusError(badRequestStatus(`${kind} in version "v1" cannot be handled as a ${kind}: ${detail}`));
  const apiVersion = body["apiVersion"];
  const bodyKind = body["kind"];
  if (typeof apiVersion === "string" && apiVersion !== "" && apiVersion !== "v1") {
    throw new StatusError(badRequestStatus(`the API version in the data (${apiVersion}) does not match the expected API version (v1)`));
  }
  if (typeof bodyKind === "string" && bodyKind !== "" && bodyKind !== kind) {
    throw new StatusError(badRequestStatus(`${bodyKind} in version "v1" cannot be handled as a ${kind}: the kind in the data (${bodyKind}) does not match the expected kind (${kind})`));
  }
  const errs: string[] = [];
  const decoded = decodeValue(resource.strategy.schema, body, "", errs) as KubeObject;
  const unknown = errs.filter((e) => e.startsWith(UNKNOWN_FIELD));
  const malformed = errs.filter((e) => !e.startsWith(UNKNOWN_FIELD));
  if (malformed.length > 0) throw cannotHandle(malformed.join("; "));
  const encoding = resource.strategy.checkEncoding?.(decoded);
  if (encoding !== undefined) throw cannotHandle(encoding);
  if (unknown.length > 0 && validation === "Strict") throw cannotHandle(unknown.join(", "));
  const warnings = validation === "Warn" ? unknown.map((e) => e.slice("strict decoding error: ".length)) : [];
  return { object: { ...decoded, apiVersion: "v1", kind }, warnings };
}

/** warningHeader renders warnings as RFC 7234 Warning values with code 299, as the API server sends them. */
export function warningHeader(warnings: readonly string[]): string[] {
  return warnings.map((w) => `299 - ${JSON.stringify(w)}`);
}
