// ProbeManager: the registry of probe workers, one per (pod UID, container, probe type), and
// the code that folds cached results into a pod status (kubelet pkg/kubelet/prober/prober_manager.go).
import { isRestartableInitContainer, probeOf, sidecarsAndContainers } from "../api/pod-rules.js";
import type { Container, ContainerStatus, Pod, PodStatus } from "../api/types.js";
import type { CommandRunner } from "../probe/command-runner.js";
import { probeEngineInfo } from "../probe/probe-engine.js";
import { systemClock, type Clock } from "../util/clock.js";
import { silentLogger, type Logger } from "../util/logger.js";
import { noopEventRecorder, type EventRecorder } from "./event-recorder.js";
import type { ProberMetrics } from "./metrics.js";
import { Prober, type ProberOptions } from "./prober.js";
import { PROBE_TYPES, type ProbeType } from "./probe-type.js";
import { ResultsManager } from "./results/results-manager.js";
import { StandingWorkers } from "./standing-workers.js";
import { TickScheduler } from "./tick-scheduler.js";
import { Worker, type PodStatusProvider, type ProbeRecord, type WorkerContext } from "./worker.js";
import { DEFAULT_WORKER_FEATURES, survivedManagerRestart, type WorkerFeatures } from "./worker-policy.js";

/** ProbeManagerOptions configure a ProbeManager. */
export interface ProbeManagerOptions {
  /**
   * Source of pod statuses for the workers: `podIP`, and per container (by name) `containerID`,
   * `state.running.startedAt` and `started`. Liveness and readiness probes wait for
   * `started: true`, as the kubelet's (updatePodStatus sets it; a status without it gets a
   * process warning, PROBELET_STARTED_MISSING). docs/library.md has a complete example.
   */
  statusProvider: PodStatusProvider;
  /** Runs exec probes; required unless `prober` is given. */
  runner?: CommandRunner;
  recorder?: EventRecorder;
  /** A ready-made prober (tests); otherwise one is built from runner/recorder/proberOptions. */
  prober?: Prober;
  proberOptions?: Omit<ProberOptions, "runner" | "recorder" | "logger">;
  clock?: Clock;
  logger?: Logger;
  metrics?: ProberMetrics;
  features?: Partial<WorkerFeatures>;
  /** Random source for start jitter (tests pass a constant). */
  random?: () => number;
  livenessManager?: ResultsManager;
  readinessManager?: ResultsManager;
  startupManager?: ResultsManager;
  /**
   * How late (ms) a tcpSocket or httpGet worker's tick may run so that ticks due close together
   * share one wake-up of the event loop (tick-scheduler.ts); exec and gRPC ticks always run at
   * their due time. Default: DEFAULT_TICK_COALESCE_MS with the system clock, 0 (every tick
   * exactly at its due time) with any other clock (tests' fake clocks).
   */
  tickCoalesceMs?: number;
  /** Observes every probe that ran (probe history, `probelet probe --watch`). */
  onProbe?: (worker: Worker, record: ProbeRecord) => void;
  /**
   * Whether a tcpSocket worker in a steady Success may hand its ticker to the native engine
   * until its pod's status changes (standing-workers.ts; default true). It needs the system
   * clock, a prober the manager builds and a status provider with watchPodStatuses; records of
   * standing probes reach onProbe and the metrics in batches, up to 100 ms late.
   */
  standingProbes?: boolean;
}

/**
 * DEFAULT_TICK_COALESCE_MS: tcpSocket and httpGet ticks run up to 4 ms late so that about four
 * of 1,000 such workers at a 1 s period share a wake-up; the tick grid itself (period,
 * late-tick dropping) is unchanged.
 */
export const DEFAULT_TICK_COALESCE_MS = 4;

/** ProbeKey identifies a worker. */
export interface ProbeKey {
  podUid: string;
  containerName: string;
  probeType: ProbeType;
}

/** ProbeManager creates, tracks and stops probe workers and updates pod statuses from results. */
export class ProbeManager {
  /** The liveness results cache; the agent reacts to its Failure updates. */
  readonly livenessManager: ResultsManager;
  /** The readiness results cache. */
  readonly readinessManager: ResultsManager;
  /** The startup results cache. */
  readonly startupManager: ResultsManager;
  /** When this manager was created (ms since epoch): start jitter and restart preservation key off it. */
  readonly start: number;
  readonly prober: Prober;

