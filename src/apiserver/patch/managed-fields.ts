// metadata.managedFields as the API server encodes it: decoding entries into field sets, and
// writing them back sorted as internal/managedfields.go sortEncodedManagedFields orders them.

import { PatchError } from "./patch-error.js";
import { deleteOwn, getOwn, isJsonObject, setOwn, type JsonObject, type JsonValue } from "./json-value.js";
import { FieldSet } from "./field-set.js";

/** ManagedFieldsEntry is one metav1.ManagedFieldsEntry. */
export interface ManagedFieldsEntry {
  manager: string;
  operation: "Apply" | "Update";
  apiVersion: string;
  time?: string;
  fieldsType: "FieldsV1";
  fieldsV1: JsonObject;
  subresource?: string;
}

/** OwnedFields is one entry with its fields as a set. */
export interface OwnedFields {
  entry: Omit<ManagedFieldsEntry, "fieldsV1">;
  set: FieldSet;
}

/** formatTime renders a time as metav1.Time does (RFC 3339, seconds). */
export function formatTime(now: Date): string {
  return now.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** readManagedFields decodes an object's managedFields; malformed entries are a 400. */
export function readManagedFields(object: JsonObject | undefined): OwnedFields[] {
  const metadata = object === undefined ? undefined : getOwn(object, "metadata");
  const entries = isJsonObject(metadata) ? getOwn(metadata, "managedFields") : undefined;
  if (entries === undefined || entries === null) return [];
  if (!Array.isArray(entries)) throw new PatchError(400, "metadata.managedFields: must be a list");
  return entries.map((raw, index) => {
    const manager = isJsonObject(raw) ? getOwn(raw, "manager") : undefined;
    const operation = isJsonObject(raw) ? getOwn(raw, "operation") : undefined;
    if (!isJsonObject(raw) || typeof manager !== "string" || (operation !== "Apply" && operation !== "Update")) {
      throw new PatchError(400, `metadata.managedFields[${index}]: must have a manager and an operation of Apply or Update`);
    }
    const apiVersion = getOwn(raw, "apiVersion");
    const time = getOwn(raw, "time");
    const subresource = getOwn(raw, "subresource");
    const entry: Omit<ManagedFieldsEntry, "fieldsV1"> = { manager, operation, apiVersion: typeof apiVersion === "string" ? apiVersion : "", fieldsType: "FieldsV1" };
    if (typeof time === "string") entry.time = time;
    if (typeof subresource === "string" && subresource !== "") entry.subresource = subresource;
    return { entry, set: FieldSet.fromFieldsV1(getOwn(raw, "fieldsV1")) };
  });
}

/** compareEntries is sortEncodedManagedFields: operation, time, manager, apiVersion, subresource. */
function compareEntries(left: OwnedFields, right: OwnedFields): number {
  const a = left.entry;
  const b = right.entry;
  const order: [string, string][] = [
    [a.operation, b.operation],
    [a.time ?? "", b.time ?? ""],
    [a.manager, b.manager],
    [a.apiVersion, b.apiVersion],
    [a.subresource ?? "", b.subresource ?? ""],
  ];
  for (const [x, y] of order) if (x !== y) return x < y ? -1 : 1;
  return 0;
}

/** writeManagedFields stores the non-empty entries, sorted, into the object's metadata. */
export function writeManagedFields(object: JsonObject, owned: OwnedFields[]): void {
  let metadata = getOwn(object, "metadata");
  if (!isJsonObject(metadata)) {
    metadata = {};
    setOwn(object, "metadata", metadata);
  }
  const entries = owned.filter(({ set }) => !set.isEmpty()).sort(compareEntries)
    .map(({ entry, set }): JsonValue => ({ ...entry, fieldsV1: set.toFieldsV1() } as unknown as JsonObject));
  if (entries.length === 0) deleteOwn(metadata, "managedFields");
  else setOwn(metadata, "managedFields", entries);
}
