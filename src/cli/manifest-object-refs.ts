// The objects a manifest names, for `delete -f`: each document's kind, name and namespace (a
// List's items too), without decoding the rest. Files are read and parsed within the same bounds
// as `apply` (bounded-parse.ts).
import { formatOfFile, NO_OBJECTS_MESSAGE, parseBounded } from "../api/bounded-parse.js";
import { findResourceByKind, type ApiResource } from "./api-resources.js";
import { readInputFile } from "./input-file.js";
import { InvalidInputError } from "./probe-spec.js";

/** ManifestObject is one object of a manifest: its resource (undefined for a kind the agent does not serve), name and namespace. */
export interface ManifestObject {
  kind: string;
  apiVersion: string;
  resource: ApiResource | undefined;
  name: string;
  namespace: string | undefined;
  source: string;
}

/** Lists nest at most this deep (List of List …). */
const MAX_LIST_DEPTH = 4;

/** readManifestObjects reads every file first; a file that does not parse, or holds no object, throws InvalidInputError. */
export async function readManifestObjects(files: readonly string[], readStdin: () => Promise<string>): Promise<ManifestObject[]> {
  const objects: ManifestObject[] = [];
  for (const file of files) {
    const source = file === "-" ? "STDIN" : file;
    const parsed = parseBounded(await readInputFile(file, readStdin), formatOfFile(file), source);
    if (!parsed.ok) throw new InvalidInputError(`error parsing "${source}"`, parsed.errors);
    const found: ManifestObject[] = [];
    for (const document of parsed.documents) collect(document.value, source, found, 0);
    if (found.length === 0) throw new InvalidInputError(`error validating "${source}"`, [NO_OBJECTS_MESSAGE]);
    objects.push(...found);
  }
  return objects;
}

function collect(value: unknown, source: string, into: ManifestObject[], depth: number): void {
  const object = (value ?? {}) as { kind?: unknown; apiVersion?: unknown; metadata?: { name?: unknown; namespace?: unknown }; items?: unknown };
  const kind = typeof object.kind === "string" ? object.kind : "";
  if (kind === "List" || (kind.endsWith("List") && Array.isArray(object.items))) {
    if (depth >= MAX_LIST_DEPTH) throw new InvalidInputError(`error validating "${source}"`, [`lists are nested deeper than ${MAX_LIST_DEPTH}`]);
    for (const item of Array.isArray(object.items) ? object.items : []) collect(item, source, into, depth + 1);
    return;
  }
  const name = typeof object.metadata?.name === "string" ? object.metadata.name : "";
  if (kind === "" || name === "") throw new InvalidInputError(`error validating "${source}"`, [kind === "" ? "Object 'Kind' is missing" : "metadata.name: Required value: name is required"]);
  const apiVersion = typeof object.apiVersion === "string" ? object.apiVersion : "";
  const namespace = typeof object.metadata?.namespace === "string" && object.metadata.namespace !== "" ? object.metadata.namespace : undefined;
  into.push({ kind, apiVersion, resource: apiVersion === "v1" ? findResourceByKind(kind) : undefined, name, namespace, source });
}