  /** Invariant: holds exactly the workers that have been started and have not yet exited. */
  private readonly workers = new Map<string, Worker>();
  /** What every worker of a probe type shares (no object or closure of its own per worker). */
  private readonly contexts = new Map<ProbeType, WorkerContext>();
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly features: WorkerFeatures;
  /** One timer for every worker's waits (instead of one per worker). */
  private readonly scheduler: TickScheduler;
  /** The close() calls still waiting: the workers each waits for, and its resolver. */
  private closes: { remaining: Set<Worker>; resolve: () => void }[] = [];
  /** The workers whose probe stands on the native engine; undefined when none may. */
  private readonly standing: StandingWorkers | undefined;
  private readonly unwatchStatuses: (() => void) | undefined;
  /** Set once the missing `started` warning was given. */
  private warnedStartedMissing = false;

  constructor(private readonly options: ProbeManagerOptions) {
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger;
    this.features = { ...DEFAULT_WORKER_FEATURES, ...options.features };
    this.livenessManager = options.livenessManager ?? new ResultsManager();
    this.readinessManager = options.readinessManager ?? new ResultsManager();
    this.startupManager = options.startupManager ?? new ResultsManager();
    this.start = this.clock.now();
    const coalesceMs = options.tickCoalesceMs ?? (this.clock === systemClock ? DEFAULT_TICK_COALESCE_MS : 0);
    this.scheduler = new TickScheduler(this.clock, coalesceMs);
    const provider = options.statusProvider;
    if (options.standingProbes !== false && this.clock === systemClock && !options.prober && provider.watchPodStatuses !== undefined) {
      const standing = (this.standing = new StandingWorkers(coalesceMs));
      this.unwatchStatuses = provider.watchPodStatuses((uid) => standing.podStatusChanged(uid));
    }
    const engine = probeEngineInfo();
    this.logger.info("Probe I/O engine selected", engine.reason === "" ? { engine: engine.name } : { engine: engine.name, reason: engine.reason });
    // Through ProberMetrics, so that a manager without metrics never loads prom-client.
    options.metrics?.recordEngine(engine);
    if (options.prober) {
      this.prober = options.prober;
    } else {
      if (!options.runner) throw new TypeError("ProbeManager needs a runner or a prober");
      this.prober = new Prober({
        ...options.proberOptions,
        runner: options.runner,
        recorder: options.recorder ?? noopEventRecorder,
        logger: this.logger.child("prober"),
      });
    }
  }

  /** resultsFor returns the results cache of a probe type. */
  resultsFor(probeType: ProbeType): ResultsManager {
    switch (probeType) {
      case "liveness":
        return this.livenessManager;
      case "readiness":
        return this.readinessManager;
      case "startup":
        return this.startupManager;
    }
  }

  /**
   * addPod starts a worker for every probe of every regular container and sidecar that has none
   * yet. Idempotent; existing workers keep their original spec (kubelet: no spec updates), and an
   * existing worker does not stop the others from being created (TestAddPodContinuesAfterExistingWorker).
   */
  addPod(pod: Pod): void {
    for (const container of sidecarsAndContainers(pod.spec)) {
      for (const probeType of PROBE_TYPES) {
        if (probeOf(container, probeType)) this.startWorker(pod, container, probeType);
      }
    }
  }

  /**
   * startWorker starts a worker for one probe of one container unless one exists.
   * @internal Used by addPod; tests call it directly for containers addPod skips, as the
   * kubelet's tests insert workers into the map.
   */
  startWorker(pod: Pod, container: Container, probeType: ProbeType): void {
    const key = keyString({ podUid: pod.metadata.uid ?? "", containerName: container.name, probeType });
    if (this.workers.has(key)) return;
    const series = this.options.metrics?.series({
      probeType,
      container: container.name,
      pod: pod.metadata.name ?? "",
      namespace: pod.metadata.namespace ?? "",
      podUid: pod.metadata.uid ?? "",
    });
    const worker = new Worker(this.contextFor(probeType), probeType, pod, container, series);
    this.workers.set(key, worker);
    worker.start();
  }

