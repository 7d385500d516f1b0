// The subset of the Kubernetes core/v1 API that probing and running pods need.
// Field names and shapes follow core/v1 exactly so YAML/JSON manifests map onto these
// types without translation. Data only: defaulting lives in defaults.ts, validation in
// validation.ts.

/** IntOrString is core/v1's int-or-string (ports may be numbers or IANA names). */
export type IntOrString = number | string;

/** ObjectMeta is the subset of metav1.ObjectMeta that probelet uses. */
export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  creationTimestamp?: string;
  /** Set when graceful deletion has started (RFC 3339). */
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  generation?: number;
  resourceVersion?: string;
}

/** ExecAction runs a command inside the container (no shell unless the command invokes one). */
export interface ExecAction {
  command?: string[];
}

/** HTTPHeader is one custom header of an httpGet probe. */
export interface HTTPHeader {
  name: string;
  value: string;
}

/** HTTPGetAction describes an HTTP GET probe. */
export interface HTTPGetAction {
  path?: string;
  port: IntOrString;
  host?: string;
  /** "HTTP" or "HTTPS" (case-sensitive at the API). */
  scheme?: string;
  httpHeaders?: HTTPHeader[];
}

/** TCPSocketAction describes a TCP connect probe. */
export interface TCPSocketAction {
  port: IntOrString;
  host?: string;
}

/** GRPCAction describes a grpc.health.v1 Check probe. The port is a number, never a name. */
export interface GRPCAction {
  port: number;
  /** Defaulted to "" by the API server. */
  service?: string;
}

/** ProbeHandler holds exactly one of the four probe actions. */
export interface ProbeHandler {
  exec?: ExecAction;
  httpGet?: HTTPGetAction;
  tcpSocket?: TCPSocketAction;
  grpc?: GRPCAction;
}

/** Probe is core/v1 Probe: a handler plus timing and thresholds. */
export interface Probe extends ProbeHandler {
  initialDelaySeconds?: number;
  timeoutSeconds?: number;
  periodSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
  /** Liveness and startup only; overrides the pod's grace period for kills this probe causes. */
  terminationGracePeriodSeconds?: number;
}

/** ContainerPort is one declared port of a container; probes resolve named ports against these. */
export interface ContainerPort {
  name?: string;
  containerPort: number;
  hostPort?: number;
  protocol?: string;
  hostIP?: string;
}

/** ConfigMapKeySelector selects one key of a ConfigMap in the pod's namespace. */
export interface ConfigMapKeySelector {
  name?: string;
  key: string;
  optional?: boolean;
}

/** SecretKeySelector selects one key of a Secret in the pod's namespace. */
export interface SecretKeySelector {
  name?: string;
  key: string;
  optional?: boolean;
}

/** ObjectFieldSelector names a downward-API field of the pod (apiVersion defaults to "v1"). */
export interface ObjectFieldSelector {
  apiVersion?: string;
  fieldPath: string;
}

/** ResourceFieldSelector names a container's resource limit or request, scaled by `divisor`. */
export interface ResourceFieldSelector {
  containerName?: string;
  resource: string;
  divisor?: string | number;
}

/** EnvVarSource is core/v1 EnvVarSource: exactly one of its references. */
export interface EnvVarSource {
  fieldRef?: ObjectFieldSelector;
  resourceFieldRef?: ResourceFieldSelector;
  configMapKeyRef?: ConfigMapKeySelector;
  secretKeyRef?: SecretKeySelector;
}

/** EnvFromSource imports every key of a ConfigMap or a Secret, each name prefixed by `prefix`. */
export interface EnvFromSource {
  prefix?: string;
  configMapRef?: { name?: string; optional?: boolean };
  secretRef?: { name?: string; optional?: boolean };
}

/** EnvVar is one environment variable of a container. */
export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: EnvVarSource;
}

/** LifecycleHandler is a postStart/preStop action. */
export interface LifecycleHandler {
  exec?: ExecAction;
  httpGet?: HTTPGetAction;
  tcpSocket?: TCPSocketAction;
  sleep?: { seconds: number };
}

/** Lifecycle holds a container's postStart and preStop hooks. */
export interface Lifecycle {
  postStart?: LifecycleHandler;
  preStop?: LifecycleHandler;
}

/** ContainerRestartRuleOnExitCodes matches an exit code against `values` (operator In or NotIn). */
export interface ContainerRestartRuleOnExitCodes {
  operator: string;
  values?: number[];
}

