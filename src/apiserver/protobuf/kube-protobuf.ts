// Request bodies in the API server's protobuf encoding (application/vnd.kubernetes.protobuf), for
// the kinds kubectl 1.32 sends that way: its typed clients POST `create namespace`, `create
// configmap` and `create secret` as protobuf, whatever the server's discovery says. The envelope
// is apimachinery's runtime.Unknown behind the magic number "k8s\0" (runtime/serializer/protobuf);
// the messages and field numbers are k8s.io/api core/v1 generated.proto's. Fields the server sets
// itself (uid, timestamps, managed fields, owner references) are not read; unknown fields are
// skipped, as the protobuf decoder skips them.
import { ProtobufError, readFields, type ProtobufField } from "./protobuf-reader.js";

/** KUBE_PROTOBUF is the media type of the API server's protobuf encoding. */
export const KUBE_PROTOBUF = "application/vnd.kubernetes.protobuf";

/** The four bytes every protobuf-encoded object starts with. */
const MAGIC = Uint8Array.from([0x6b, 0x38, 0x73, 0x00]);

type FieldType = "string" | "bytes" | "bool" | "int" | "strings" | "stringMap" | "bytesMap" | Schema;
/** Schema maps a message's field numbers to their JSON names and types. */
interface Schema {
  [field: number]: [name: string, type: FieldType];
}

const STRING_MAP_ENTRY: Schema = { 1: ["key", "string"], 2: ["value", "string"] };
const BYTES_MAP_ENTRY: Schema = { 1: ["key", "string"], 2: ["value", "bytes"] };

const OBJECT_META: Schema = {
  1: ["name", "string"],
  2: ["generateName", "string"],
  3: ["namespace", "string"],
  6: ["resourceVersion", "string"],
  11: ["labels", "stringMap"],
  12: ["annotations", "stringMap"],
  14: ["finalizers", "strings"],
};

/** KINDS are the kinds whose protobuf the agent reads (core/v1 Namespace, ConfigMap, Secret). */
const KINDS: Record<string, Schema> = {
  Namespace: { 1: ["metadata", OBJECT_META], 2: ["spec", { 1: ["finalizers", "strings"] }], 3: ["status", { 1: ["phase", "string"] }] },
  ConfigMap: { 1: ["metadata", OBJECT_META], 2: ["data", "stringMap"], 3: ["binaryData", "bytesMap"], 4: ["immutable", "bool"] },
  Secret: { 1: ["metadata", OBJECT_META], 2: ["data", "bytesMap"], 3: ["type", "string"], 4: ["stringData", "stringMap"], 5: ["immutable", "bool"] },
};

/** runtime.Unknown's typeMeta (field 1); its raw object is field 2. */
const TYPE_META: Schema = { 1: ["apiVersion", "string"], 2: ["kind", "string"] };

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * decodeKubeProtobuf turns a protobuf-encoded object into the object its JSON would be;
 * undefined when its kind is not one the agent reads. Malformed bytes are a ProtobufError.
 */
export function decodeKubeProtobuf(body: Uint8Array): Record<string, unknown> | undefined {
  if (body.length < MAGIC.length || MAGIC.some((byte, i) => body[i] !== byte)) {
    throw new ProtobufError(`provided data does not appear to be a protobuf message, expected prefix [${MAGIC.join(" ")}]`);
  }
  let typeMeta: { apiVersion?: string; kind?: string } = {};
  let raw: Uint8Array = new Uint8Array();
  for (const record of readFields(body.subarray(MAGIC.length))) {
    if (record.field === 1) typeMeta = decodeMessage(TYPE_META, bytesOf(record, "typeMeta"));
    else if (record.field === 2) raw = bytesOf(record, "raw");
  }
  const schema = typeMeta.kind === undefined ? undefined : KINDS[typeMeta.kind];
  if (schema === undefined) return undefined;
  return { apiVersion: typeMeta.apiVersion, kind: typeMeta.kind, ...decodeMessage(schema, raw) };
}

/** decodeMessage reads one message as JSON would show it: empty strings and false left out, bytes in base64. */
function decodeMessage(schema: Schema, bytes: Uint8Array): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const record of readFields(bytes)) {
    const spec = schema[record.field];
    if (spec === undefined) continue;
    const [name, type] = spec;
    if (type === "bool" || type === "int") {
      const value = varintOf(record, name);
      if (type === "int") out[name] = Number(BigInt.asIntN(64, value));
      else if (value !== 0n) out[name] = true;
      continue;
    }
    const payload = bytesOf(record, name);
    if (type === "string") {
      const text = text8(payload, name);
      if (text !== "") out[name] = text;
    } else if (type === "bytes") out[name] = Buffer.from(payload).toString("base64");
    else if (type === "strings") out[name] = [...((out[name] as string[] | undefined) ?? []), text8(payload, name)];
    else if (type === "stringMap" || type === "bytesMap") {
      const entry = decodeMessage(type === "stringMap" ? STRING_MAP_ENTRY : BYTES_MAP_ENTRY, payload);
      const map = (out[name] as Record<string, unknown> | undefined) ?? {};
      map[typeof entry["key"] === "string" ? entry["key"] : ""] = entry["value"] ?? "";
      out[name] = map;
    } else out[name] = decodeMessage(type, payload);
  }
  return out;
}

function varintOf(record: ProtobufField, name: string): bigint {
  if (record.varint === undefined) throw new ProtobufError(`${name}: want a varint, got length-delimited bytes`);
  return record.varint;
}

function bytesOf(record: ProtobufField, name: string): Uint8Array {
  if (record.bytes === undefined) throw new ProtobufError(`${name}: want length-delimited bytes, got a varint`);
  return record.bytes;
}

function text8(bytes: Uint8Array, name: string): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new ProtobufError(`${name}: invalid UTF-8`);
  }
}
