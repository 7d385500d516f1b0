// The objects of a manifest that are not pods. ConfigMaps and Secrets are decoded and checked as
// the API server's create checks them (strict decoding against the resource's schema, []byte
// fields as base64, the strategy's defaulting and validation, with its field paths and
// messages); every other kind is skipped with a warning that names it, as a kubelet's static pod
// source ignores what is not a pod.
import { formatFieldErrors } from "../api/field-errors.js";
import type { ObjectMeta } from "../api/types.js";
import { CONFIG_MAPS } from "../apiserver/resources/configmaps.js";
import type { ResourceDefinition } from "../apiserver/resources/resource-definition.js";
import { SECRETS } from "../apiserver/resources/secrets.js";
import { decodeResourceObject } from "../apiserver/rest/decode-object.js";
import type { KubeObject } from "../apiserver/storage/object-store.js";
import { StatusError } from "../apiserver/endpoints/status-object.js";

/** ObjectRef names one object of a manifest: its resource (plural), namespace and name. */
export interface ObjectRef {
  resource: string;
  namespace: string;
  name: string;
}

/** ManifestObjects are what a manifest holds besides its pods. */
export interface ManifestObjects {
  /** ConfigMaps and Secrets as the API would store them (defaulted, Secret stringData merged). */
  configObjects: KubeObject[];
  /** ConfigMaps and Secrets refused, so what an earlier version of the file loaded is kept. */
  refused: ObjectRef[];
  /** The refusals, each prefixed by the file. */
  errors: string[];
  /** One line per skipped object of another kind, prefixed by the file. */
  warnings: string[];
}

/** CONFIG_KINDS are the kinds loaded into the store, by kind. */
const CONFIG_KINDS: Readonly<Record<string, ResourceDefinition>> = { ConfigMap: CONFIG_MAPS, Secret: SECRETS };

/** emptyManifestObjects is a ManifestObjects with nothing in it. */
export function emptyManifestObjects(): ManifestObjects {
  return { configObjects: [], refused: [], errors: [], warnings: [] };
}

/**
 * collectManifestObject sorts one non-pod object of a manifest into `into`: a v1 ConfigMap or
 * Secret is checked as the API server's create would; anything else is skipped with a warning.
 */
export function collectManifestObject(value: Record<string, unknown>, fileName: string, into: ManifestObjects): void {
  const kind = String(value["kind"]);
  const apiVersion = String(value["apiVersion"]);
  const written = metadataOf(value);
  const name = written.name ?? "";
  const resource = apiVersion === "v1" ? CONFIG_KINDS[kind] : undefined;
  if (resource === undefined) {
    into.warnings.push(`${fileName}: skipping ${kind} "${name}" (${apiVersion}): probelet runs Pods and loads ConfigMaps and Secrets from manifests; other kinds need a cluster`);
    return;
  }
  let decoded: KubeObject;
  try {
    decoded = decodeResourceObject(resource, value, "Strict").object;
  } catch (err) {
    if (!(err instanceof StatusError)) throw err;
    refuse(into, resource, written, fileName, [redactSecretValues(kind, err.status.message ?? "")]);
    return;
  }
  const scoped = { ...decoded, metadata: manifestMetadata(decoded.metadata) };
  const { object, errors } = resource.strategy.validate(resource.strategy.prepareForCreate(scoped, { nodeName: "" }));
  if (errors.length > 0) {
    refuse(into, resource, scoped.metadata, fileName, [`${kind} "${name}" is invalid:`, ...formatFieldErrors(errors).map((e) => `  * ${redactSecretValues(kind, e)}`)]);
    return;
  }
  into.configObjects.push(object);
}

/**
 * manifestMetadata keeps what a client may set on create (name, namespace, labels, annotations),
 * with the namespace defaulted as for a manifest pod.
 */
function manifestMetadata(meta: ObjectMeta): ObjectMeta {
  return {
    name: meta.name ?? "",
    namespace: meta.namespace === undefined || meta.namespace === "" ? "default" : meta.namespace,
    ...(meta.labels !== undefined ? { labels: meta.labels } : {}),
    ...(meta.annotations !== undefined ? { annotations: meta.annotations } : {}),
  };
}

/** metadataOf reads the name and namespace of an object that may not decode. */
function metadataOf(value: Record<string, unknown>): ObjectMeta {
  const meta = (typeof value["metadata"] === "object" && value["metadata"] !== null ? value["metadata"] : {}) as Record<string, unknown>;
  return manifestMetadata({ ...(typeof meta["name"] === "string" ? { name: meta["name"] } : {}), ...(typeof meta["namespace"] === "string" ? { namespace: meta["namespace"] } : {}) });
}

function refuse(into: ManifestObjects, resource: ResourceDefinition, meta: ObjectMeta, fileName: string, lines: string[]): void {
  into.refused.push({ resource: resource.name, namespace: meta.namespace ?? "default", name: meta.name ?? "" });
  into.errors.push(`${fileName}: ${lines[0] ?? ""}`, ...lines.slice(1));
}

/**
 * redactSecretValues keeps a Secret's values out of messages: a decoding error quotes the value
 * it refused (`data[k]: Invalid value: 5: must be a string`), which the agent would log.
 */
function redactSecretValues(kind: string, message: string): string {
  if (kind !== "Secret") return message;
  return message.replace(/((?:string)?[dD]ata\[[^\]]*\]): Invalid value: .*?: (must be [^;,]*)/g, "$1: Invalid value: (redacted): $2");
}
