// Strict decoding of Probe and Pod manifests from YAML or JSON text, like the API server:
// unknown fields and wrong JSON types are errors that name the full field path, int32/int64
// ranges are checked, and syntax errors name the source, line and column. The text is parsed
// within the input bounds of bounded-parse.ts (size, depth, YAML tokens, aliases). Decoding never
// throws; it returns every problem found. It does not default or validate (see validation.ts).
import { parseBounded, type InputFormat } from "./bounded-parse.js";
import {
  childPath, formatFieldError, goQuote, inclusiveRangeError, indexPath, invalid, notSupported, required, typeInvalid,
} from "./field-errors.js";
import { listSchema, podSchema, probeSchema, type FieldSchema } from "./schema.js";
import type { Pod, Probe } from "./types.js";

/** DecodeResult is a decoded value, or the list of human-readable decoding errors. */
export type DecodeResult<T> = { ok: true; value: T } | { ok: false; errors: string[] };

/** DecodeProbeOptions tune decodeProbe. */
export interface DecodeProbeOptions {
  /** Field-path prefix for error messages, e.g. `spec.containers[0].livenessProbe` (default ""). */
  pathPrefix?: string;
  /** How the text is parsed (default "yaml", which also reads JSON; "json" is strict JSON). */
  format?: InputFormat;
}

