// The CRI v1 wire messages (proto/cri-api.proto) as @grpc/proto-loader hands them over with
// { keepCase, longs: String, enums: String, defaults: true }: snake_case keys, int64 as decimal
// strings (CRI timestamps are nanoseconds, beyond 2^53), enums as their names, absent messages
// as null. These types stay inside src/runtime/cri/; convert.ts maps them to domain types.

/** Int64 is how int64 fields travel: decimal strings on the way in, strings or numbers out. */
export type Int64 = string;

/** NamespaceMode is CRI's NamespaceMode enum. */
export type NamespaceMode = "POD" | "CONTAINER" | "NODE" | "TARGET";
/** CriSandboxState is CRI's PodSandboxState enum. */
export type CriSandboxState = "SANDBOX_READY" | "SANDBOX_NOTREADY";
/** CriContainerState is CRI's ContainerState enum. */
export type CriContainerState = "CONTAINER_CREATED" | "CONTAINER_RUNNING" | "CONTAINER_EXITED" | "CONTAINER_UNKNOWN";

/** NamespaceOption is CRI's NamespaceOption. */
export interface NamespaceOption {
  network: NamespaceMode;
  pid: NamespaceMode;
  ipc: NamespaceMode;
  target_id?: string;
}

/** CriRuntimeCondition is CRI's RuntimeCondition ("RuntimeReady", "NetworkReady"). */
export interface CriRuntimeCondition {
  type: string;
  status: boolean;
  reason: string;
  message: string;
}

/** CriSandboxMetadata is CRI's PodSandboxMetadata. */
export interface CriSandboxMetadata {
  name: string;
  uid: string;
  namespace: string;
  attempt: number;
}

/** CriSandboxConfig is CRI's PodSandboxConfig (the fields probelet sets). */
export interface CriSandboxConfig {
  metadata: CriSandboxMetadata;
  hostname: string;
  log_directory: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  linux: {
    cgroup_parent: string;
    security_context: { namespace_options: NamespaceOption; privileged?: boolean };
    sysctls?: Record<string, string>;
  };
}

/** CriContainerConfig is CRI's ContainerConfig (the fields probelet sets). */
export interface CriContainerConfig {
  metadata: { name: string; attempt: number };
  /** The image EnsureImageExists resolved (its ID), and the image the pod's spec names. */
  image: { image: string; user_specified_image: string };
  command: string[];
  args: string[];
  working_dir: string;
  /** Values are exact bytes (CRI KeyValue.value is bytes since cri-api v0.37). */
  envs: { key: string; value: Buffer }[];
  labels: Record<string, string>;
  annotations: Record<string, string>;
  log_path: string;
  mounts?: { container_path: string; host_path: string; readonly: boolean }[];
  linux: { resources?: { memory_limit_in_bytes: Int64 }; security_context: CriContainerSecurityContext };
}

/** CriContainerSecurityContext is CRI's LinuxContainerSecurityContext (the fields probelet sets). */
export interface CriContainerSecurityContext {
  namespace_options: NamespaceOption;
  run_as_user?: { value: Int64 };
  run_as_group?: { value: Int64 };
  supplemental_groups?: Int64[];
  capabilities?: { add_capabilities: string[]; drop_capabilities: string[] };
  privileged?: boolean;
  no_new_privs?: boolean;
  readonly_rootfs?: boolean;
}

