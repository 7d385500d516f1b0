// A compact schema of the core/v1 Pod and Probe fields, used by decode.ts for strict decoding
// like the API server: every field a v1 manifest may carry is known here (so a real manifest
// decodes), fields probelet reads are typed as in types.ts, and fields it never interprets are
// accepted as opaque JSON. Anything else is an unknown field.

/** FieldSchema describes the JSON shape expected at one field. */
export type FieldSchema =
  | { kind: "string" }
  | { kind: "bool" }
  | { kind: "int32" }
  | { kind: "int64" }
  | { kind: "intOrString" }
  /** Any JSON value, kept as is (resources, ...). */
  | { kind: "opaque" }
  | { kind: "array"; items: FieldSchema }
  /** A JSON object with arbitrary keys whose values all follow `values` (labels, annotations). */
  | { kind: "map"; values: FieldSchema }
  /** A struct: known `fields`; `required` names those filled with their zero value when absent. */
  | { kind: "object"; fields: Readonly<Record<string, FieldSchema>>; required: readonly string[] }
  /**
   * A field of the API behind a feature `gate` that is off by default: decoded as `value` (its
   * type errors are reported), then dropped, as the API server's PrepareForCreate
   * (pkg/api/pod/util.go dropDisabledPodFields) drops it before validation.
   */
  | { kind: "dropped"; gate: string; value: FieldSchema };

const str: FieldSchema = { kind: "string" };
const bool: FieldSchema = { kind: "bool" };
const int32: FieldSchema = { kind: "int32" };
const int64: FieldSchema = { kind: "int64" };
const intOrString: FieldSchema = { kind: "intOrString" };
const opaque: FieldSchema = { kind: "opaque" };
const strings: FieldSchema = { kind: "array", items: str };
const stringMap: FieldSchema = { kind: "map", values: str };

function arr(items: FieldSchema): FieldSchema {
  return { kind: "array", items };
}

function obj(fields: Record<string, FieldSchema>, required: readonly string[] = []): FieldSchema {
  return { kind: "object", fields, required };
}

// A field the API server drops while its feature gate is off (the 1.37 default).
function dropped(gate: string, value: FieldSchema): FieldSchema {
  return { kind: "dropped", gate, value };
}

// Accept core/v1 fields probelet does not interpret, as opaque JSON.
function accepted(...names: string[]): Record<string, FieldSchema> {
  return Object.fromEntries(names.map((n) => [n, opaque]));
}

const capabilities = obj({ add: strings, drop: strings });

/** securityContextSchema is core/v1 SecurityContext (a container's); the fields probelet applies are typed. */
const securityContextSchema = obj({
  runAsUser: int64,
  runAsGroup: int64,
  runAsNonRoot: bool,
  allowPrivilegeEscalation: bool,
  privileged: bool,
  readOnlyRootFilesystem: bool,
  capabilities,
  ...accepted("seLinuxOptions", "windowsOptions", "procMount", "seccompProfile", "appArmorProfile"),
});

/** podSecurityContextSchema is core/v1 PodSecurityContext. */
const podSecurityContextSchema = obj({
  runAsUser: int64,
  runAsGroup: int64,
  runAsNonRoot: bool,
  fsGroup: int64,
  supplementalGroups: arr(int64),
  ...accepted("seLinuxOptions", "windowsOptions", "supplementalGroupsPolicy", "sysctls", "fsGroupChangePolicy", "seccompProfile", "appArmorProfile", "seLinuxChangePolicy"),
});

const execAction = obj({ command: strings });
const httpGetAction = obj(
  {
    path: str,
    port: intOrString,
    host: str,
    scheme: str,
    httpHeaders: arr(obj({ name: str, value: str }, ["name", "value"])),
    protocol: dropped("H2CContainerProbe", str),
  },
  ["port"],
);
const tcpSocketAction = obj({ port: intOrString, host: str }, ["port"]);
const grpcAction = obj({ port: int32, service: str, mode: dropped("GRPCContainerProbeTLS", str) }, ["port"]);

/** probeSchema is core/v1 Probe. */
export const probeSchema: FieldSchema = obj({
  exec: execAction,
  httpGet: httpGetAction,
  tcpSocket: tcpSocketAction,
  grpc: grpcAction,
  initialDelaySeconds: int32,
  timeoutSeconds: int32,
  periodSeconds: int32,
  successThreshold: int32,
  failureThreshold: int32,
  terminationGracePeriodSeconds: int64,
});

