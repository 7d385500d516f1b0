// Pure conversions between probelet's domain types (src/runtime/runtime.ts) and CRI v1
// messages (cri-types.ts). Namespace options are always explicit, as the kubelet sets them
// (kubelet kuberuntime_sandbox.go / security_context_others.go): CRI's enum default is POD,
// which for a container's pid namespace would make the pause process its PID 1.
import type {
  ContainerConfig,
  ContainerFilter,
  ContainerInfo,
  ContainerSecurity,
  ContainerState,
  PodSandboxConfig,
  PodSandboxStatus,
  SandboxFilter,
  SandboxState,
} from "../runtime.js";
import { keyValueBytes } from "../runtime.js";
import type {
  CriContainerConfig,
  CriContainerFilter,
  CriContainerSecurityContext,
  CriContainerState,
  CriContainerStatus,
  CriSandboxConfig,
  CriSandboxFilter,
  CriSandboxState,
  CriSandboxStatus,
  Int64,
  NamespaceOption,
} from "./cri-types.js";

/** DEFAULT_CGROUP_PREFIX is the cgroup under which pod cgroups are made when none is configured. */
export const DEFAULT_CGROUP_PREFIX = "/probelet";

const NS_PER_MS = 1_000_000n;

/**
 * nsToMs converts a CRI int64 nanosecond timestamp (a decimal string, beyond 2^53) to whole
 * milliseconds without going through a float; "0" (not yet) stays 0.
 */
export function nsToMs(ns: Int64 | number | bigint): number {
  const value = typeof ns === "bigint" ? ns : BigInt(typeof ns === "number" ? Math.trunc(ns) : ns || "0");
  return Number(value / NS_PER_MS);
}

/** namespaceOptions is the kubelet's choice: network NODE for hostNetwork pods, else POD; own pid namespace; pod ipc. */
export function namespaceOptions(hostNetwork: boolean): NamespaceOption {
  return { network: hostNetwork ? "NODE" : "POD", pid: "CONTAINER", ipc: "POD" };
}

/** podCgroupParent names a pod's cgroup (kubelet cgroupfs driver: <prefix>/pod<uid>). */
export function podCgroupParent(prefix: string, podUid: string): string {
  const base = prefix.replace(/\/+$/, "");
  return `${base.startsWith("/") ? base : `/${base}`}/pod${podUid.replace(/[^A-Za-z0-9_.-]/g, "_")}`;
}

/**
 * sandboxConfig builds CRI's PodSandboxConfig. Pod-network pods get their host name (the agent's
 * GeneratePodHostNameAndDomain; else the pod name, cut to 63 characters as the kubelet does);
 * hostNetwork pods keep the node's. The pod's sysctls go in linux.sysctls.
 */
export function sandboxConfig(config: PodSandboxConfig, cgroupPrefix: string): CriSandboxConfig {
  return {
    metadata: { name: config.name, uid: config.podUid, namespace: config.namespace, attempt: config.attempt },
    hostname: config.hostNetwork ? "" : (config.hostname ?? config.name.slice(0, 63).replace(/[-.]+$/, "")),
    log_directory: config.logDirectory,
    labels: { ...config.labels },
    annotations: { ...config.annotations },
    linux: {
      cgroup_parent: podCgroupParent(cgroupPrefix, config.podUid),
      security_context: { namespace_options: namespaceOptions(config.hostNetwork), ...(config.privileged === true ? { privileged: true } : {}) },
      ...(config.sysctls && Object.keys(config.sysctls).length > 0 ? { sysctls: { ...config.sysctls } } : {}),
    },
  };
}

/** containerConfig builds CRI's ContainerConfig; the namespaces follow the pod's network mode. */
export function containerConfig(config: ContainerConfig, sandbox: PodSandboxConfig): CriContainerConfig {
  return {
    metadata: { name: config.name, attempt: config.attempt },
    // kuberuntime_container.go generateContainerConfig: the runtime creates the container of the
    // image the kubelet made sure of (its imageRef), and is told the spec's name for it.
    image: { image: config.imageRef ?? config.image, user_specified_image: config.image },
    command: [...config.command],
    args: [...config.args],
    working_dir: config.workingDir ?? "",
    envs: config.envs.map((kv) => ({ key: kv.key, value: keyValueBytes(kv) })),
    labels: { ...config.labels },
    annotations: { ...config.annotations },
    log_path: config.logPath,
    ...(config.mounts?.length ? { mounts: config.mounts.map((m) => ({ container_path: m.containerPath, host_path: m.hostPath, readonly: m.readonly })) } : {}),
    linux: {
      ...(config.memoryLimitBytes ? { resources: { memory_limit_in_bytes: String(config.memoryLimitBytes) } } : {}),
      security_context: { namespace_options: namespaceOptions(sandbox.hostNetwork), ...securityContext(config.security) },
    },
  };
}