/** CriSandboxStatus is CRI's PodSandboxStatus as received. */
export interface CriSandboxStatus {
  id: string;
  metadata: CriSandboxMetadata | null;
  state: CriSandboxState;
  created_at: Int64;
  network: { ip: string; additional_ips: { ip: string }[] } | null;
  linux: { namespaces: { options: NamespaceOption | null } | null } | null;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/** CriSandbox is CRI's PodSandbox (a ListPodSandbox item) as received. */
export interface CriSandbox {
  id: string;
  metadata: CriSandboxMetadata | null;
  state: CriSandboxState;
  created_at: Int64;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/** CriContainer is CRI's Container (a ListContainers item) as received. */
export interface CriContainer {
  id: string;
  pod_sandbox_id: string;
  metadata: { name: string; attempt: number } | null;
  image: { image: string } | null;
  state: CriContainerState;
  created_at: Int64;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/** CriContainerStatus is CRI's ContainerStatus as received. */
export interface CriContainerStatus {
  id: string;
  metadata: { name: string; attempt: number } | null;
  state: CriContainerState;
  created_at: Int64;
  started_at: Int64;
  finished_at: Int64;
  exit_code: number;
  image: { image: string } | null;
  image_ref: string;
  reason: string;
  message: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  log_path: string;
}

/** CriImage is CRI's Image as received. */
export interface CriImage {
  id: string;
  repo_tags: string[];
  repo_digests: string[];
  size: Int64;
  /** The image's numeric user, when its config names one (null otherwise). */
  uid?: { value: Int64 } | null;
  /** The image's user name, when not numeric. */
  username?: string;
}

/** CriContainerFilter is CRI's ContainerFilter. */
export interface CriContainerFilter {
  id?: string;
  state?: { state: CriContainerState };
  pod_sandbox_id?: string;
  label_selector?: Record<string, string>;
}

/** CriSandboxFilter is CRI's PodSandboxFilter. */
export interface CriSandboxFilter {
  id?: string;
  state?: { state: CriSandboxState };
  label_selector?: Record<string, string>;
}

/**
 * CriMethods maps every RPC probelet calls to its [request, response] pair. Requests are
 * what we send (partial: protobuf fills the rest with defaults); responses are as received.
 */
export interface CriMethods {
  Version: [{ version: string }, { version: string; runtime_name: string; runtime_version: string; runtime_api_version: string }];
  Status: [{ verbose?: boolean }, { status: { conditions: CriRuntimeCondition[] } | null; info: Record<string, string> }];
  RunPodSandbox: [{ config: CriSandboxConfig; runtime_handler?: string }, { pod_sandbox_id: string }];
  StopPodSandbox: [{ pod_sandbox_id: string }, Record<string, never>];
  RemovePodSandbox: [{ pod_sandbox_id: string }, Record<string, never>];
  PodSandboxStatus: [{ pod_sandbox_id: string; verbose?: boolean }, { status: CriSandboxStatus | null; info: Record<string, string> }];
  ListPodSandbox: [{ filter?: CriSandboxFilter }, { items: CriSandbox[] }];
  CreateContainer: [{ pod_sandbox_id: string; config: CriContainerConfig; sandbox_config: CriSandboxConfig }, { container_id: string }];
  StartContainer: [{ container_id: string }, Record<string, never>];
  StopContainer: [{ container_id: string; timeout: Int64 }, Record<string, never>];
  RemoveContainer: [{ container_id: string }, Record<string, never>];
  ListContainers: [{ filter?: CriContainerFilter }, { containers: CriContainer[] }];
  ContainerStatus: [{ container_id: string; verbose?: boolean }, { status: CriContainerStatus | null; info: Record<string, string> }];
  ReopenContainerLog: [{ container_id: string }, Record<string, never>];
  ExecSync: [{ container_id: string; cmd: string[]; timeout: Int64 }, { stdout: Buffer; stderr: Buffer; exit_code: number }];
  Exec: [{ container_id: string; cmd: string[]; tty: boolean; stdin: boolean; stdout: boolean; stderr: boolean }, { url: string }];
  Attach: [{ container_id: string; tty: boolean; stdin: boolean; stdout: boolean; stderr: boolean }, { url: string }];
  PortForward: [{ pod_sandbox_id: string; port: number[] }, { url: string }];
  ListImages: [{ filter?: { image: { image: string } } }, { images: CriImage[] }];
  ImageStatus: [{ image: CriImageSpec; verbose?: boolean }, { image: CriImage | null; info: Record<string, string> }];
  PullImage: [{ image: CriImageSpec; sandbox_config: CriSandboxConfig }, { image_ref: string }];
}

/** CriImageSpec is CRI's ImageSpec (the fields the kubelet sets). */
export interface CriImageSpec {
  image: string;
  annotations?: Record<string, string>;
}

/** CriMethod names one RPC of CriMethods. */
export type CriMethod = keyof CriMethods;

/** IMAGE_SERVICE_METHODS are the RPCs served by runtime.v1.ImageService; the rest are RuntimeService's. */
export const IMAGE_SERVICE_METHODS: ReadonlySet<CriMethod> = new Set<CriMethod>(["ListImages", "ImageStatus", "PullImage"]);