const lifecycleHandler = obj({
  exec: execAction,
  httpGet: httpGetAction,
  tcpSocket: tcpSocketAction,
  sleep: obj({ seconds: int64 }, ["seconds"]),
});

const restartRule = obj({ action: str, exitCodes: obj({ operator: str, values: arr(int32) }, ["operator"]) }, ["action"]);
const containerPort = obj({ name: str, containerPort: int32, hostPort: int32, protocol: str, hostIP: str }, ["containerPort"]);
const optionalRef = obj({ name: str, optional: bool });
const keySelector = obj({ name: str, key: str, optional: bool }, ["key"]);
const fieldSelector = obj({ apiVersion: str, fieldPath: str }, ["fieldPath"]);
const resourceSelector = obj({ containerName: str, resource: str, divisor: intOrString }, ["resource"]);
const envVarSource = obj({
  fieldRef: fieldSelector,
  resourceFieldRef: resourceSelector,
  configMapKeyRef: keySelector,
  secretKeyRef: keySelector,
  ...accepted("fileKeyRef"),
});
const envVar = obj({ name: str, value: str, valueFrom: envVarSource }, ["name"]);
const envFromSource = obj({ prefix: str, configMapRef: optionalRef, secretRef: optionalRef });
const volumeMount = obj(
  {
    name: str,
    mountPath: str,
    subPath: str,
    readOnly: bool,
    bindMountOptions: dropped("VolumeBindMountOptions", strings),
    ...accepted("subPathExpr", "mountPropagation", "recursiveReadOnly"),
  },
  ["name", "mountPath"],
);
// AtomicWriteVolumeUserFields (alpha in 1.37): the user and defaultUser of atomic-writer volumes.
const user = dropped("AtomicWriteVolumeUserFields", int64);
const keyToPath = obj({ key: str, path: str, mode: int32, user }, ["key", "path"]);
const downwardAPIFile = obj({ path: str, fieldRef: fieldSelector, resourceFieldRef: resourceSelector, mode: int32, user }, ["path"]);
const configMapProjection = obj({ name: str, items: arr(keyToPath), optional: bool });
const volumeProjection = obj({
  configMap: configMapProjection,
  secret: configMapProjection,
  downwardAPI: obj({ items: arr(downwardAPIFile) }),
  serviceAccountToken: obj({ audience: str, expirationSeconds: int64, path: str, ...accepted("user") }, ["path"]),
  ...accepted("clusterTrustBundle", "podCertificate"),
});

/** volumeSchema is core/v1 Volume: the sources probelet mounts typed, the others accepted (validation refuses them). */
export const volumeSchema: FieldSchema = obj(
  {
    name: str,
    emptyDir: obj({ medium: str, sizeLimit: intOrString, mode: dropped("EmptyDirVolumeMode", int32) }),
    hostPath: obj({ path: str, type: str }, ["path"]),
    configMap: obj({ name: str, items: arr(keyToPath), defaultMode: int32, optional: bool, defaultUser: user }),
    secret: obj({ secretName: str, items: arr(keyToPath), defaultMode: int32, optional: bool, defaultUser: user }),
    downwardAPI: obj({ items: arr(downwardAPIFile), defaultMode: int32, defaultUser: user }),
    projected: obj({ sources: arr(volumeProjection), defaultMode: int32, defaultUser: user }),
    ...accepted(
      "persistentVolumeClaim", "nfs", "iscsi", "csi", "ephemeral", "image", "gcePersistentDisk", "awsElasticBlockStore",
      "gitRepo", "glusterfs", "rbd", "flexVolume", "cinder", "cephfs", "flocker", "fc", "azureFile", "azureDisk",
      "vsphereVolume", "quobyte", "photonPersistentDisk", "portworxVolume", "scaleIO", "storageos",
    ),
  },
  ["name"],
);

