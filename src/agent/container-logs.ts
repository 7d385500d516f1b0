// Which container instance's log a `kubectl logs` request reads (kubelet kubelet_pods.go
// GetContainerLogs, validateContainerLogStatus): the named container, or the pod's only one; its
// running or last instance, or with --previous the one before; the kubelet's errors when there is
// none. kuberuntime reads the instance's files (src/kuberuntime/container-log-stream.ts).
import { allContainers } from "../api/pod-rules.js";
import type { ContainerStatus, PodStatus } from "../api/types.js";
import type { ContainerInfo, Runtime } from "../runtime/runtime.js";
import type { Clock } from "../util/clock.js";
import { ApiError, type LogRequest } from "../apiserver/endpoints/host-interface.js";
import type { PodRecord } from "../kuberuntime/pod-record.js";
import { readLogs } from "../kuberuntime/container-log-stream.js";

/**
 * pickInstance finds the container instance a log request names. The container and the instance
 * come from the pod's status as the kubelet picks them (validateContainerLogStatus): --previous
 * reads lastState's container, otherwise the running or terminated one, else lastState's; a
 * container in CrashLoopBackOff therefore shows its newest dead instance either way.
 */
async function pickInstance(runtime: Runtime, record: PodRecord, request: LogRequest, status: PodStatus | undefined): Promise<ContainerInfo> {
  const pod = record.pod;
  const names = [...allContainers(pod), ...(pod.spec.ephemeralContainers ?? [])].map((c) => c.name);
  let container = request.container;
  if (container === undefined) {
    if (pod.spec.containers.length !== 1) {
      throw new ApiError("BadRequest", `a container name must be specified for pod ${pod.metadata.name ?? ""}, choose one of: [${pod.spec.containers.map((c) => c.name).join(" ")}]`);
    }
    container = pod.spec.containers[0]!.name;
  }
  if (!names.includes(container)) throw new ApiError("BadRequest", `container ${container} is not valid for pod ${pod.metadata.name ?? ""}`);
  const podName = pod.metadata.name ?? "";
  const cs = [...(status?.initContainerStatuses ?? []), ...(status?.containerStatuses ?? []), ...(status?.ephemeralContainerStatuses ?? [])].find((s) => s.name === container);
  const fullId = logContainerId(cs, request.previous === true, container, podName);
  const id = fullId.slice(fullId.indexOf("://") + 3);
  const infos = record.sandboxId ? await runtime.listContainers({ podSandboxId: record.sandboxId }) : [];
  const chosen = infos.find((i) => i.id === id);
  // The status named a container the runtime no longer has (removed with its sandbox, or collected).
  if (!chosen) throw new ApiError("BadRequest", `container "${container}" in pod "${podName}" is not available`);
  return chosen;
}

/** logContainerId is the kubelet's validateContainerLogStatus: which container's log, or why there is none. */
function logContainerId(cs: ContainerStatus | undefined, previous: boolean, container: string, podName: string): string {
  const fail = (why: string): never => {
    throw new ApiError("BadRequest", `container "${container}" in pod "${podName}" ${why}`);
  };
  if (!cs) return fail("is not available");
  const last = cs.lastState?.terminated;
  if (previous) {
    if (!last?.containerID) throw new ApiError("BadRequest", `previous terminated container "${container}" in pod "${podName}" not found`);
    return last.containerID;
  }
  const { running, terminated, waiting } = cs.state ?? {};
  if (running) return cs.containerID ?? fail("is waiting to start - no logs yet");
  // A terminated state without an ID means the next container never started: read the last one.
  if (terminated) return terminated.containerID || last?.containerID || fail("is terminated");
  if (last) return last.containerID || fail("is terminated");
  if (waiting) {
    if (waiting.reason === "ErrImagePull") return fail("is waiting to start: image can't be pulled");
    if (waiting.reason === "ImagePullBackOff") return fail("is waiting to start: trying and failing to pull image");
    return fail(`is waiting to start: ${waiting.reason ?? ""}`);
  }
  return fail("is waiting to start - no logs yet");
}

/**
 * readContainerLog streams the log lines of the container instance a request names (each ending
 * in "\n"); throws ApiError BadRequest when there is none, before anything is read.
 */
export async function* readContainerLog(runtime: Runtime, record: PodRecord, request: LogRequest, status: PodStatus | undefined, clock: Clock): AsyncGenerator<string> {
  const info = await pickInstance(runtime, record, request, status);
  yield* readLogs(runtime, info, request, clock);
}
