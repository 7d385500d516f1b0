// The agent's own metrics, under the kubelet's names where the kubelet has one
// (kubelet_running_pods, kubelet_running_containers, kubelet_pod_worker_duration_seconds).
import { Gauge, Histogram, Registry } from "prom-client";
import type { PodStatus } from "../api/types.js";

/** AgentMetrics owns the agent's registry. */
export class AgentMetrics {
  readonly registry = new Registry();
  private readonly runningPods = new Gauge({ name: "kubelet_running_pods", help: "Number of pods that have a running pod sandbox", registers: [this.registry] });
  private readonly runningContainers = new Gauge({
    name: "kubelet_running_containers",
    help: "Number of containers currently running",
    labelNames: ["container_state"],
    registers: [this.registry],
  });
  private readonly restarts = new Gauge({
    name: "probelet_container_restarts",
    help: "Restart count of each container, as in its status",
    labelNames: ["namespace", "pod", "container"],
    registers: [this.registry],
  });
  private readonly syncDuration = new Histogram({
    name: "kubelet_pod_worker_duration_seconds",
    help: "Duration in seconds to sync a single pod. Broken down by operation type: create, update, or sync",
    labelNames: ["operation"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  /** timeSync measures one pod worker operation. */
  async timeSync<T>(operation: string, run: () => Promise<T>): Promise<T> {
    const end = this.syncDuration.startTimer({ operation });
    try {
      return await run();
    } finally {
      end();
    }
  }

  /** observePods refreshes the gauges from the current pod statuses. */
  observePods(statuses: readonly (PodStatus | undefined)[]): void {
    let pods = 0;
    const byState: Record<string, number> = { running: 0, exited: 0, created: 0, unknown: 0 };
    for (const s of statuses) {
      if (!s) continue;
      if (s.phase === "Running" || s.phase === "Pending") pods++;
      for (const c of [...(s.initContainerStatuses ?? []), ...(s.containerStatuses ?? [])]) {
        const state = c.state?.running ? "running" : c.state?.terminated ? "exited" : c.containerID ? "created" : "unknown";
        byState[state] = (byState[state] ?? 0) + 1;
      }
    }
    this.runningPods.set(pods);
    for (const [state, n] of Object.entries(byState)) this.runningContainers.set({ container_state: state }, n);
  }

  /** observeRestarts sets the restart gauge of one pod's containers. */
  observeRestarts(namespace: string, pod: string, status: PodStatus): void {
    for (const c of [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])]) {
      this.restarts.set({ namespace, pod, container: c.name }, c.restartCount);
    }
  }

  /** forgetPod removes a pod's series. */
  forgetPod(namespace: string, pod: string, containers: readonly string[]): void {
    for (const container of containers) this.restarts.remove({ namespace, pod, container });
  }
}