/** securityContext is CRI's LinuxContainerSecurityContext of a container (kubelet convertToRuntimeSecurityContext). */
function securityContext(security: ContainerSecurity | undefined): Omit<CriContainerSecurityContext, "namespace_options"> {
  if (!security) return {};
  const { runAsUser, runAsGroup, supplementalGroups, capabilities, privileged, noNewPrivs, readonlyRootfs } = security;
  return {
    ...(runAsUser !== undefined ? { run_as_user: { value: String(runAsUser) } } : {}),
    ...(runAsGroup !== undefined ? { run_as_group: { value: String(runAsGroup) } } : {}),
    ...(supplementalGroups?.length ? { supplemental_groups: supplementalGroups.map(String) } : {}),
    ...(capabilities ? { capabilities: { add_capabilities: [...capabilities.add], drop_capabilities: [...capabilities.drop] } } : {}),
    ...(privileged ? { privileged: true } : {}),
    ...(noNewPrivs ? { no_new_privs: true } : {}),
    ...(readonlyRootfs ? { readonly_rootfs: true } : {}),
  };
}

const CONTAINER_STATES: Record<CriContainerState, ContainerState> = {
  CONTAINER_CREATED: "created",
  CONTAINER_RUNNING: "running",
  CONTAINER_EXITED: "exited",
  CONTAINER_UNKNOWN: "unknown",
};

const CRI_CONTAINER_STATES: Record<ContainerState, CriContainerState> = {
  created: "CONTAINER_CREATED",
  running: "CONTAINER_RUNNING",
  exited: "CONTAINER_EXITED",
  unknown: "CONTAINER_UNKNOWN",
};

/** containerState maps CRI's ContainerState name (or an unknown value) to ours. */
export function containerState(state: string): ContainerState {
  return CONTAINER_STATES[state as CriContainerState] ?? "unknown";
}

/** sandboxState maps CRI's PodSandboxState name to ours; anything but READY is not ready. */
export function sandboxState(state: string): SandboxState {
  return state === "SANDBOX_READY" ? "ready" : "notready";
}

/** containerInfo maps a CRI ContainerStatus to ContainerInfo (timestamps ns → ms). */
export function containerInfo(status: CriContainerStatus, podSandboxId: string): ContainerInfo {
  return {
    id: status.id,
    podSandboxId,
    name: status.metadata?.name ?? "",
    attempt: status.metadata?.attempt ?? 0,
    state: containerState(status.state),
    image: status.image?.image ?? "",
    imageRef: status.image_ref,
    createdAt: nsToMs(status.created_at),
    startedAt: nsToMs(status.started_at),
    finishedAt: nsToMs(status.finished_at),
    exitCode: status.exit_code,
    reason: status.reason,
    message: status.message,
    labels: { ...status.labels },
    annotations: { ...status.annotations },
    logPath: status.log_path,
  };
}

/** sandboxStatus maps a CRI PodSandboxStatus to ours; the pod IP is "" for hostNetwork pods. */
export function sandboxStatus(status: CriSandboxStatus): PodSandboxStatus {
  return {
    id: status.id,
    podUid: status.metadata?.uid ?? "",
    name: status.metadata?.name ?? "",
    namespace: status.metadata?.namespace ?? "",
    attempt: status.metadata?.attempt ?? 0,
    state: sandboxState(status.state),
    podIP: status.network?.ip ?? "",
    createdAt: nsToMs(status.created_at),
    labels: { ...status.labels },
    annotations: { ...status.annotations },
  };
}

/** containerFilter maps our filter to CRI's ContainerFilter (labels become the label selector). */
export function containerFilter(filter: ContainerFilter | undefined): CriContainerFilter | undefined {
  if (!filter) return undefined;
  const out: CriContainerFilter = {};
  if (filter.podSandboxId !== undefined) out.pod_sandbox_id = filter.podSandboxId;
  if (filter.state !== undefined) out.state = { state: CRI_CONTAINER_STATES[filter.state] };
  if (filter.labels !== undefined) out.label_selector = { ...filter.labels };
  return out;
}

/** sandboxFilter maps our filter to CRI's PodSandboxFilter. */
export function sandboxFilter(filter: SandboxFilter | undefined): CriSandboxFilter | undefined {
  if (!filter) return undefined;
  const out: CriSandboxFilter = {};
  const state: CriSandboxState | undefined = filter.state === undefined ? undefined : filter.state === "ready" ? "SANDBOX_READY" : "SANDBOX_NOTREADY";
  if (state !== undefined) out.state = { state };
  if (filter.labels !== undefined) out.label_selector = { ...filter.labels };
  return out;
}
