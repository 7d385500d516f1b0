// Raw CRI pods for the baseline: the same request shapes probelet's CriRuntime sends for a
// hostNetwork busybox pod (explicit namespaces network NODE / pid CONTAINER / ipc POD, a pod
// cgroup <prefix>/pod<uid>, a log directory), made with RawCri calls only. The kubelet's
// minimum to start a pod is RunPodSandbox, CreateContainer, StartContainer (kuberuntime
// SyncPod); that is what startRawPod does and times.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { isNotFound, type RawCri, type RawMessage } from "./raw-cri.js";

/** BUSYBOX_IMAGE is scripts/containerd.sh's busybox image (it holds /etc/probelet-image). */
export const BUSYBOX_IMAGE = "localhost/probelet/busybox:1";

/** SLEEPER is a PID-1 shell that exits 0 at once on SIGTERM (a bare `sleep` as PID 1 ignores it). */
export const SLEEPER = "trap 'exit 0' TERM; while :; do sleep 1 & wait $!; done";

/** RawPodSpec names one raw pod. */
export interface RawPodSpec {
  uid: string;
  name: string;
  /** Parent of the pod cgroup (scripts/containerd.sh's PROBELET_CRI_CGROUP_PARENT). */
  cgroupPrefix: string;
  /** Root of the pods' log directories. */
  logRoot: string;
  /** A label every bench sandbox carries, so teardown can find leftovers. */
  labels: Record<string, string>;
}

/** RawPod is a started raw pod and how long each step took (ms). */
export interface RawPod {
  sandboxId: string;
  containerId: string;
  timings: { runPodSandbox: number; createContainer: number; startContainer: number; total: number };
}

const NAMESPACES = { network: "NODE", pid: "CONTAINER", ipc: "POD" };

/** rawSandboxConfig is the PodSandboxConfig of a hostNetwork pod. */
export function rawSandboxConfig(spec: RawPodSpec): RawMessage {
  return {
    metadata: { name: spec.name, uid: spec.uid, namespace: "bench", attempt: 0 },
    hostname: "",
    log_directory: join(spec.logRoot, spec.uid),
    labels: { ...spec.labels },
    annotations: {},
    linux: { cgroup_parent: `${spec.cgroupPrefix}/pod${spec.uid}`, security_context: { namespace_options: NAMESPACES } },
  };
}

/** rawContainerConfig is the ContainerConfig of the pod's one busybox container running SLEEPER. */
export function rawContainerConfig(name: string): RawMessage {
  return {
    metadata: { name, attempt: 0 },
    image: { image: BUSYBOX_IMAGE },
    command: ["sh", "-c", SLEEPER],
    args: [],
    working_dir: "",
    envs: [],
    labels: {},
    annotations: {},
    log_path: `${name}/0.log`,
    linux: { security_context: { namespace_options: NAMESPACES } },
  };
}

/** startRawPod runs RunPodSandbox, CreateContainer and StartContainer in sequence and times each. */
export async function startRawPod(cri: RawCri, spec: RawPodSpec): Promise<RawPod> {
  const sandboxConfig = rawSandboxConfig(spec);
  // The log directory must exist; probelet makes it too, before RunPodSandbox (not timed here).
  await mkdir(sandboxConfig["log_directory"] as string, { recursive: true });
  const t0 = performance.now();
  const { pod_sandbox_id: sandboxId } = (await cri.call("RunPodSandbox", { config: sandboxConfig })) as { pod_sandbox_id: string };
  const t1 = performance.now();
  try {
    const created = (await cri.call("CreateContainer", { pod_sandbox_id: sandboxId, config: rawContainerConfig("main"), sandbox_config: sandboxConfig })) as { container_id: string };
    const t2 = performance.now();
    await cri.call("StartContainer", { container_id: created.container_id });
    const t3 = performance.now();
    return { sandboxId, containerId: created.container_id, timings: { runPodSandbox: t1 - t0, createContainer: t2 - t1, startContainer: t3 - t2, total: t3 - t0 } };
  } catch (err) {
    await removeRawSandbox(cri, sandboxId);
    throw err;
  }
}

/** removeRawSandbox stops and removes a sandbox with its containers; unknown IDs are fine. */
export async function removeRawSandbox(cri: RawCri, sandboxId: string): Promise<void> {
  await cri.call("StopPodSandbox", { pod_sandbox_id: sandboxId }).catch((err: unknown) => {
    if (!isNotFound(err)) throw err;
  });
  await cri.call("RemovePodSandbox", { pod_sandbox_id: sandboxId }).catch((err: unknown) => {
    if (!isNotFound(err)) throw err;
  });
}

/** removeLabelledSandboxes removes every sandbox carrying `key=value`; returns how many it removed. */
export async function removeLabelledSandboxes(cri: RawCri, key: string, value: string): Promise<number> {
  const { items } = (await cri.call("ListPodSandbox", { filter: { label_selector: { [key]: value } } })) as { items: { id: string }[] };
  for (const item of items) await removeRawSandbox(cri, item.id);
  return items.length;
}
