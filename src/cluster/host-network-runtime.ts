// Host networking in cluster mode. Process pods without a pod network of their own share the
// host's network namespace (and report the loopback address), CRI host-network sandboxes report
// no IP; in a cluster such pods get the node's address, as the kubelet gives hostNetwork pods the
// node IP (kubelet_pods.go generateAPIPodStatus), because the API server's endpoint controllers
// refuse loopback addresses. Pods with their own network keep their IP.
import type { PodSandboxStatus, Runtime } from "../runtime/runtime.js";

/** LOOPBACK_POD_IP is what the process runtime reports for its host-network sandboxes. */
const LOOPBACK_POD_IP = "127.0.0.1";

/**
 * withNodePodIP returns a runtime that reports `nodeIP` wherever the wrapped runtime reports the
 * loopback pod IP or none; every other call goes to the wrapped runtime unchanged.
 */
export function withNodePodIP<R extends Runtime>(runtime: R, nodeIP: string): R {
  const fix = (s: PodSandboxStatus): PodSandboxStatus => (s.podIP === LOOPBACK_POD_IP || s.podIP === "" ? { ...s, podIP: nodeIP } : s);
  return new Proxy(runtime, {
    get(target, property, receiver) {
      if (property === "podSandboxStatus") return async (id: string) => fix(await target.podSandboxStatus(id));
      if (property === "listPodSandboxes") return async (...args: Parameters<Runtime["listPodSandboxes"]>) => (await target.listPodSandboxes(...args)).map(fix);
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
