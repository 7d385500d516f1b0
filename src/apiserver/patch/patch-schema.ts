// Patch metadata for the core/v1 kinds probelet serves, written as data. Each node describes one
// field position: how strategic merge patch merges it (`patchStrategy`/`patchMergeKey` struct tags
// of k8s.io/api/core/v1/types.go) and how server-side apply tracks it (`+listType`, `+listMapKey`,
// `+mapType` markers of the same file). Fields not described here are patched as untyped JSON:
// objects merge, lists replace (strategic merge patch) or are atomic (server-side apply).

/** TypeSchema describes one field position of an object. */
export interface TypeSchema {
  /** Struct fields by JSON name. */
  readonly fields?: Readonly<Record<string, TypeSchema>>;
  /** The value is a map with arbitrary keys (labels, data); every value has this schema. */
  readonly mapValues?: TypeSchema;
  /** The value is a list; every element has this schema. */
  readonly items?: TypeSchema;
  /** The `patchStrategy` struct tag (absent means replace). */
  readonly patchStrategy?: "merge" | "retainKeys" | "merge,retainKeys";
  /** The `patchMergeKey` struct tag of a merging list of objects. */
  readonly patchMergeKey?: string;
  /** Server-side apply list type (`+listType`); absent means atomic. */
  readonly listType?: "atomic" | "set" | "map";
  /** Server-side apply keys of an associative list (`+listMapKey`). */
  readonly listMapKeys?: readonly string[];
  /** Defaults of key fields the API server fills in (ports' protocol is TCP), so keys match. */
  readonly listMapKeyDefaults?: Readonly<Record<string, string>>;
  /** The value is replaced as a whole by server-side apply (`+structType=atomic`, `+mapType=atomic`). */
  readonly atomic?: true;
}

/** fieldSchema is the schema of a child key: a struct field, or any key of a map. */
export function fieldSchema(schema: TypeSchema | undefined, key: string): TypeSchema | undefined {
  if (schema === undefined) return undefined;
  if (schema.fields !== undefined) {
    return Object.prototype.hasOwnProperty.call(schema.fields, key) ? schema.fields[key] : undefined;
  }
  return schema.mapValues;
}

/** mergesList tells whether strategic merge patch merges this list (patchStrategy includes merge). */
export function mergesList(schema: TypeSchema | undefined): boolean {
  return schema?.patchStrategy === "merge" || schema?.patchStrategy === "merge,retainKeys";
}

const stringMap: TypeSchema = { mapValues: {} };
const atomicList: TypeSchema = { listType: "atomic" };

function struct(fields: Record<string, TypeSchema>): TypeSchema {
  return { fields };
}

/** A list merged by one key in strategic merge patch and keyed the same way in server-side apply. */
function keyedList(key: string, items: TypeSchema, listMapKeys: readonly string[] = [key], retainKeys = false): TypeSchema {
  return { patchStrategy: retainKeys ? "merge,retainKeys" : "merge", patchMergeKey: key, listType: "map", listMapKeys, items };
}

const containerPorts: TypeSchema = {
  ...keyedList("containerPort", struct({}), ["containerPort", "protocol"]),
  listMapKeyDefaults: { protocol: "TCP" },
};

/** A list of scalars merged as a set (e.g. metadata.finalizers). */
const mergedSet: TypeSchema = { patchStrategy: "merge", listType: "set" };

/** OBJECT_META_SCHEMA is metav1.ObjectMeta. */
export const OBJECT_META_SCHEMA: TypeSchema = struct({
  labels: stringMap,
  annotations: stringMap,
  finalizers: mergedSet,
  ownerReferences: keyedList("uid", struct({})),
  managedFields: atomicList,
});

const conditionList = keyedList("type", struct({}));

const probe = struct({
  exec: struct({ command: atomicList }),
  httpGet: struct({ httpHeaders: atomicList }),
});

const container = struct({
  command: atomicList,
  args: atomicList,
  ports: containerPorts,
  envFrom: atomicList,
  env: keyedList("name", struct({ valueFrom: struct({}) })),
  resources: struct({ limits: stringMap, requests: stringMap, claims: { listType: "map", listMapKeys: ["name"] } }),
  resizePolicy: atomicList,
  volumeMounts: keyedList("mountPath", struct({})),
  volumeDevices: keyedList("devicePath", struct({})),
  livenessProbe: probe,
  readinessProbe: probe,
  startupProbe: probe,
  lifecycle: struct({
    postStart: struct({ exec: struct({ command: atomicList }), httpGet: struct({ httpHeaders: atomicList }) }),
    preStop: struct({ exec: struct({ command: atomicList }), httpGet: struct({ httpHeaders: atomicList }) }),
  }),
  securityContext: struct({ capabilities: struct({ add: atomicList, drop: atomicList }) }),
});

