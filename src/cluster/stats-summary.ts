// GET /stats/summary of the daemon endpoint: the kubelet's stats.k8s.io/v1alpha1 Summary
// (k8s.io/kubelet/pkg/apis/stats/v1alpha1 types.go; pkg/kubelet/server/stats/summary.go Get),
// with what probelet knows. The node part comes from the machine (node-stats.ts): CPU, memory,
// the state directory's filesystem, process limits. Pods are the node's pods with their start
// time and their running containers' start times; probelet measures no per-container or per-pod
// CPU, memory or disk (no cadvisor), so those fields are left out, as the summary leaves out
// every figure its provider lacks.
import type { ContainerStatus, Pod } from "../api/types.js";
import { rfc3339 } from "../apiserver/storage/object-store.js";
import type { MachineSample } from "./node-stats.js";

/** Summary is stats/v1alpha1 Summary as probelet fills it. */
export interface Summary {
  node: SummaryNode;
  pods: SummaryPod[];
}

/** SummaryNode is stats/v1alpha1 NodeStats. */
export interface SummaryNode {
  nodeName: string;
  startTime: string;
  cpu?: { time: string; usageNanoCores?: number; usageCoreNanoSeconds?: number };
  memory?: { time: string; availableBytes: number; usageBytes: number; workingSetBytes: number };
  fs?: { time: string; availableBytes: number; capacityBytes: number; usedBytes: number; inodesFree: number; inodes: number; inodesUsed: number };
  rlimit?: { time: string; maxpid: number; curproc: number };
  swap?: { time: string; swapAvailableBytes: number; swapUsageBytes: number };
}

/** SummaryPod is stats/v1alpha1 PodStats. */
export interface SummaryPod {
  podRef: { name: string; namespace: string; uid: string };
  startTime: string;
  containers: { name: string; startTime: string }[];
}

/** runningContainers lists the pod's running containers (sidecars among the init containers too) with their start times. */
function runningContainers(statuses: readonly ContainerStatus[]): SummaryPod["containers"] {
  return statuses.flatMap((s) => (s.state?.running?.startedAt !== undefined ? [{ name: s.name, startTime: s.state.running.startedAt }] : []));
}

/**
 * statsSummary builds the Summary of `nodeName` from a machine sample and the node's pods.
 * The node's startTime is the machine's boot time, as cadvisor gives its root container's.
 */
export function statsSummary(nodeName: string, sample: MachineSample, pods: readonly Pod[]): Summary {
  const time = rfc3339(sample.time);
  const node: SummaryNode = { nodeName, startTime: rfc3339(sample.bootTime ?? 0) };
  if (sample.usageCoreNanoSeconds !== undefined) {
    node.cpu = { time, usageCoreNanoSeconds: Number(sample.usageCoreNanoSeconds), ...(sample.usageNanoCores !== undefined ? { usageNanoCores: Number(sample.usageNanoCores) } : {}) };
  }
  const m = sample.memory;
  if (m !== undefined) {
    // summary provider: a node's available memory is its capacity less its working set.
    node.memory = { time, availableBytes: Math.max(0, m.totalBytes - m.workingSetBytes), usageBytes: m.usageBytes, workingSetBytes: m.workingSetBytes };
    if (m.swapTotalBytes > 0) node.swap = { time, swapAvailableBytes: m.swapTotalBytes - m.swapUsageBytes, swapUsageBytes: m.swapUsageBytes };
  }
  const fs = sample.fs;
  if (fs !== undefined) node.fs = { time, availableBytes: fs.availableBytes, capacityBytes: fs.capacityBytes, usedBytes: fs.usedBytes, inodesFree: fs.inodesFree, inodes: fs.inodes, inodesUsed: fs.inodes - fs.inodesFree };
  if (sample.rlimit !== undefined) node.rlimit = { time, ...sample.rlimit };
  const summaryPods = pods
    .filter((p) => p.status?.startTime !== undefined)
    .map((p) => ({
      podRef: { name: p.metadata.name ?? "", namespace: p.metadata.namespace ?? "", uid: p.metadata.uid ?? "" },
      startTime: p.status!.startTime!,
      containers: runningContainers([...(p.status?.initContainerStatuses ?? []), ...(p.status?.containerStatuses ?? [])]),
    }));
  return { node, pods: summaryPods };
}