  /** contextFor returns the context shared by every worker of a probe type, made on first use. */
  private contextFor(probeType: ProbeType): WorkerContext {
    let ctx = this.contexts.get(probeType);
    if (ctx === undefined) {
      const { onProbe } = this.options;
      ctx = {
        clock: this.clock,
        prober: this.prober,
        statusProvider: this.options.statusProvider,
        results: this.resultsFor(probeType),
        logger: this.logger.child("worker"),
        managerStart: this.start,
        random: this.options.random ?? Math.random,
        features: this.features,
        scheduler: this.scheduler,
        ...(onProbe ? { onProbe } : {}),
        ...(this.standing ? { standing: this.standing } : {}),
        onExit: (w) => this.workerExited(w),
        startedMissing: (w) => this.warnStartedMissing(w),
      };
      this.contexts.set(probeType, ctx);
    }
    return ctx;
  }

  /**
   * warnStartedMissing says once per manager, as a process warning (a library user may not see a
   * log), that a running container's status lacks `started`: liveness and readiness probes wait
   * for `started: true`, as the kubelet's do. The kubelet's status sets it (updatePodStatus here).
   */
  private warnStartedMissing(worker: Worker): void {
    if (this.warnedStartedMissing) return;
    this.warnedStartedMissing = true;
    const pod = `${worker.pod.metadata.namespace ?? "default"}/${worker.pod.metadata.name ?? ""}`;
    process.emitWarning(
      `ProbeManager: container "${worker.container.name}" of pod ${pod} is running but its status has no "started": its ${worker.probeType} probe waits until the status says started: true (the kubelet's rule; ProbeManager.updatePodStatus sets it, or set it yourself once a startup probe, if any, succeeded)`,
      { code: "PROBELET_STARTED_MISSING" },
    );
  }

  /** stopLivenessAndStartup stops liveness and startup workers (pod termination); readiness goes on. */
  stopLivenessAndStartup(pod: Pod): void {
    this.stopWorkers(pod, ["liveness", "startup"]);
  }

  /** removePod stops all of a pod's workers; they clean up their cache entries as they exit. */
  removePod(pod: Pod): void {
    this.stopWorkers(pod, PROBE_TYPES);
  }

  private stopWorkers(pod: Pod, types: readonly ProbeType[]): void {
    const uid = pod.metadata.uid ?? "";
    for (const container of sidecarsAndContainers(pod.spec)) {
      for (const probeType of types) {
        this.workers.get(keyString({ podUid: uid, containerName: container.name, probeType }))?.stop();
      }
    }
  }

  /** cleanupPods stops every worker whose pod UID is not in `desiredPodUids`. */
  cleanupPods(desiredPodUids: ReadonlySet<string>): void {
    for (const worker of this.workers.values()) {
      if (!desiredPodUids.has(worker.pod.metadata.uid ?? "")) worker.stop();
    }
  }

  /**
   * updatePodStatus writes `started` and `ready` into a freshly generated pod status from the
   * cached results and the workers that exist (kubelet UpdatePodStatus). `apiStatus` is the
   * status last published for the pod (before this agent started, if it restarted); it lets
   * containers that survived an agent restart keep their readiness (§I.1).
   */
  updatePodStatus(pod: Pod, podStatus: PodStatus, apiStatus?: PodStatus): void {
    const uid = pod.metadata.uid ?? "";
    for (const c of podStatus.containerStatuses ?? []) {
      const spec = pod.spec.containers.find((s) => s.name === c.name);
      this.updateContainerStatus(uid, c, spec, podStatus, apiStatus);
    }
    for (const c of podStatus.initContainerStatuses ?? []) {
      const spec = (pod.spec.initContainers ?? []).find((s) => s.name === c.name);
      if (spec && isRestartableInitContainer(spec)) {
        this.updateContainerStatus(uid, c, spec, podStatus, apiStatus);
        continue;
      }
      c.started = this.isContainerStarted(uid, c);
      // Plain init containers are ready once they exited successfully.
      if (c.state?.terminated?.exitCode === 0) c.ready = true;
    }
  }

  private updateContainerStatus(uid: string, c: ContainerStatus, spec: Container | undefined, podStatus: PodStatus, apiStatus: PodStatus | undefined): void {
    const started = this.isContainerStarted(uid, c);
    c.started = started;
    if (!started) return;
    c.ready = this.isContainerReady(uid, c, spec, podStatus, apiStatus);
  }