const INT32: readonly [number, number] = [-2147483648, 2147483647];
// int64 values are only exact in JavaScript up to 2^53 - 1.
const INT64: readonly [number, number] = [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function decodeInt(value: unknown, path: string, range: readonly [number, number], errs: string[]): number | undefined {
  if (typeof value !== "number" || !Number.isInteger(value)) {
    errs.push(formatFieldError(typeInvalid(path, value, "must be an integer")));
    return undefined;
  }
  if (value < range[0] || value > range[1]) {
    errs.push(formatFieldError(invalid(path, value, inclusiveRangeError(range[0], range[1]))));
    return undefined;
  }
  return value;
}

function typeError(path: string, value: unknown, expected: string, errs: string[]): undefined {
  errs.push(formatFieldError(typeInvalid(path, value, `must be ${expected}`)));
  return undefined;
}

// zeroValue is what Go leaves in a required field that the manifest omits.
function zeroValue(schema: FieldSchema): unknown {
  switch (schema.kind) {
    case "string":
      return "";
    case "bool":
      return false;
    case "int32":
    case "int64":
    case "intOrString":
      return 0;
    case "array":
      return [];
    case "object":
      return decodeValue(schema, {}, "", []);
    default:
      return {};
  }
}

/**
 * decodeValue checks `value` against `schema` at `path`, appending error messages to `errs`.
 * It returns the decoded value, or undefined for null (absent) and for values in error.
 */
export function decodeValue(schema: FieldSchema, value: unknown, path: string, errs: string[]): unknown {
  if (value === null || value === undefined) return undefined;
  switch (schema.kind) {
    case "string":
      return typeof value === "string" ? value : typeError(path, value, "a string", errs);
    case "bool":
      return typeof value === "boolean" ? value : typeError(path, value, "a boolean", errs);
    case "int32":
      return decodeInt(value, path, INT32, errs);
    case "int64":
      return decodeInt(value, path, INT64, errs);
    case "intOrString":
      if (typeof value === "string") return value;
      return typeof value === "number" ? decodeInt(value, path, INT32, errs) : typeError(path, value, "an integer or a string", errs);
    case "opaque":
      return structuredClone(value);
    case "dropped":
      decodeValue(schema.value, value, path, errs);
      return undefined;
    case "array":
      if (!Array.isArray(value)) return typeError(path, value, "an array", errs);
      return value.map((item, i) => decodeValue(schema.items, item, indexPath(path, i), errs) ?? zeroValue(schema.items));
    case "map": {
      if (!isObject(value)) return typeError(path, value, "an object", errs);
      const out: Json = {};
      for (const [key, v] of Object.entries(value)) {
        const decoded = decodeValue(schema.values, v, `${path}[${key}]`, errs);
        // defineProperty keeps a "__proto__" key as data instead of replacing the prototype.
        if (decoded !== undefined) Object.defineProperty(out, key, { value: decoded, enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    case "object": {
      if (!isObject(value)) return typeError(path, value, "an object", errs);
      const out: Json = {};
      for (const [key, v] of Object.entries(value)) {
        const fieldSchema = Object.hasOwn(schema.fields, key) ? schema.fields[key] : undefined;
        if (fieldSchema === undefined) {
          errs.push(`strict decoding error: unknown field ${goQuote(childPath(path, key))}`);
          continue;
        }
        const decoded = decodeValue(fieldSchema, v, childPath(path, key), errs);
        if (decoded !== undefined) out[key] = decoded;
      }
      for (const key of schema.required) {
        const fieldSchema = schema.fields[key];
        if (!(key in out) && fieldSchema) out[key] = zeroValue(fieldSchema);
      }
      return out;
    }
  }
}

interface ParsedStream {
  /** The JavaScript value of each non-empty document, in order. */
  values: unknown[];
  /** The 1-based position of each of `values` in the stream (empty documents count). */
  positions: number[];
  errors: string[];
}

// parseStream reads every document within the input bounds (bounded-parse.ts), skipping empty
// ones; syntax errors name `<source>:<line>:<col>`.
function parseStream(text: string, source: string, format: InputFormat): ParsedStream {
  const parsed = parseBounded(text, format, source);
  if (!parsed.ok) return { values: [], positions: [], errors: parsed.errors };
  return { values: parsed.documents.map((d) => d.value), positions: parsed.documents.map((d) => d.position), errors: [] };
}

/**
 * decodeProbe decodes one Probe object (YAML or JSON). Errors name field paths under
 * `options.pathPrefix` (empty by default, e.g. `periodSeconds: Invalid value: "ten": must be an integer`).
 */
export function decodeProbe(text: string, sourceName: string, options: DecodeProbeOptions = {}): DecodeResult<Probe> {
  const { values, errors } = parseStream(text, sourceName, options.format ?? "yaml");
  if (errors.length > 0) return { ok: false, errors };
  if (values.length !== 1) {
    const found = values.length === 0 ? "the input is empty" : `found ${values.length} documents`;
    return { ok: false, errors: [`${sourceName}: expected exactly one Probe object, ${found}`] };
  }
  const errs: string[] = [];
  const value = decodeValue(probeSchema, values[0], options.pathPrefix ?? "", errs);
  return errs.length > 0 || value === undefined ? { ok: false, errors: errs } : { ok: true, value: value as Probe };
}

// checkTypeMeta requires apiVersion v1 and one of the allowed kinds; returns the kind if valid.
function checkTypeMeta(obj: Json, path: string, kinds: readonly string[], errs: string[]): string | undefined {
  const before = errs.length;
  const { apiVersion, kind } = obj;
  const versionPath = childPath(path, "apiVersion");
  const kindPath = childPath(path, "kind");
  if (apiVersion === undefined || apiVersion === null || apiVersion === "") errs.push(formatFieldError(required(versionPath)));
  else if (apiVersion !== "v1") errs.push(formatFieldError(notSupported(versionPath, apiVersion, ["v1"])));
  if (kind === undefined || kind === null || kind === "") errs.push(formatFieldError(required(kindPath)));
  else if (typeof kind !== "string" || !kinds.includes(kind)) errs.push(formatFieldError(notSupported(kindPath, kind, kinds)));
  return errs.length === before ? (kind as string) : undefined;
}

/**
 * OtherObjectSink takes a document or List item of a kind other than Pod (with an apiVersion and
 * a kind set), its field path ("" for a document, `items[i]` for an item) and the number of its
 * document in the stream (from 1).
 */
export type OtherObjectSink = (object: Record<string, unknown>, path: string, document: number) => void;

// isOtherKind: an object that names an apiVersion and a kind, and a kind not in `kinds`.
function isOtherKind(value: Json, kinds: readonly string[]): boolean {
  const { apiVersion, kind } = value;
  return typeof apiVersion === "string" && apiVersion !== "" && typeof kind === "string" && kind !== "" && !kinds.includes(kind);
}

// decodeObject turns one document into pods: a Pod, or a List/PodList of pods. With `others`,
// objects of other kinds go there instead of being errors.
function decodeObject(value: unknown, errs: string[], others?: (object: Json, path: string) => void): Pod[] {
  if (!isObject(value)) {
    typeError("", value, "a Pod or List object", errs);
    return [];
  }
  if (others !== undefined && isOtherKind(value, ["Pod", "List", "PodList"])) {
    others(value, "");
    return [];
  }
  const kind = checkTypeMeta(value, "", ["Pod", "List", "PodList"], errs);
  if (kind === undefined) return [];
  if (kind === "Pod") {
    const pod = decodeValue(podSchema, value, "", errs) as Pod | undefined;
    return pod ? [pod] : [];
  }
  const list = decodeValue(listSchema, value, "", errs) as { items?: unknown[] } | undefined;
  const pods: Pod[] = [];
  (list?.items ?? []).forEach((item, i) => {
    const path = indexPath("items", i);
    if (!isObject(item)) {
      typeError(path, item, "a Pod object", errs);
      return;
    }
    if (others !== undefined && isOtherKind(item, ["Pod"])) {
      others(item, path);
      return;
    }
    // A typed PodList may omit its items' apiVersion/kind; a generic List may not.
    const typed = kind === "PodList" && item.kind === undefined && item.apiVersion === undefined;
    if (!typed && checkTypeMeta(item, path, ["Pod"], errs) === undefined) return;
    const pod = decodeValue(podSchema, item, path, errs) as Pod | undefined;
    if (pod) pods.push(pod);
  });
  return pods;
}

/**
 * decodePods decodes Pod manifests: one or more YAML documents (or a JSON object), each a
 * v1 Pod or a v1 List/PodList of pods; empty documents are skipped. When the input holds more
 * than one object, each error is prefixed with `<source>: document <n>: ` (n counts every
 * document in the stream, from 1). An input without any object decodes to an empty list.
 * `format` "json" parses strict JSON (one value); the default "yaml" reads a YAML stream.
 */
export function decodePods(text: string, sourceName: string, format: InputFormat = "yaml"): DecodeResult<Pod[]> {
  return decodePodsAndOthers(text, sourceName, format);
}

/**
 * decodePodsAndOthers is decodePods for manifests that may hold objects of other kinds: each
 * document or List item that names an apiVersion and a kind other than Pod is handed to `others`
 * (with the document's number) instead of being an error.
 */
export function decodePodsAndOthers(text: string, sourceName: string, format: InputFormat = "yaml", others?: OtherObjectSink): DecodeResult<Pod[]> {
  const { values, positions, errors } = parseStream(text, sourceName, format);
  if (errors.length > 0) return { ok: false, errors };
  const pods: Pod[] = [];
  const all: string[] = [];
  values.forEach((value, i) => {
    const errs: string[] = [];
    const document = positions[i] ?? i + 1;
    const decoded = decodeObject(value, errs, others === undefined ? undefined : (object, path) => others(object, path, document));
    if (errs.length === 0) pods.push(...decoded);
    const prefix = values.length > 1 ? `${sourceName}: document ${document}: ` : "";
    all.push(...errs.map((e) => prefix + e));
  });
  return all.length > 0 ? { ok: false, errors: all } : { ok: true, value: pods };
}