/** ContainerRestartRule is core/v1 ContainerRestartRule: an action taken when `exitCodes` matches. */
export interface ContainerRestartRule {
  /**
   * "Restart" (restart this container) or "RestartAllContainers" (restart the whole pod in place,
   * KEP-5532, RestartAllContainersOnContainerExits: beta and on since 1.36).
   */
  action: string;
  exitCodes?: ContainerRestartRuleOnExitCodes;
}

/** Container is core/v1 Container (the fields probelet reads). */
export interface Container {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  workingDir?: string;
  ports?: ContainerPort[];
  env?: EnvVar[];
  envFrom?: EnvFromSource[];
  volumeMounts?: VolumeMount[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: Lifecycle;
  /**
   * The container's own restart policy (Always, OnFailure, Never; ContainerRestartRules, on
   * since 1.35). On an init container, "Always" makes it a sidecar.
   */
  restartPolicy?: string;
  /** Exit-code rules evaluated before restartPolicy; they require restartPolicy to be set. */
  restartPolicyRules?: ContainerRestartRule[];
  imagePullPolicy?: string;
  terminationMessagePath?: string;
  terminationMessagePolicy?: string;
  resources?: Record<string, unknown>;
  securityContext?: Record<string, unknown>;
  stdin?: boolean;
  tty?: boolean;
}

/** EphemeralContainer is core/v1 EphemeralContainer: a container, optionally aimed at another's namespaces. */
export interface EphemeralContainer extends Container {
  targetContainerName?: string;
}

/** PodReadinessGate names an extra condition that must be True for the pod to be Ready. */
export interface PodReadinessGate {
  conditionType: string;
}

/** RestartPolicy is the pod-level restart policy. */
export type RestartPolicy = "Always" | "OnFailure" | "Never";

/** PodSpec is core/v1 PodSpec (the fields probelet reads). */
export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  /** Containers added to a running pod (pods/ephemeralcontainers) for debugging; run once, never restarted. */
  ephemeralContainers?: EphemeralContainer[];
  restartPolicy?: RestartPolicy;
  terminationGracePeriodSeconds?: number;
  readinessGates?: PodReadinessGate[];
  hostNetwork?: boolean;
  nodeName?: string;
  dnsPolicy?: string;
  schedulerName?: string;
  securityContext?: Record<string, unknown>;
  activeDeadlineSeconds?: number;
  volumes?: Volume[];
  serviceAccountName?: string;
}

/** VolumeMount mounts a pod volume (or one `subPath` of it) at `mountPath` in a container. */
export interface VolumeMount {
  name: string;
  mountPath: string;
  subPath?: string;
  readOnly?: boolean;
}

/** KeyToPath projects one key of a ConfigMap or Secret to a relative file `path` with an optional file `mode`. */
export interface KeyToPath {
  key: string;
  path: string;
  mode?: number;
}

/** ConfigMapVolumeSource fills a volume with a ConfigMap's keys (all, or `items`). */
export interface ConfigMapVolumeSource {
  name?: string;
  items?: KeyToPath[];
  /** File mode of the projected files; defaulted to 0644 (420). */
  defaultMode?: number;
  optional?: boolean;
}

/** SecretVolumeSource fills a volume with a Secret's keys (all, or `items`). */
export interface SecretVolumeSource {
  secretName?: string;
  items?: KeyToPath[];
  /** File mode of the projected files; defaulted to 0644 (420). */
  defaultMode?: number;
  optional?: boolean;
}

/** DownwardAPIVolumeFile writes one pod field or container resource to `path`. */
export interface DownwardAPIVolumeFile {
  path: string;
  fieldRef?: ObjectFieldSelector;
  resourceFieldRef?: ResourceFieldSelector;
  mode?: number;
}

/** DownwardAPIVolumeSource fills a volume with pod fields. */
export interface DownwardAPIVolumeSource {
  items?: DownwardAPIVolumeFile[];
  defaultMode?: number;
}

/** ServiceAccountTokenProjection asks for a token of the pod's service account, bound to the pod, written at `path`. */
export interface ServiceAccountTokenProjection {
  /** The token's audience (empty: the API server's own audiences). */
  audience?: string;
  /** The token's requested lifetime; defaulted to 3600. */
  expirationSeconds?: number;
  path: string;
}

/** VolumeProjection is one source of a projected volume. */
export interface VolumeProjection {
  configMap?: Omit<ConfigMapVolumeSource, "defaultMode">;
  secret?: { name?: string; items?: KeyToPath[]; optional?: boolean };
  downwardAPI?: { items?: DownwardAPIVolumeFile[] };
  /** A token of the pod's service account; only in cluster mode (validation-volumes.ts refuses it standalone). */
  serviceAccountToken?: ServiceAccountTokenProjection;
}