  private isContainerStarted(uid: string, c: ContainerStatus): boolean {
    if (!c.state?.running) return false;
    const result = this.startupManager.get(c.containerID ?? "");
    if (result !== undefined) return result === "Success";
    if (this.features.preserveStateOnRestart && c.started === true) return true;
    return !this.getWorker(uid, c.name, "startup");
  }

  private isContainerReady(uid: string, c: ContainerStatus, spec: Container | undefined, podStatus: PodStatus, apiStatus: PodStatus | undefined): boolean {
    if (!c.state?.running) return false;
    const result = this.readinessManager.get(c.containerID ?? "");
    if (result === "Success") return true;
    const worker = this.getWorker(uid, c.name, "readiness");
    if (worker && !worker.manualTrigger()) {
      this.logger.info("Failed to trigger a manual run", { probe: "Readiness" });
    }
    if (result === undefined && spec?.readinessProbe && survivedManagerRestart(c, this.start, this.features)) {
      // A container that was Ready before the agent restarted stays Ready until a probe says
      // otherwise, unless the pod was not Ready or the container was replaced meanwhile.
      const podReady = (apiStatus ?? podStatus).conditions?.find((x) => x.type === "Ready")?.status === "True";
      return podReady && canInheritProbeState(apiStatus, c.name, c.containerID ?? "");
    }
    return !worker; // no readiness probe → always ready
  }

  /** getWorker returns the worker for a key, if one is running. */
  getWorker(podUid: string, containerName: string, probeType: ProbeType): Worker | undefined {
    return this.workers.get(keyString({ podUid, containerName, probeType }));
  }

  /** standingCount is the number of workers whose probe stands on the native engine. */
  standingCount(): number {
    return this.standing?.size ?? 0;
  }

  /** workerCount is the number of live workers. */
  workerCount(): number {
    return this.workers.size;
  }

  /** workersOf lists the live workers of a pod. */
  workersOf(podUid: string): Worker[] {
    return [...this.workers.values()].filter((w) => w.pod.metadata.uid === podUid);
  }

  /**
   * close stops every worker and resolves when all of them have exited; workers started after
   * the call are not waited for. Idempotent. A worker stays in the map until it has exited, so
   * the call takes a set of the map's workers and waits on one promise for that set to drain; a
   * promise per worker raised the bench's peak RSS by 10 MB at 10,000 workers.
   */
  async close(): Promise<void> {
    this.standing?.close();
    this.unwatchStatuses?.();
    const remaining = new Set(this.workers.values());
    for (const worker of remaining) worker.stop();
    if (remaining.size === 0) return;
    await new Promise<void>((resolve) => this.closes.push({ remaining, resolve }));
  }

  /** workerExited removes an exited worker from the map and from every pending close. */
  private workerExited(w: Worker): void {
    const key = keyString({ podUid: w.pod.metadata.uid ?? "", containerName: w.container.name, probeType: w.probeType });
    // Only remove the map entry if it still points at this worker.
    if (this.workers.get(key) === w) this.workers.delete(key);
    let drained = false;
    for (const close of this.closes) {
      if (close.remaining.delete(w) && close.remaining.size === 0) {
        close.resolve();
        drained = true;
      }
    }
    if (drained) this.closes = this.closes.filter((close) => close.remaining.size > 0);
  }
}

/**
 * canInheritProbeState: a restarted agent may reuse the previous readiness of a container only
 * if the last published status names the same container instance (kubelet canInheritProbeState).
 */
export function canInheritProbeState(apiStatus: PodStatus | undefined, containerName: string, containerId: string): boolean {
  if (!apiStatus) return true;
  const previous = [...(apiStatus.containerStatuses ?? []), ...(apiStatus.initContainerStatuses ?? [])].find((s) => s.name === containerName);
  if (!previous) return true;
  const previousId = previous.containerID ?? "";
  if (previousId === "" || containerId === "") return true;
  return previousId === containerId;
}


/**
 * keyString joins a key's parts with NULs. join makes one flat string, where a template
 * literal of this length makes a chain of four cons strings that the map then keeps (≈ 110 B
 * more per worker).
 */
function keyString(key: ProbeKey): string {
  return [key.podUid, key.containerName, key.probeType].join("\u0000");
}
