// The Node object a node registers and the status it reports, computed from the machine as the
// kubelet's setters do (pkg/kubelet/nodestatus/setters.go: NodeAddress, MachineInfo,
// VersionInfo, DaemonEndpoints, ReadyCondition, MemoryPressureCondition, DiskPressureCondition,
// PIDPressureCondition; pkg/kubelet/kubelet_node_status.go initialNode for labels and taints,
// setNodeStatus for declaredFeatures).
import { readFileSync, statfsSync } from "node:fs";
import { arch, cpus, release, totalmem } from "node:os";
import { DECLARED_FEATURES } from "./node-declared-features.js";

/** NodeTaint is a core/v1 Taint. */
export interface NodeTaint {
  key: string;
  value?: string;
  effect: "NoSchedule" | "PreferNoSchedule" | "NoExecute";
}

/** NodeCondition is a core/v1 NodeCondition. */
export interface NodeCondition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
  lastHeartbeatTime: string;
  lastTransitionTime: string;
}

/** NodeStatus is the part of core/v1 NodeStatus probelet reports. */
export interface NodeStatus {
  capacity: Record<string, string>;
  allocatable: Record<string, string>;
  conditions: NodeCondition[];
  addresses: { type: string; address: string }[];
  daemonEndpoints: { kubeletEndpoint: { Port: number } };
  nodeInfo: Record<string, string>;
  /** The features the node declares (node-declared-features.ts). */
  declaredFeatures?: string[];
}

/** NodeObject is a core/v1 Node as probelet writes it. */
export interface NodeObject {
  apiVersion: "v1";
  kind: "Node";
  metadata: { name: string; uid?: string; resourceVersion?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: { taints?: NodeTaint[]; podCIDR?: string; unschedulable?: boolean };
  status?: NodeStatus;
}

/** PROCESS_RUNTIME_TAINT keeps a cluster's pods off the process runtime unless they tolerate it. */
export const PROCESS_RUNTIME_TAINT: NodeTaint = { key: "probelet.dev/runtime", value: "process", effect: "NoSchedule" };

/** NodeIdentity is what the node says about itself. */
export interface NodeIdentity {
  name: string;
  /** The address the API server reaches the node at (InternalIP). */
  internalIP: string;
  hostname: string;
  kubeletPort: number;
  /** e.g. "process://probelet" or "containerd://1.7.24". */
  containerRuntimeVersion: string;
  kubeletVersion: string;
  /** A directory on the disk pods' logs go to (ephemeral-storage capacity). */
  stateDir: string;
  taints: NodeTaint[];
}

/** NodeHealth is what the Ready condition reflects. */
export interface NodeHealth {
  /** The kubelet's runtimeErrors: empty while the node can run pods. */
  runtimeErrors: string[];
}

/** KUBELET_MAX_PODS is the kubelet's default --max-pods. */
export const KUBELET_MAX_PODS = 110;

/** initialNode is the Node POSTed at registration (kubelet initialNode). */
export function initialNode(id: NodeIdentity): NodeObject {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name: id.name,
      labels: {
        "kubernetes.io/hostname": id.hostname,
        "kubernetes.io/os": process.platform === "win32" ? "windows" : process.platform,
        "kubernetes.io/arch": goArch(arch()),
        "beta.kubernetes.io/os": process.platform,
        "beta.kubernetes.io/arch": goArch(arch()),
      },
    },
    spec: id.taints.length > 0 ? { taints: id.taints.map((t) => ({ ...t })) } : {},
  };
}

/**
 * nodeStatus computes the status at `now`: machine facts and the four conditions. A condition
 * keeps its lastTransitionTime from `previous` while its status stays the same.
 */
