// Which running container an exec goes into, with the API server's and the kubelet's refusals
// (pod strategy ResourceLocation / validateContainer for the pod and container name, the
// completed-pod check of the exec REST handler, kubelet GetExec's "container not found").
import type { Pod } from "../api/types.js";
import { completedPod, containerNameRequired, containerNotRunning, containerNotValid, podNotFound, type ExecStatus } from "../apiserver/exec/exec-status.js";
import type { ExecContainer } from "../apiserver/exec/handle-exec.js";
import type { Runtime } from "../runtime/runtime.js";

/** execContainerOf resolves the container of a stored pod, or the Status that refuses the exec. */
export function execContainerOf(pod: Pod | undefined, name: string, container: string | undefined, runtime: Runtime): ExecContainer | ExecStatus {
  if (pod === undefined) return podNotFound(name);
  const names = [...pod.spec.containers, ...(pod.spec.initContainers ?? []), ...(pod.spec.ephemeralContainers ?? [])].map((c) => c.name);
  if (container === undefined && pod.spec.containers.length !== 1) return containerNameRequired(name, names);
  const wanted = container ?? pod.spec.containers[0]?.name ?? "";
  if (!names.includes(wanted)) return containerNotValid(wanted, name);
  const phase = pod.status?.phase;
  if (phase === "Succeeded" || phase === "Failed") return completedPod(phase);
  const status = [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.ephemeralContainerStatuses ?? [])].find((s) => s.name === wanted);
  const id = status?.state?.running !== undefined ? status.containerID : undefined;
  if (id === undefined || id === "") return containerNotRunning(wanted);
  const prefix = `${runtime.type}://`;
  return { runtime, containerId: id.startsWith(prefix) ? id.slice(prefix.length) : id };
}