/** ProjectedVolumeSource merges several sources into one volume directory. */
export interface ProjectedVolumeSource {
  sources?: VolumeProjection[];
  defaultMode?: number;
}

/** HostPathVolumeSource mounts a host file or directory; `type` is checked before mounting. */
export interface HostPathVolumeSource {
  path: string;
  type?: string;
}

/** EmptyDirVolumeSource is a fresh directory that lives as long as the pod. */
export interface EmptyDirVolumeSource {
  medium?: string;
  sizeLimit?: string | number;
}

/** Volume is core/v1 Volume with the sources probelet supports. */
export interface Volume {
  name: string;
  emptyDir?: EmptyDirVolumeSource;
  hostPath?: HostPathVolumeSource;
  configMap?: ConfigMapVolumeSource;
  secret?: SecretVolumeSource;
  downwardAPI?: DownwardAPIVolumeSource;
  projected?: ProjectedVolumeSource;
}

/** ConfigMap is core/v1 ConfigMap: string `data` and base64 `binaryData`. */
export interface ConfigMap {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
  immutable?: boolean;
}

/** Secret is core/v1 Secret: base64 `data` (and write-only `stringData`, merged on create). */
export interface Secret {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  type?: string;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  immutable?: boolean;
}

/** ContainerStateWaiting: the container is not yet running. */
export interface ContainerStateWaiting {
  reason?: string;
  message?: string;
}

/** ContainerStateRunning: the container is running since startedAt. */
export interface ContainerStateRunning {
  startedAt?: string;
}

/** ContainerStateTerminated: the container has exited. */
export interface ContainerStateTerminated {
  exitCode: number;
  signal?: number;
  reason?: string;
  message?: string;
  startedAt?: string;
  finishedAt?: string;
  containerID?: string;
}

/** ContainerState holds at most one of waiting, running, terminated. */
export interface ContainerState {
  waiting?: ContainerStateWaiting;
  running?: ContainerStateRunning;
  terminated?: ContainerStateTerminated;
}

/** ContainerStatus is core/v1 ContainerStatus. */
export interface ContainerStatus {
  name: string;
  state?: ContainerState;
  lastState?: ContainerState;
  ready: boolean;
  restartCount: number;
  image?: string;
  imageID?: string;
  /** `<runtime>://<id>`; empty while no container exists. */
  containerID?: string;
  started?: boolean;
  /** The container's volume mounts as the kubelet reports them (core/v1 VolumeMountStatus). */
  volumeMounts?: VolumeMountStatus[];
}

/** VolumeMountStatus is core/v1 VolumeMountStatus. */
export interface VolumeMountStatus {
  name: string;
  mountPath: string;
  readOnly?: boolean;
  /** Set for a read-only mount: Disabled or Enabled. */
  recursiveReadOnly?: string;
}

/** PodConditionType names the pod conditions the kubelet manages. */
export type PodConditionType =
  | "PodReadyToStartContainers"
  | "Initialized"
  | "ContainersReady"
  | "Ready"
  | "PodScheduled"
  | (string & {});

/** ConditionStatus is "True", "False" or "Unknown". */
export type ConditionStatus = "True" | "False" | "Unknown";

/** PodCondition is one entry of pod.status.conditions. */
export interface PodCondition {
  type: PodConditionType;
  status: ConditionStatus;
  lastProbeTime?: string | null;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
  /** The pod's metadata.generation the kubelet saw when it generated the condition (PodObservedGenerationTracking). */
  observedGeneration?: number;
}

/** PodPhase is the pod's high-level phase. */
export type PodPhase = "Pending" | "Running" | "Succeeded" | "Failed" | "Unknown";

/** PodStatus is core/v1 PodStatus. */
export interface PodStatus {
  phase?: PodPhase;
  conditions?: PodCondition[];
  message?: string;
  reason?: string;
  hostIP?: string;
  /** The node's addresses, hostIP first (the kubelet sets both from the node's IPs). */
  hostIPs?: { ip: string }[];
  podIP?: string;
  podIPs?: { ip: string }[];
  startTime?: string;
  initContainerStatuses?: ContainerStatus[];
  containerStatuses?: ContainerStatus[];
  ephemeralContainerStatuses?: ContainerStatus[];
  /** The pod's quality of service class, from its containers' requests and limits. */
  qosClass?: PodQOSClass;
  /** The pod's metadata.generation the status reflects (PodObservedGenerationTracking). */
  observedGeneration?: number;
}

/** PodQOSClass is core/v1 PodQOSClass. */
export type PodQOSClass = "Guaranteed" | "Burstable" | "BestEffort";

/** Pod is core/v1 Pod. */
export interface Pod {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: PodSpec;
  status?: PodStatus;
}