/** containerSchema is core/v1 Container (also used for init containers). */
export const containerSchema: FieldSchema = obj(
  {
    name: str,
    image: str,
    command: strings,
    args: strings,
    workingDir: str,
    ports: arr(containerPort),
    env: arr(envVar),
    envFrom: arr(envFromSource),
    volumeMounts: arr(volumeMount),
    livenessProbe: probeSchema,
    readinessProbe: probeSchema,
    startupProbe: probeSchema,
    lifecycle: obj({ postStart: lifecycleHandler, preStop: lifecycleHandler, stopSignal: dropped("ContainerStopSignals", str) }),
    restartPolicy: str,
    restartPolicyRules: arr(restartRule),
    imagePullPolicy: str,
    terminationMessagePath: str,
    terminationMessagePolicy: str,
    resources: opaque,
    securityContext: securityContextSchema,
    stdin: bool,
    stdinOnce: bool,
    tty: bool,
    ...accepted("volumeDevices", "resizePolicy"),
  },
  ["name"],
);

/** objectMetaSchema is metav1.ObjectMeta as every stored resource carries it. */
export const objectMetaSchema: FieldSchema = obj({
  name: str,
  generateName: str,
  namespace: str,
  uid: str,
  labels: stringMap,
  annotations: stringMap,
  creationTimestamp: str,
  deletionTimestamp: str,
  deletionGracePeriodSeconds: int64,
  generation: int64,
  resourceVersion: str,
  ...accepted("selfLink", "ownerReferences", "finalizers", "managedFields"),
});

const podSpec = obj(
  {
    containers: arr(containerSchema),
    initContainers: arr(containerSchema),
    restartPolicy: str,
    terminationGracePeriodSeconds: int64,
    activeDeadlineSeconds: int64,
    readinessGates: arr(obj({ conditionType: str }, ["conditionType"])),
    hostNetwork: bool,
    nodeName: str,
    dnsPolicy: str,
    schedulerName: str,
    securityContext: podSecurityContextSchema,
    volumes: arr(volumeSchema),
    serviceAccountName: str,
    schedulingGroup: dropped("GenericWorkload", opaque),
    evictionResponders: dropped("EvictionRequestAPI", opaque),
    ...accepted(
      "ephemeralContainers", "nodeSelector", "serviceAccount",
      "automountServiceAccountToken", "hostPID", "hostIPC", "shareProcessNamespace", "imagePullSecrets",
      "hostname", "subdomain", "affinity", "tolerations", "hostAliases", "priorityClassName", "priority",
      "dnsConfig", "runtimeClassName", "enableServiceLinks", "preemptionPolicy", "overhead",
      "topologySpreadConstraints", "setHostnameAsFQDN", "os", "hostUsers", "schedulingGates",
      "resourceClaims", "resources", "hostnameOverride",
    ),
  },
  ["containers"],
);

const containerState = obj({
  waiting: obj({ reason: str, message: str }),
  running: obj({ startedAt: str }),
  terminated: obj(
    { exitCode: int32, signal: int32, reason: str, message: str, startedAt: str, finishedAt: str, containerID: str },
    ["exitCode"],
  ),
});

const containerStatus = obj(
  {
    name: str,
    state: containerState,
    lastState: containerState,
    ready: bool,
    restartCount: int32,
    image: str,
    imageID: str,
    containerID: str,
    started: bool,
    ...accepted("allocatedResources", "resources", "volumeMounts", "user", "allocatedResourcesStatus", "stopSignal"),
  },
  ["name", "ready", "restartCount"],
);

const podStatus = obj({
  phase: str,
  conditions: arr(
    obj({ type: str, status: str, lastProbeTime: str, lastTransitionTime: str, reason: str, message: str, observedGeneration: int64 }, [
      "type",
      "status",
    ]),
  ),
  message: str,
  reason: str,
  hostIP: str,
  podIP: str,
  podIPs: arr(obj({ ip: str }, ["ip"])),
  startTime: str,
  initContainerStatuses: arr(containerStatus),
  containerStatuses: arr(containerStatus),
  hostIPs: arr(obj({ ip: str })),
  ...accepted("nominatedNodeName", "qosClass", "ephemeralContainerStatuses", "resize", "resourceClaimStatuses", "observedGeneration", "extendedResourceClaimStatus"),
});

/** podSchema is core/v1 Pod; apiVersion and kind are checked separately by the decoder. */
export const podSchema: FieldSchema = obj(
  { apiVersion: str, kind: str, metadata: objectMetaSchema, spec: podSpec, status: podStatus },
  ["metadata", "spec"],
);

/** listSchema is core/v1 List / PodList; items are decoded one by one as pods. */
export const listSchema: FieldSchema = obj({ apiVersion: str, kind: str, metadata: opaque, items: arr(opaque) }, ["items"]);