export function nodeStatus(id: NodeIdentity, health: NodeHealth, now: number, previous: NodeStatus | undefined): NodeStatus {
  const capacity = machineCapacity(id.stateDir);
  const time = new Date(now).toISOString().replace(/\.\d+Z$/, "Z");
  const ready = health.runtimeErrors.length === 0;
  const fresh: Omit<NodeCondition, "lastHeartbeatTime" | "lastTransitionTime">[] = [
    { type: "MemoryPressure", status: "False", reason: "KubeletHasSufficientMemory", message: "kubelet has sufficient memory available" },
    { type: "DiskPressure", status: "False", reason: "KubeletHasNoDiskPressure", message: "kubelet has no disk pressure" },
    { type: "PIDPressure", status: "False", reason: "KubeletHasSufficientPID", message: "kubelet has sufficient PID available" },
    ready
      ? { type: "Ready", status: "True", reason: "KubeletReady", message: "kubelet is posting ready status" }
      : { type: "Ready", status: "False", reason: "KubeletNotReady", message: health.runtimeErrors.join(", ") },
  ];
  const conditions = fresh.map((c) => {
    // An existing Node made by someone else may have no status yet.
    const old = previous?.conditions?.find((p) => p.type === c.type);
    return { ...c, lastHeartbeatTime: time, lastTransitionTime: old !== undefined && old.status === c.status ? old.lastTransitionTime : time };
  });
  return {
    capacity,
    allocatable: { ...capacity },
    conditions,
    addresses: [
      { type: "InternalIP", address: id.internalIP },
      { type: "Hostname", address: id.hostname },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: id.kubeletPort } },
    nodeInfo: {
      machineID: readTrimmed("/etc/machine-id"),
      systemUUID: readTrimmed("/sys/class/dmi/id/product_uuid"),
      bootID: readTrimmed("/proc/sys/kernel/random/boot_id"),
      kernelVersion: release(),
      osImage: osImage(),
      containerRuntimeVersion: id.containerRuntimeVersion,
      kubeletVersion: id.kubeletVersion,
      // kubeProxyVersion is left out: DisableNodeKubeProxyVersion (locked on since 1.36) clears it.
      operatingSystem: process.platform,
      architecture: goArch(arch()),
    },
    declaredFeatures: [...DECLARED_FEATURES],
  };
}

/**
 * statusChanged tells whether a new status differs from the reported one other than in the
 * conditions' heartbeat times (kubelet nodeStatusHasChanged).
 */
export function statusChanged(reported: NodeStatus | undefined, next: NodeStatus): boolean {
  if (reported === undefined) return true;
  const strip = (s: NodeStatus): unknown => ({ ...s, conditions: s.conditions.map((c) => ({ ...c, lastHeartbeatTime: "" })) });
  return JSON.stringify(strip(reported)) !== JSON.stringify(strip(next));
}

function machineCapacity(stateDir: string): Record<string, string> {
  const capacity: Record<string, string> = {
    cpu: String(cpus().length),
    memory: `${Math.floor(totalmem() / 1024)}Ki`,
    pods: String(KUBELET_MAX_PODS),
  };
  try {
    const fs = statfsSync(stateDir);
    capacity["ephemeral-storage"] = `${Math.floor((fs.blocks * fs.bsize) / 1024)}Ki`;
  } catch {
    // No filesystem facts: the node reports no ephemeral-storage, as a kubelet without cadvisor's rootfs info.
  }
  return capacity;
}

function readTrimmed(path: string): string {
  try {
    return readFileSync(path, "utf8").slice(0, 4096).trim();
  } catch {
    return "";
  }
}

function osImage(): string {
  const line = readTrimmed("/etc/os-release").split("\n").find((l) => l.startsWith("PRETTY_NAME="));
  return line === undefined ? "" : line.slice("PRETTY_NAME=".length).replace(/^"|"$/g, "");
}

/** goArch names the CPU architecture as Go's GOARCH does. */
export function goArch(nodeArch: string): string {
  return nodeArch === "x64" ? "amd64" : nodeArch === "ia32" ? "386" : nodeArch;
}

/**
 * mergeNodeStatus lays the kubelet's fields over the API server's status: fields and conditions
 * others own (NetworkUnavailable, images, volumes) stay, existing conditions keep their place and
 * new ones are appended, as the kubelet's setters update the Node in place.
 */
export function mergeNodeStatus(current: NodeStatus | undefined, ours: NodeStatus): NodeStatus {
  if (current === undefined) return ours;
  const conditions = (current.conditions ?? []).map((c) => ours.conditions.find((o) => o.type === c.type) ?? c);
  for (const c of ours.conditions) if (!conditions.some((k) => k.type === c.type)) conditions.push(c);
  return { ...current, ...ours, conditions };
}