/** POD_SPEC_SCHEMA is core/v1 PodSpec. */
export const POD_SPEC_SCHEMA: TypeSchema = struct({
  volumes: keyedList("name", struct({}), ["name"], true),
  initContainers: keyedList("name", container),
  containers: keyedList("name", container),
  ephemeralContainers: keyedList("name", container),
  imagePullSecrets: keyedList("name", struct({})),
  hostAliases: keyedList("ip", struct({ hostnames: atomicList })),
  tolerations: atomicList,
  nodeSelector: stringMap,
  overhead: stringMap,
  readinessGates: atomicList,
  topologySpreadConstraints: keyedList("topologyKey", struct({}), ["topologyKey", "whenUnsatisfiable"]),
  schedulingGates: keyedList("name", struct({})),
  resourceClaims: keyedList("name", struct({}), ["name"], true),
  dnsConfig: struct({ nameservers: atomicList, searches: atomicList, options: atomicList }),
});

const containerStatuses: TypeSchema = atomicList;

/** POD_STATUS_SCHEMA is core/v1 PodStatus (container statuses carry no patch strategy: replaced whole). */
export const POD_STATUS_SCHEMA: TypeSchema = struct({
  conditions: conditionList,
  podIPs: keyedList("ip", struct({})),
  hostIPs: keyedList("ip", struct({})),
  initContainerStatuses: containerStatuses,
  containerStatuses,
  ephemeralContainerStatuses: containerStatuses,
  resourceClaimStatuses: keyedList("name", struct({})),
});

/** POD_SCHEMA is core/v1 Pod. */
export const POD_SCHEMA: TypeSchema = struct({ metadata: OBJECT_META_SCHEMA, spec: POD_SPEC_SCHEMA, status: POD_STATUS_SCHEMA });

/** NODE_STATUS_SCHEMA is core/v1 NodeStatus. */
export const NODE_STATUS_SCHEMA: TypeSchema = struct({
  capacity: stringMap,
  allocatable: stringMap,
  conditions: conditionList,
  addresses: keyedList("type", struct({})),
  images: atomicList,
  volumesInUse: atomicList,
  volumesAttached: atomicList,
});

/** NODE_SCHEMA is core/v1 Node. */
export const NODE_SCHEMA: TypeSchema = struct({
  metadata: OBJECT_META_SCHEMA,
  spec: struct({ podCIDRs: mergedSet, taints: atomicList }),
  status: NODE_STATUS_SCHEMA,
});

/** EVENT_SCHEMA is core/v1 Event. */
export const EVENT_SCHEMA: TypeSchema = struct({
  metadata: OBJECT_META_SCHEMA,
  involvedObject: struct({}),
  related: struct({}),
  source: struct({}),
  series: struct({}),
});

/** CONFIG_MAP_SCHEMA is core/v1 ConfigMap. */
export const CONFIG_MAP_SCHEMA: TypeSchema = struct({ metadata: OBJECT_META_SCHEMA, data: stringMap, binaryData: stringMap });

/** SECRET_SCHEMA is core/v1 Secret. */
export const SECRET_SCHEMA: TypeSchema = struct({ metadata: OBJECT_META_SCHEMA, data: stringMap, stringData: stringMap });

/** NAMESPACE_SCHEMA is core/v1 Namespace. */
export const NAMESPACE_SCHEMA: TypeSchema = struct({
  metadata: OBJECT_META_SCHEMA,
  spec: struct({ finalizers: atomicList }),
  status: struct({ conditions: conditionList }),
});

/** PATCH_SCHEMAS maps a core/v1 kind to its schema. */
export const PATCH_SCHEMAS: Readonly<Record<string, TypeSchema>> = {
  Pod: POD_SCHEMA,
  Node: NODE_SCHEMA,
  Event: EVENT_SCHEMA,
  ConfigMap: CONFIG_MAP_SCHEMA,
  Secret: SECRET_SCHEMA,
  Namespace: NAMESPACE_SCHEMA,
};

/** schemaForObject picks the schema of a core/v1 object by its apiVersion and kind (undefined for others). */
export function schemaForObject(object: { readonly [key: string]: unknown }): TypeSchema | undefined {
  const kind = Object.prototype.hasOwnProperty.call(object, "kind") ? object["kind"] : undefined;
  const apiVersion = Object.prototype.hasOwnProperty.call(object, "apiVersion") ? object["apiVersion"] : undefined;
  if (apiVersion !== "v1" || typeof kind !== "string" || !Object.prototype.hasOwnProperty.call(PATCH_SCHEMAS, kind)) return undefined;
  return PATCH_SCHEMAS[kind];
}
