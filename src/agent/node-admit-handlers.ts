// The kubelet's pod admit handlers that decide whether this node can take a pod at all, run on
// every pod the API server binds to the node before it is started: the OS checks of
// pkg/kubelet/lifecycle/predicate.go (rejectPodAdmissionBasedOnOSSelector and
// rejectPodAdmissionBasedOnOSField) and the sysctl allowlist of pkg/kubelet/sysctl
// (allowlist.go patternAllowlist.Admit, safe_sysctls.go: only the safe sysctls, as a kubelet
// without --allowed-unsafe-sysctls). A rejected pod fails with the handler's reason and message
// (kubelet rejectPod).
import { release } from "node:os";
import type { Pod } from "../api/types.js";
import { podSysctls } from "../api/pod-sysctls.js";

/** AdmitRejection is why the node refuses a pod: the kubelet's reason and message. */
export interface AdmitRejection {
  reason: string;
  message: string;
}

const NODE_OS = "linux";
const LABEL_OS = "kubernetes.io/os";

type Namespace = "ipc" | "net";

/** The safe sysctls (safe_sysctls.go), each with its namespace and the kernel it needs namespaced. */
const SAFE_SYSCTLS: readonly { name: string; ns: Namespace; kernel?: string }[] = [
  { name: "kernel.shm_rmid_forced", ns: "ipc" },
  { name: "net.ipv4.ip_local_port_range", ns: "net" },
  { name: "net.ipv4.tcp_syncookies", ns: "net" },
  { name: "net.ipv4.ping_group_range", ns: "net" },
  { name: "net.ipv4.ip_unprivileged_port_start", ns: "net" },
  { name: "net.ipv4.ip_local_reserved_ports", ns: "net", kernel: "3.16" },
  { name: "net.ipv4.tcp_keepalive_time", ns: "net", kernel: "4.5" },
  { name: "net.ipv4.tcp_fin_timeout", ns: "net", kernel: "4.6" },
  { name: "net.ipv4.tcp_keepalive_intvl", ns: "net", kernel: "4.5" },
  { name: "net.ipv4.tcp_keepalive_probes", ns: "net", kernel: "4.5" },
  { name: "net.ipv4.tcp_rmem", ns: "net", kernel: "4.15" },
  { name: "net.ipv4.tcp_wmem", ns: "net", kernel: "4.15" },
  { name: "net.ipv4.tcp_slow_start_after_idle", ns: "net", kernel: "4.6" },
  { name: "net.ipv4.tcp_notsent_lowat", ns: "net", kernel: "3.12" },
];

function kernelAtLeast(kernel: string, wanted: string): boolean {
  const have = /^(\d+)\.(\d+)/.exec(kernel);
  const want = /^(\d+)\.(\d+)/.exec(wanted)!;
  if (!have) return false;
  return Number(have[1]) * 1000 + Number(have[2]) >= Number(want[1]) * 1000 + Number(want[2]);
}

// patternAllowlist.validateSysctl with the safe list: refused when not listed, or when its
// namespace is the host's.
function sysctlRefusal(name: string, pod: Pod, kernel: string): string | undefined {
  const safe = SAFE_SYSCTLS.find((s) => s.name === name && (s.kernel === undefined || kernelAtLeast(kernel, s.kernel)));
  if (safe === undefined) return `"${name}" not allowlisted`;
  const spec = pod.spec as { hostIPC?: boolean };
  if (safe.ns === "ipc" && spec.hostIPC === true) return `"${name}" not allowed with host ipc enabled`;
  if (safe.ns === "net" && pod.spec.hostNetwork === true) return `"${name}" not allowed with host net enabled`;
  return undefined;
}

/** admitOnNode runs the handlers in the kubelet's order; the first refusal wins. */
export function admitOnNode(pod: Pod, kernel = release()): AdmitRejection | undefined {
  for (const sysctl of podSysctls(pod)) {
    const refusal = sysctlRefusal(sysctl.name, pod, kernel);
    if (refusal !== undefined) return { reason: "SysctlForbidden", message: `forbidden sysctl: ${refusal}` };
  }
  // The OS selector is read from the pod's labels, as predicate.go reads it.
  const osLabel = pod.metadata.labels?.[LABEL_OS];
  if (osLabel !== undefined && osLabel !== NODE_OS) {
    return { reason: "PodOSSelectorNodeLabelDoesNotMatch", message: "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label" };
  }
  const os = (pod.spec as { os?: { name?: unknown } }).os;
  if (os !== undefined && os !== null && os.name !== NODE_OS) {
    return { reason: "PodOSNotSupported", message: "Failed to admit pod as the OS field doesn't match node OS" };
  }
  return undefined;
}
