// The agent's own metrics, under the kubelet's names where the kubelet has one
// (kubelet_running_pods, kubelet_running_containers, kubelet_pod_worker_duration_seconds,
// kubelet_pod_start_duration_seconds, kubelet_terminated_containers_total), and what the kubelet does not measure: time-to-ready and
// the CPU each exec probe's command costs.
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { PodStatus } from "../api/types.js";
import type { ContainerType } from "../status/status-manager.js";

/** The kubelet's buckets for pod start durations (pkg/kubelet/metrics PodStartDuration), in seconds. */
const POD_START_BUCKETS = [0.5, 1, 2, 3, 4, 5, 6, 8, 10, 20, 30, 45, 60, 120, 180, 240, 300, 360, 480, 600, 900, 1200, 1800, 2700, 3600];

/** Startup is what is still to be observed of one pod's start. */
interface Startup {
  firstSeenMs: number;
  running: boolean;
  ready: boolean;
}

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
    labelNames: ["operation_type"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  /** Pods synced at least once: their next syncs are "sync", the first "create". */
  private readonly synced = new Set<string>();

  private readonly podStartDuration = new Histogram({
    name: "kubelet_pod_start_duration_seconds",
    help: "Duration in seconds from kubelet seeing a pod for the first time to the pod starting to run",
    buckets: POD_START_BUCKETS,
    registers: [this.registry],
  });
  private readonly podReadyDuration = new Histogram({
    name: "probelet_pod_ready_duration_seconds",
    help: "Duration in seconds from the agent seeing a pod for the first time to the pod's first Ready condition",
    buckets: POD_START_BUCKETS,
    registers: [this.registry],
  });
  private readonly execProbeCpu = new Histogram({
    name: "probelet_exec_probe_cpu_seconds",
    help: "CPU (user + system) in seconds used by the command of one exec probe, where the runtime can measure it (process runtime with the spawner helper)",
    labelNames: ["probe_type"],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [this.registry],
  });
  private readonly startups = new Map<string, Startup>();
  private readonly terminatedContainers = new Counter({
    name: "kubelet_terminated_containers_total",
    help: "Cumulative number of container terminations.",
    labelNames: ["container_type", "exit_code", "reason"],
    registers: [this.registry],
  });

  /**
   * containerTerminated counts one container seen Terminated for the first time in a stored status
   * (kubelet metrics.go TerminatedContainersTotal, incremented by the status manager's
   * updateStatusInternal since 1.36).
   */
  containerTerminated(containerType: ContainerType, exitCode: number, reason: string): void {
    this.terminatedContainers.inc({ container_type: containerType, exit_code: String(exitCode), reason });
  }

  /** observeExecProbeCpu records one exec probe command's CPU; `probeType` is the kubelet's label value (Liveness, …). */
  observeExecProbeCpu(probeType: string, cpuSeconds: number): void {
    this.execProbeCpu.observe({ probe_type: probeType }, cpuSeconds);
  }

  /**
   * podSeen starts timing a pod's start. A pod that a previous agent already saw running or ready
   * (`restored`) is not timed again for that: the kubelet too only observes a Pending → Running
   * transition of the status it has.
   */
  podSeen(uid: string, firstSeenMs: number, restored: PodStatus | undefined): void {
    this.startups.set(uid, { firstSeenMs, running: restored?.phase === "Running", ready: restored !== undefined && isReady(restored) });
  }

  /** observeStartup records the first Running phase and the first Ready condition of a pod. */
  observeStartup(uid: string, status: PodStatus, nowMs: number): void {
    const startup = this.startups.get(uid);
    if (!startup) return;
    // kubelet SyncPod: observed when the phase goes from Pending to Running.
    if (!startup.running && status.phase === "Running") {
      startup.running = true;
      this.podStartDuration.observe((nowMs - startup.firstSeenMs) / 1000);
    }
    if (!startup.ready && isReady(status)) {
      startup.ready = true;
      this.podReadyDuration.observe((nowMs - startup.firstSeenMs) / 1000);
    }
    if (startup.running && startup.ready) this.startups.delete(uid);
  }

  /**
   * timeSync measures one sync of a pod, labelled with the kubelet's SyncPodType (kubelet
   * metrics.go PodWorkerDuration, observed per update type by pod_workers.go podWorkerLoop): the
   * pod's first sync is "create", every later one "sync". "update" (a spec change applied in
   * place) never occurs: a changed manifest replaces its pod, which is a new pod.
   */
  async timeSync<T>(uid: string, run: () => Promise<T>): Promise<T> {
    const end = this.syncDuration.startTimer({ operation_type: this.synced.has(uid) ? "sync" : "create" });
    try {
      return await run();
    } finally {
      end();
      this.synced.add(uid);
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

  /** forgetPod removes a pod's series and what was left to time of its start. */
  forgetPod(uid: string, namespace: string, pod: string, containers: readonly string[]): void {
    this.startups.delete(uid);
    this.synced.delete(uid);
    for (const container of containers) this.restarts.remove({ namespace, pod, container });
  }
}

function isReady(status: PodStatus): boolean {
  return status.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
}
