// Agent: the node agent, shaped as the kubelet: the object store (the API server's part, handed
// in by the composer) owns pod specs, the agent owns their status. It runs the pods of its sources
// (manifests, and the store's pods bound to its node), merged into one stream of updates by its
// pod config (pod-config.ts), reconciles each through its pod worker, reacts to probe
// results as the kubelet's sync loop does (§G.1), writes pod status and events into the store,
// and removes a deleted API pod from the store once it has terminated. Runtime-agnostic: it
// talks to a Runtime only.
import { setMaxListeners } from "node:events";
import { hostname } from "node:os";
import { allContainers, isPodPhaseTerminal, probeOf, sidecarsAndContainers } from "../api/pod-rules.js";
import type { Pod } from "../api/types.js";
import { PODS } from "../apiserver/resources/pods.js";
import { deleteObject } from "../apiserver/rest/object-deletes.js";
import { rfc3339, type ObjectStore } from "../apiserver/storage/object-store.js";
import type { LocalApiServer } from "../apiserver/local-api-server.js";
import type { CloseMode } from "../probe/connection.js";
import { ProbeManager } from "../prober/manager.js";
import { ProberMetrics } from "../prober/metrics.js";
import { DEFAULT_HISTORY_WINDOW_MS, ProbeHistory, type HistoryQuery, type ProbeHistoryEntry, type ProbeHistoryRange, type ProbeHistorySegment } from "../prober/probe-history.js";
import { ProbeHistoryFiles } from "../prober/probe-history-file.js";
import { probeTypeLabel, type ProbeType } from "../prober/probe-type.js";
import type { Runtime } from "../runtime/runtime.js";
import { StatusManager } from "../status/status-manager.js";
import { IN_BACKGROUND, systemClock, type Clock } from "../util/clock.js";
import { silentLogger, type Logger } from "../util/logger.js";
import { ApiError, type AgentApi, type LogRequest } from "../apiserver/endpoints/host-interface.js";
import { API_SOURCE, watchApiPods } from "./store-pod-source.js";
import { SourcesReady } from "./sources-ready.js";
import { PodConfig, type PodUpdate } from "./pod-config.js";
import { isMirrorPod, staticPodUid } from "../api/mirror-pod.js";
import { StaticPodMirrors } from "./static-pod-mirrors.js";
import { fitsHostPorts, hostPortsOf, NODE_PORTS_MESSAGE, NODE_PORTS_REASON, PROBE_PORT_IN_USE, probePortsOfOthers } from "./node-ports.js";
import { podQOSClass } from "../status/qos.js";
import { ensureNamespace, removeStoredPod, writePodStatus } from "./pod-store-sync.js";
import { ApiPodReconciler } from "./api-pod-reconciler.js";
import { StoreView } from "./store-view.js";
import type { PodStatusSink } from "../status/pod-status-sink.js";
import { execContainerOf } from "./exec-target.js";
import { podNotFound, type ExecStatus } from "../apiserver/exec/exec-status.js";
import type { ExecContainer, PodSandboxTarget } from "../apiserver/exec/handle-exec.js";
import { fullIdRunner } from "./full-id-runner.js";
import { registerNode, reportRuntimeVersion } from "./node-registration.js";
import { syncLoopHealth } from "./sync-loop-health.js";
import { admitManifestPod, createApiPod, type AdmitResult } from "./pod-admission.js";
import { ManifestConfigObjects } from "./manifest-config-objects.js";
import type { ObjectRef } from "./manifest-objects.js";
import type { KubeObject } from "../apiserver/storage/object-store.js";
import { AgentMetrics } from "./agent-metrics.js";
import { Pleg } from "./pleg.js";
import { RestartBackoff, type BackoffOptions } from "../kuberuntime/crash-loop-backoff.js";
import { IMAGE_BACKOFF_INITIAL_MS, IMAGE_BACKOFF_MAX_MS, ImageManager } from "../kuberuntime/image-manager.js";
import { EventStore } from "./kube-events.js";
import { readContainerLog } from "./container-logs.js";
import { ContainerInstanceLog } from "./container-instances.js";
import type { ContainerInstance } from "../api/container-instance.js";
import { ProbeTriggers } from "./probe-trigger.js";
import { LABEL_POD_UID } from "../kuberuntime/labels.js";
import { PodSyncer } from "./pod-sync.js";
import type { PodRecord } from "../kuberuntime/pod-record.js";
import { PodWorker, requeueDelayMs } from "./pod-worker.js";
import { StateStore } from "./state-store.js";
import { ApiObjectFiles } from "./api-object-files.js";
import { RevisionFile } from "./revision-file.js";
import { pastActiveDeadline } from "./active-deadline.js";
import type { ServiceSource } from "./service-env.js";
import { collectContainerGarbage, CONTAINER_GC_PERIOD_MS, type GcReport } from "../kuberuntime/container-gc.js";
import { secretRedactor } from "./secret-env.js";
import { ContainerLogManager, DEFAULT_CONTAINER_LOG_POLICY, type ContainerLogPolicy } from "../kuberuntime/container-log-manager.js";
import { agentIdFor, ownedBy } from "../kuberuntime/agent-id.js";
import type { ConfigObjects, ConfigObjectChange } from "../volumes/config-objects.js";
import { storeConfigObjects } from "./store-config-objects.js";
import { nodeAllocatable } from "../volumes/node-allocatable.js";
import { PodVolumes } from "../volumes/pod-volumes.js";
import type { ServiceAccountTokenSource } from "../volumes/service-account-tokens.js";
import { referencesObject } from "../volumes/volume-payload.js";

/** MANIFEST_REJECTED is the reason of the node event about a manifest file that did not apply. */
export const MANIFEST_REJECTED = "ManifestRejected";

/** MAX_MANIFEST_ERROR_CHARS bounds the errors a manifest event quotes. */
const MAX_MANIFEST_ERROR_CHARS = 1024;

/** TERMINATE_RETRY_DELAY_MS is the pause before a failed pod termination is tried again. */
const TERMINATE_RETRY_DELAY_MS = 1000;

/** AgentOptions configure an Agent. */
export interface AgentOptions {
  runtime: Runtime;
  /**
   * The API server's part the agent runs against, built by the composer (startLocalApiServer):
   * the agent keeps its pods, mirrors, events and Node in the store and reads its pods from it.
   */
  api: LocalApiServer;
  /** Directory for container logs and agent state. */
  stateDir: string;
  clock?: Clock;
  logger?: Logger;
  /** How often the runtime's containers are relisted to find pods to sync (the kubelet's PLEG period: 1 s). */
  resyncIntervalMs?: number;
  /** How often every pod is synced regardless (the kubelet's syncFrequency: 1 min). */
  fullResyncIntervalMs?: number;
  /** Source of the pod workers' requeue jitter, in [0, 1) (default Math.random; pod-worker.ts requeueDelayMs). */
  random?: () => number;
  /**
   * How often dead containers, idle sandboxes and log directories of gone pods are collected (the
   * kubelet's ContainerGCPeriod: 1 min). The first collection runs one period after start(), by
   * when the pod sources are loaded (the kubelet waits for all sources to be ready).
   */
  containerGcIntervalMs?: number;
  backoff?: BackoffOptions;
  nodeName?: string;
  hostIP?: string;
  probeCloseMode?: CloseMode;
  /** How long probe history is kept (default 24 h; `probelet run --probe-history-window`). */
  probeHistoryWindowMs?: number;
  /**
   * Where pods' ConfigMaps and Secrets are read (env sources and volumes); a change syncs the
   * pods that reference the object. Default: the agent's own object store (storeConfigObjects),
   * which holds those created through the API and from manifests.
   */
  configObjects?: ConfigObjects;
  /** Container log rotation (the kubelet's containerLog* settings; default 10Mi, 5 files, 1 worker, 10 s). */
  containerLogs?: ContainerLogPolicy;
  /**
   * Where serviceAccountToken projections get their tokens (cluster mode: TokenRequests through
   * the node's credentials, service-account-tokens.ts). None: pods with such a projection are
   * refused at validation, as standalone probelet has no token issuer.
   */
  serviceAccountTokens?: ServiceAccountTokenSource;
  /** The cluster's services, for the containers' service environment variables (cluster mode; none standalone). */
  services?: ServiceSource;
}

export type { AdmitResult } from "./pod-admission.js";

/** AdmitOptions describe where a manifest pod comes from. */
export interface AdmitOptions {
  /** The manifest is in a watched directory (`run --manifests`): its pods go when the file does. */
  watched?: boolean;
}

/** Agent runs pods on one runtime with the kubelet's lifecycle. */
export class Agent extends StoreView implements AgentApi {
  readonly probeManager: ProbeManager;
  readonly statusManager: StatusManager;
  readonly events: EventStore;
  /** The ConfigMaps and Secrets pods read. */
  readonly configObjects: ConfigObjects;
  /** The pods' volume directories. */
  private readonly volumes: PodVolumes;
  /** The ConfigMaps and Secrets manifest files loaded into the store, by source. */
  private readonly manifestObjects: ManifestConfigObjects;
  /** The Kubernetes API's objects: the agent's pods (API pods and mirrors of manifest pods), events, namespaces, the node. */
  readonly store: ObjectStore;
  /** The store's mirror pods of the manifest pods. */
  private readonly mirrors: StaticPodMirrors;
  readonly nodeName: string;
  readonly proberMetrics = new ProberMetrics();
  /**
   * The pod sources the agent waits for before it cleans up what pods it does not know left
   * (kubelet SourcesReady): the composer adds the API server's in cluster mode and marks it seen
   * after the first list. None added: ready from the start.
   */
  readonly sourcesReady = new SourcesReady();
  /** The last probes of every worker (beyond the kubelet: `describe` and `explain` show them). */
  private readonly history: ProbeHistory;
  private readonly historyFiles: ProbeHistoryFiles;
  /** Every run of every container, from the statuses written (the console's restarts and exits). */
  private readonly instances: ContainerInstanceLog;
  /** "Probe now": manual triggers waiting for their probe. */
  private readonly triggers: ProbeTriggers;
  private readonly metrics: AgentMetrics;
  private readonly syncer: PodSyncer;
  /** CrashLoopBackOff of every container (kubelet crashLoopBackOff), collected on housekeeping. */
  private readonly crashLoopBackOff: RestartBackoff;
  /** EnsureImageExists and the image pull back-off; none when the runtime has no images (the process runtime). */
  private readonly imageManager: ImageManager | undefined;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly runtime: Runtime;
  private readonly workers = new Map<string, PodWorker>();
  /** Stops the API pod source and the agent's other store watches. */
  private readonly stopWatches: (() => void)[] = [];
  /** Where every stored status goes besides the object store (the API server's status sync in cluster mode). */
  private readonly statusSinks = new Set<PodStatusSink>();
  private readonly stop = new AbortController();
  private loop: Promise<void> | undefined;
  /** The container log rotation loop (ContainerLogManager.run), once started. */
  private logRotation: Promise<void> | undefined;
  /** The container garbage collection in progress, if any. */
  private gcRun: Promise<void> | undefined;
  /** The orphaned sandboxes were cleaned up once every source was ready (or it is under way). */
  private orphansCleaned = false;
  /** Root of the pods' log directories: `<logRoot>/<namespace>_<name>_<uid>/<container>/<attempt>.log`. */
  private readonly logRoot: string;
  /** The owner label value of what this agent creates in the runtime (agent-id.ts). */
  private readonly agentId: string;
  private lastResync = 0;
  /** The relist and the runtime's health (pleg.ts). */
  private readonly pleg: Pleg;
  /** A sync was skipped while the runtime was down: every pod is synced once it is back. */
  private syncsSkipped = false;
  private readonly state: StateStore;
  /** Every source's pods, merged into the one stream of updates the agent handles (handlePodUpdate). */
  private readonly config: PodConfig;
  /** Applies the api pod source's changes (kubelet HandlePodAdditions/Updates/Removes/Reconcile). */
  private readonly apiPods: ApiPodReconciler;
  /** The manifest sources in a watched directory (`run --manifests`): their mirrors say so. */
  private readonly watchedSources = new Set<string>();
  /** The API's namespaces, configmaps and secrets in the state directory. */
  private readonly objectFiles: ApiObjectFiles;
  /** The resourceVersion mark that keeps versions monotonic across restarts. */
  private readonly revisions: RevisionFile;
  /** Statuses saved by a previous agent, by pod UID; consumed when the pod is admitted again. */
  private saved = new Map<string, Pod["status"]>();
  /** Set by close/destroy/detach: pods that end now are not deleted from the saved state. */
  private closing = false;
  /** The pods that passed the node's admission (the kubelet's admitted pods); only these are synced. */
  private readonly admitted = new Set<string>();
  /** The admitted pods that hold host ports, by UID: what a new pod's ports are checked against. */
  private readonly portHolders = new Map<string, PodWorker>();
  /** The admissions in progress, one after the other (the runtime's answer may take a moment). */
  private admissions: Promise<void> = Promise.resolve();

  constructor(private readonly options: AgentOptions) {
    super();
    this.clock = options.clock ?? systemClock;
    this.crashLoopBackOff = new RestartBackoff(this.clock, options.backoff);
    this.logger = options.logger ?? silentLogger;
    // Every pod waiting out a restart back-off listens on the stop signal: no listener limit.
    setMaxListeners(0, this.stop.signal);
    this.runtime = options.runtime;
    this.volumes = new PodVolumes(`${options.stateDir}/volumes`);
    this.pleg = new Pleg(this.runtime, this.clock, this.logger);
    this.logRoot = `${options.stateDir}/pods`;
    this.agentId = agentIdFor(options.stateDir);
    const windowMs = options.probeHistoryWindowMs ?? DEFAULT_HISTORY_WINDOW_MS;
    this.historyFiles = new ProbeHistoryFiles({ stateDir: options.stateDir, clock: this.clock, logger: this.logger.child("probe-history"), windowMs });
    this.history = new ProbeHistory({ windowMs, sink: this.historyFiles });
    this.instances = new ContainerInstanceLog(this.clock, windowMs);
    const nodeName = (this.nodeName = options.nodeName ?? hostname());
    this.store = options.api.store;
    this.configObjects = options.configObjects ?? storeConfigObjects(this.store);
    this.manifestObjects = new ManifestConfigObjects(this.store);
    registerNode(this.store, { name: nodeName, hostIP: options.hostIP ?? "127.0.0.1", now: rfc3339(this.clock.now()) }, this.runtime.type);
    // Events name the object clients see: a manifest pod's mirror.
    this.events = new EventStore(this.clock, nodeName, this.store, (uid) => this.mirrors.mirrorUid(uid) ?? uid);
    this.mirrors = new StaticPodMirrors(this.store, nodeName, {
      running: (uid) => {
        const worker = this.workers.get(uid);
        return worker === undefined || worker.terminating || this.closing ? undefined : worker.record.pod;
      },
      remade: (uid) => this.publishPod(uid),
    }, this.logger.child("mirrors"));
    this.metrics = new AgentMetrics();
    this.statusManager = new StatusManager({
      clock: this.clock,
      podLookup: { getPodByUid: (uid) => this.workers.get(uid)?.record.pod },
      logger: this.logger,
      onContainerTerminated: (type, exitCode, reason) => this.metrics.containerTerminated(type, exitCode, reason),
    });
    this.triggers = new ProbeTriggers(this.clock, this.statusManager);
    const runner = fullIdRunner(this.runtime);
    this.probeManager = new ProbeManager({
      statusProvider: this.statusManager,
      runner,
      recorder: this.events,
      clock: this.clock,
      logger: this.logger,
      metrics: this.proberMetrics,
      onProbe: (worker, record) => {
        this.triggers.recorded(worker, record, this.history.record(worker, record));
        const cpu = record.outcome?.cpuSeconds;
        if (cpu !== undefined) this.metrics.observeExecProbeCpu(probeTypeLabel(record.probeType), cpu);
      },
      // Secret values never reach events, logs or history through an exec probe's output.
      proberOptions: { redactor: secretRedactor(this.configObjects), ...(options.probeCloseMode ? { closeMode: options.probeCloseMode } : {}) },
    });
    // kubelet.go imageBackOff: its own flowcontrol back-off, 10 s doubling to 300 s.
    const images = this.runtime.images;
    this.imageManager =
      images &&
      new ImageManager({
        images,
        backOff: new RestartBackoff(this.clock, { initialMs: IMAGE_BACKOFF_INITIAL_MS, maxMs: IMAGE_BACKOFF_MAX_MS }),
        events: this.events,
        clock: this.clock,
        logger: this.logger.child("images"),
      });
    this.syncer = new PodSyncer({
      runtime: this.runtime,
      ...(this.imageManager ? { images: this.imageManager } : {}),
      runner,
      probeManager: this.probeManager,
      statusManager: this.statusManager,
      events: this.events,
      backoff: this.crashLoopBackOff,
      clock: this.clock,
      logger: this.logger.child("sync"),
      logRoot: this.logRoot,
      hostIP: options.hostIP ?? "127.0.0.1",
      nodeName,
      agentId: this.agentId,
      configObjects: this.configObjects,
      volumes: this.volumes,
      nodeAllocatable: nodeAllocatable(options.stateDir),
      ...(options.serviceAccountTokens !== undefined ? { tokens: options.serviceAccountTokens } : {}),
      ...(options.services !== undefined ? { services: options.services } : {}),
    });
    const unsubscribe = this.configObjects.onChange((change) => this.configObjectChanged(change));
    this.stop.signal.addEventListener("abort", unsubscribe, { once: true });
    this.state = new StateStore(options.stateDir, this.logger.child("state"));
    this.objectFiles = new ApiObjectFiles(options.stateDir, this.logger.child("state"));
    this.revisions = new RevisionFile(options.stateDir, this.logger.child("state"));
    this.wireProbeReactions();
    this.statusManager.subscribe((uid) => this.publishPod(uid));
    this.apiPods = new ApiPodReconciler({
      store: this.store, nodeName, statusManager: this.statusManager, configObjects: this.configObjects, state: this.state, clock: this.clock, logger: this.logger,
      workers: {
        worker: (uid) => this.workers.get(uid),
        start: (pod, source) => this.startWorker(pod, source),
        publish: (uid) => this.publishPod(uid),
        terminate: (worker, grace, deletionTimestamp) => void this.deleteRecord(worker, grace, deletionTimestamp),
        closing: () => this.closing,
      },
    });
    this.config = new PodConfig({ updates: (update) => this.handlePodUpdate(update), refuse: (pod, source) => this.refuseStaticPod(pod, source) });
    this.stopWatches.push(
      this.instances.watch(this.store),
      () => this.mirrors.close(),
      watchApiPods(this.store, nodeName, this.config),
    );
  }

  /**
   * wireProbeReactions mirrors syncLoopIteration: liveness failures sync; readiness/startup write
   * status then sync. The kubelet's channels carry the workers' initial values too.
   */
  private wireProbeReactions(): void {
    const pm = this.probeManager;
    const initial = { initial: true };
    pm.livenessManager.subscribe((u) => {
      if (u.result === "Failure") this.handleProbeSync(u.podUid);
    }, initial);
    pm.readinessManager.subscribe((u) => {
      this.statusManager.setContainerReadiness(u.podUid, u.containerId, u.result === "Success");
      this.handleProbeSync(u.podUid);
    }, initial);
    pm.startupManager.subscribe((u) => {
      this.statusManager.setContainerStartup(u.podUid, u.containerId, u.result === "Success");
      this.handleProbeSync(u.podUid);
    }, initial);
  }

  /** configObjectChanged syncs every pod that reads the changed ConfigMap or Secret (env or volume). */
  private configObjectChanged(change: ConfigObjectChange): void {
    for (const worker of this.workers.values()) {
      const pod = worker.record.pod;
      if ((pod.metadata.namespace ?? "default") === change.namespace && referencesObject(pod, change.kind, change.name)) worker.queueSync();
    }
  }

  /** handleProbeSync syncs the pod by UID if the agent still has it (stale updates are ignored). */
  private handleProbeSync(uid: string): void {
    this.workers.get(uid)?.queueSync();
  }

  /** start launches the periodic resync loop and reports the runtime's version on the Node object. Idempotent. */
  start(): void {
    if (this.loop !== undefined) return;
    this.loop = this.resyncLoop();
    const logs = new ContainerLogManager(this.runtime, this.options.containerLogs ?? DEFAULT_CONTAINER_LOG_POLICY, this.clock, this.logger.child("logs"));
    this.logRotation = logs.run(this.stop.signal);
    reportRuntimeVersion(this.store, this.nodeName, this.runtime).catch((err: unknown) =>
      this.logger.warn("Cannot read the runtime's version", { err: err instanceof Error ? err.message : String(err) }),
    );
  }

  /**
   * restore loads what a previous agent saved in the state directory: the resourceVersion mark
   * (the store continues above it), the namespaces, configmaps and secrets created through the
   * API, the last status of every pod (so containers that kept running keep their readiness and
   * restart counts) and the pods that were created through the API (which are admitted again).
   * From then on the API's namespaces, configmaps and secrets are saved as they change. Call
   * before adding manifests.
   */
  async restore(): Promise<void> {
    await this.historyFiles.load(this.history);
    this.store.seedRevision(await this.revisions.load(Number(this.store.resourceVersion)));
    await this.objectFiles.restore(this.store);
    this.stopWatches.push(this.objectFiles.saveOnChange(this.store, (resource, object) => !this.manifestObjects.loadedFromManifest(resource, object.metadata.namespace ?? "", object.metadata.name ?? "")));
    this.saved = await this.state.loadStatuses();
    for (const pod of await this.state.loadApiPods()) {
      const result = createApiPod(this.store, pod, this.nodeName, { restore: true });
      if (!result.ok) this.logger.warn("Dropping a saved API pod that no longer validates", { pod: result.name, errors: result.errors });
    }
  }

  /**
   * cleanupOrphans stops and removes sandboxes this agent labelled for pods it no longer has
   * (kubelet HandlePodCleanups). The agent runs it once every pod source is ready
   * (sourcesReady); a caller may run it again. Another agent's sandboxes in a shared runtime are
   * left alone.
   */
  async cleanupOrphans(): Promise<void> {
    for (const sandbox of await this.runtime.listPodSandboxes()) {
      const uid = sandbox.labels[LABEL_POD_UID];
      if (uid === undefined || this.workers.has(uid) || !ownedBy(sandbox.labels, this.agentId)) continue;
      this.logger.info("Removing an orphaned pod sandbox", { pod: sandbox.name, podUID: uid, sandbox: sandbox.id });
      await this.runtime.stopPodSandbox(sandbox.id).catch(() => undefined);
      await this.runtime.removePodSandbox(sandbox.id).catch(() => undefined);
      void this.state.forgetPod(uid);
    }
  }

  /**
   * resyncLoop is the kubelet's PLEG and sync ticker in one: every relist period (1 s) it lists
   * the runtime's containers once and syncs only the pods whose containers changed; every full
   * resync period (1 min, the kubelet's syncFrequency) it syncs every pod. While the runtime is
   * down (runtimeErrors) it keeps relisting but syncs nothing; once it answers again every pod
   * is synced (kubelet syncLoop skips its iterations meanwhile).
   */
  private async resyncLoop(): Promise<void> {
    const period = this.options.resyncIntervalMs ?? 1000;
    const fullEvery = this.options.fullResyncIntervalMs ?? 60_000;
    const gcEvery = this.options.containerGcIntervalMs ?? CONTAINER_GC_PERIOD_MS;
    let lastFull = Number.NEGATIVE_INFINITY;
    let lastGc = this.clock.now();
    while (!this.stop.signal.aborted) {
      const now = (this.lastResync = this.clock.now());
      this.revisions.keepAhead(Number(this.store.resourceVersion));
      await this.pleg.relist([...this.workers.values()].map((w) => ({ sandboxId: w.record.sandboxId, queueSync: () => w.queueSync() })));
      if (this.pleg.noteRuntimeState(now)) {
        if (this.syncsSkipped || now - lastFull >= fullEvery) {
          const afterOutage = this.syncsSkipped;
          this.syncsSkipped = false;
          lastFull = now;
          for (const worker of this.workers.values()) {
            // kubelet pod_workers.go completeWork: a pod held back by its restart back-off is queued
            // for the back-off's end, not for the periodic resync (requeue syncs it then).
            const heldBack = worker.record.requeueAt !== undefined && worker.record.requeueAt > now;
            if (!heldBack || afterOutage) worker.queueSync();
          }
        }
        // active_deadline.go ShouldSync: a pod past its activeDeadlineSeconds is synced (and failed) at once.
        for (const worker of this.workers.values()) {
          const { pod, startTime } = worker.record;
          if (pod.spec.activeDeadlineSeconds !== undefined && !worker.finished && pastActiveDeadline(pod, startTime, now) && !isPodPhaseTerminal(this.statusManager.getPodStatus(pod.metadata.uid ?? "")?.phase)) worker.queueSync();
        }
        // kubelet HandlePodCleanups runs only once every source is ready (sources.go AllReady): then
        // the sandboxes of pods no source has are removed. Once here; container GC collects what
        // pods leave later.
        if (!this.sourcesReady.allReady()) {
          this.logger.debug("SyncLoop (housekeeping, skipped): sources aren't ready yet", { waitingFor: this.sourcesReady.pending() });
        } else if (!this.orphansCleaned) {
          this.orphansCleaned = true;
          void this.cleanupOrphans().catch((err: unknown) => {
            this.orphansCleaned = false;
            this.logger.warn("Cleaning up orphaned pod sandboxes failed", { err: err instanceof Error ? err.message : String(err) });
          });
        }
        // Off the loop (it does file I/O): relists go on meanwhile; one collection at a time.
        if (now - lastGc >= gcEvery && this.gcRun === undefined) {
          lastGc = now;
          this.gcRun = this.collectGarbage()
            .then(() => this.volumes.removeOrphans((uid) => this.podKnown(uid)))
            .then(() => undefined, (err: unknown) => this.logger.warn("Container garbage collection failed", { err: err instanceof Error ? err.message : String(err) }))
            .finally(() => (this.gcRun = undefined));
        }
      }
      // kubelet_pods.go HandlePodCleanups: crashLoopBackOff.GC() on every housekeeping. The kubelet
      // collects the image back-off only after a successful pull; collecting it here too changes
      // nothing a lookup sees (a stale entry reads as none) and bounds what deleted pods leave.
      this.crashLoopBackOff.gc();
      this.imageManager?.gc();
      this.metrics.observePods([...this.workers.values()].map((w) => this.statusManager.getPodStatus(w.record.pod.metadata.uid ?? "")));
      await this.clock.sleep(period, this.stop.signal, IN_BACKGROUND);
    }
  }

  /**
   * collectGarbage runs one container garbage collection now (kubelet containerGC.GarbageCollect):
   * dead containers beyond the newest per container and their logs, and everything left of pods
   * the agent no longer has. The resync loop runs it every containerGcIntervalMs.
   */
  collectGarbage(): Promise<GcReport> {
    return collectContainerGarbage({ runtime: this.runtime, logRoot: this.logRoot, agentId: this.agentId, isPodKnown: (uid) => this.podKnown(uid), logger: this.logger.child("gc") });
  }

  /**
   * podKnown tells the collectors whether a pod's leftovers must stay: the agent has the pod, or
   * a source has not listed its pods yet, so the pod may still be one of them (kubelet
   * podWorkers.ShouldPodContentBeRemoved is false for an unknown pod until the first
   * SyncKnownPods, which HandlePodCleanups makes once the sources are ready; kuberuntime_gc.go
   * evicts a deleted pod's containers, sandboxes and logs only when allSourcesReady).
   */
  private podKnown(uid: string): boolean {
    return this.workers.has(uid) || !this.sourcesReady.allReady();
  }

  /**
   * requeue syncs a pod again once a back-off ends (pod_workers.go completeWork: the work queue
   * keeps one time per pod, and each sync's outcome replaces the one before; a sync that needs
   * no back-off leaves the pod to the periodic resync, requeue(record, undefined)).
   */
  private requeue(record: PodRecord, delayMs: number | undefined): void {
    if (delayMs === undefined) {
      record.requeueAt = undefined;
      return;
    }
    const at = this.clock.now() + delayMs;
    record.requeueAt = at;
    const uid = record.pod.metadata.uid ?? "";
    void this.clock.sleep(delayMs, this.stop.signal, IN_BACKGROUND).then(() => {
      // A later sync replaced this time (or cleared it): its own requeue, if any, syncs the pod.
      if (record.requeueAt !== at) return;
      record.requeueAt = undefined;
      this.workers.get(uid)?.queueSync();
    });
  }

  /**
   * admit runs a pod from a source, through the pod config. An "api" pod is created in the store
   * exactly as the API's create would, and starts at once. A manifest pod (source `file:PATH`) is a
   * static pod: it gets a UID derived from its source and content and joins its source's pods; a
   * pod of the same name from the same source is replaced when its content changed.
   */
  admit(input: Pod, source: string, options: AdmitOptions = {}): AdmitResult {
    if (source === API_SOURCE) {
      // In process (tests, embedders) the pod's namespace is made if missing, as for a manifest
      // pod, and the pod runs at once; the source's notification then finds it running.
      ensureNamespace(this.store, input.metadata?.namespace ?? "default");
      const created = createApiPod(this.store, input, this.nodeName);
      if (created.ok) this.config.put(API_SOURCE, created.pod);
      return created;
    }
    const result = admitManifestPod(input, source, this.clock.now());
    if (!result.ok) return result;
    if (options.watched === true) this.watchedSources.add(source);
    const put = this.config.put(source, result.pod);
    return put.ok ? put : { ok: false, name: result.pod.metadata.name ?? "", errors: put.errors };
  }

  /** removeSource deletes every pod from a source whose UID is not in `keep` (a manifest changed or vanished). */
  removeSource(source: string, keep: ReadonlySet<string> = new Set()): void {
    const kept = this.config.pods(source).filter((pod) => keep.has(pod.metadata.uid ?? ""));
    if (kept.length === 0) this.watchedSources.delete(source);
    this.config.set(source, kept);
  }

  /**
   * handlePodUpdate is where every source's pods reach the agent, one PodUpdate at a time (kubelet
   * syncLoopIteration, the configCh case): additions, updates (a deletion is one: graceful
   * deletion), removals and reconciles. A manifest pod's UID changes with its content, so its
   * source only ever adds and removes.
   */
  private handlePodUpdate(update: PodUpdate): void {
    const api = update.source === API_SOURCE;
    for (const pod of update.pods) {
      switch (update.op) {
        case "ADD":
          if (api) this.apiPods.add(pod);
          else this.addStaticPod(pod, update.source);
          break;
        case "UPDATE":
        case "DELETE":
          this.apiPods.update(pod);
          break;
        case "RECONCILE":
          this.apiPods.reconcile(pod);
          break;
        case "REMOVE":
          if (api) this.apiPods.remove(pod);
          else this.removeStaticPod(pod);
          break;
      }
    }
  }

  /**
   * refuseStaticPod is the config's check of a manifest pod new to it: a pod of the same name from
   * another source, or an API pod of that name in the store, keeps it out (probelet's: its mirror
   * needs the name in the agent's store).
   */
  private refuseStaticPod(pod: Pod, source: string): string[] | undefined {
    if (source === API_SOURCE) return undefined;
    const namespace = pod.metadata.namespace ?? "default";
    const name = pod.metadata.name ?? "";
    const holder = this.config.sourceOf(namespace, name);
    if (holder !== undefined && holder !== source) return [`pods "${name}" already exists (from ${holder})`];
    const stored = this.store.get<Pod>(PODS.name, namespace, name);
    if (stored !== undefined && !isMirrorPod(stored)) return [`pods "${name}" already exists (from api)`];
    return undefined;
  }

  /**
   * addStaticPod runs a manifest pod the config added (HandlePodAdditions): its mirror pod goes
   * into the store in place of an earlier one of its name (static-pod-mirrors.ts), then its worker starts.
   */
  private addStaticPod(pod: Pod, source: string): void {
    const namespace = pod.metadata.namespace ?? "default";
    const name = pod.metadata.name ?? "";
    if (this.store.get<Pod>(PODS.name, namespace, name) !== undefined) this.store.delete(PODS.name, namespace, name);
    ensureNamespace(this.store, namespace);
    this.mirrors.create(pod, { file: source.startsWith("file:") ? source.slice("file:".length) : source, watched: this.watchedSources.has(source) });
    this.startWorker(pod, source);
  }

  /** removeStaticPod deletes a manifest pod its source no longer has (HandlePodRemoves): graceful, with the pod's own grace period. */
  private removeStaticPod(pod: Pod): void {
    const worker = this.workers.get(pod.metadata.uid ?? "");
    if (worker !== undefined) void this.deleteRecord(worker, undefined);
  }

  /** startWorker begins running an admitted pod: its worker, its saved status if any, its first sync. */
  private startWorker(pod: Pod, source: string): void {
    const uid = pod.metadata.uid ?? "";
    const record: PodRecord = { pod, source, podIP: "", startTime: this.clock.now(), startErrors: new Map() };
    const worker = new PodWorker(record, {
      sync: async (r) => {
        // A pod is synced once admitted (a rejected pod never runs: HandlePodAdditions skips it).
        if (!this.admitted.has(r.pod.metadata.uid ?? "")) return;
        // kubelet syncLoop: no pod is synced while runtimeErrors() reports anything.
        if (this.pleg.runtimeState.errors(this.clock.now()).length > 0) {
          this.syncsSkipped = true;
          return;
        }
        r.backoffRemainingMs = undefined;
        const stoppedBefore = r.containersStopped === true;
        await this.metrics.timeSync(r.pod.metadata.uid ?? "", () => this.syncer.sync(r));
        // A terminal phase held back while containers could run is written once they are stopped,
        // even when the status itself did not change (status_manager.go mergePodStatus).
        if (!stoppedBefore && r.containersStopped === true) this.publishPod(r.pod.metadata.uid ?? "");
        this.requeue(r, r.backoffRemainingMs === undefined ? undefined : requeueDelayMs(r.backoffRemainingMs, this.options.fullResyncIntervalMs ?? 60_000, this.options.random ?? Math.random));
      },
      terminate: (r, grace) => this.syncer.terminate(r, grace),
      terminated: (r) => this.forget(r),
      shorten: (r, grace) => void this.shortenTermination(r, grace),
      retryDelay: () => this.clock.sleep(TERMINATE_RETRY_DELAY_MS),
      logger: this.logger,
    });
    this.workers.set(uid, worker);
    // kubelet pod manager AddPod: the secret and configmap managers learn the pod's references.
    this.configObjects.registerPod?.(pod);
    const saved = this.saved.get(uid);
    this.metrics.podSeen(uid, record.startTime, saved);
    if (saved) {
      // The previous agent's view seeds the status manager, as the API server's copy seeds a
      // restarted kubelet: readiness and restart counts carry over for containers still running.
      this.saved.delete(uid);
      this.statusManager.setPodStatus(pod, saved);
    }
    this.admitToNode(worker);
  }

  /**
   * admitToNode runs the kubelet's admission of a new pod (HandlePodAdditions → canAdmitPod, in
   * the order pods arrive): a pod that wants a host port an active pod holds is rejected with the
   * NodePorts predicate's reason and message (node-ports.ts; where pods share the host's network,
   * container ports are host ports), and a probe aimed at another pod's port there is warned
   * about. A pod already in a terminal phase (restored) is not checked. Then its first sync.
   */
  private admitToNode(worker: PodWorker): void {
    const check = (shared: boolean): void => {
      if (worker.finished) return;
      const pod = worker.record.pod;
      const uid = pod.metadata.uid ?? "";
      if (!isPodPhaseTerminal(this.statusManager.getPodStatus(uid)?.phase) && !worker.terminating) {
        const active = this.activePortHolders();
        if (!fitsHostPorts(pod, active, shared)) {
          // The kubelet rejects before the pod worker sees the pod, so its status manager knows it
          // cannot have running containers (pod_workers.go CouldHaveRunningContainers): Failed is
          // written at once.
          worker.record.containersStopped = true;
          this.rejectPod(pod, NODE_PORTS_REASON, NODE_PORTS_MESSAGE);
          return;
        }
        for (const warning of probePortsOfOthers(pod, active, shared)) this.events.event({ pod }, "Warning", PROBE_PORT_IN_USE, warning);
      }
      this.admitted.add(uid);
      if (hostPortsOf(pod, shared).length > 0) this.portHolders.set(uid, worker);
      worker.queueSync();
    };
    const shares = this.runtime.podsShareHostNetwork?.bind(this.runtime);
    if (shares === undefined) check(false);
    else this.admissions = this.admissions.then(shares).then(check, () => check(true));
  }

  /**
   * activePortHolders are the admitted pods holding host ports that are active (kubelet
   * GetActivePods): not finished, not in a terminal phase unless still terminating, and not a
   * manifest pod its source is replacing or removing (the kubelet's pod manager drops a static pod
   * at once). Only pods with host ports are kept track of, so admission costs no more with
   * thousands of pods that have none.
   */
  private activePortHolders(): Pod[] {
    return [...this.portHolders]
      .filter(([uid, w]) => !w.finished && !(w.terminating && w.record.source !== "api") && (w.terminating || !isPodPhaseTerminal(this.statusManager.getPodStatus(uid)?.phase)))
      .map(([, w]) => w.record.pod);
  }

  /** rejectPod fails a pod the node cannot run, as kubelet rejectPod does: a Warning event and phase Failed, `Pod was rejected: …`. */
  private rejectPod(pod: Pod, reason: string, message: string): void {
    this.logger.warn("Pod rejected at admission", { pod: `${pod.metadata.namespace ?? "default"}/${pod.metadata.name ?? ""}`, reason, message });
    this.events.event({ pod }, "Warning", reason, message);
    this.statusManager.setPodStatus(pod, { phase: "Failed", reason, message: `Pod was rejected: ${message}`, qosClass: podQOSClass(pod) });
  }

  /**
   * putConfigObjects loads a manifest's ConfigMaps and Secrets into the store, as the API would
   * create them, replacing what the same source loaded before; returns the errors.
   */
  putConfigObjects(source: string, objects: readonly KubeObject[], keep: readonly ObjectRef[] = []): string[] {
    return this.manifestObjects.put(source, objects, keep);
  }

  /**
   * manifestRejected records what a watched manifest file could not apply as a Warning event on
   * the node (`probelet get events`, kubectl get events), besides the agent's log: pods already
   * running from the file keep running. Beyond the kubelet, which only logs it.
   */
  manifestRejected(file: string, errors: readonly string[]): void {
    const text = errors.map((e) => e.trim()).join("; ");
    this.events.nodeEvent("Warning", MANIFEST_REJECTED, `Manifest ${file} not applied (what runs from it keeps running): ${text.length > MAX_MANIFEST_ERROR_CHARS ? `${text.slice(0, MAX_MANIFEST_ERROR_CHARS)}…` : text}`);
  }

  /**
   * deleteRecord starts graceful deletion (kubelet: deletionTimestamp + grace, then
   * SyncTerminatingPod); an API pod's deletion time is the store's.
   */
  private deleteRecord(worker: PodWorker, gracePeriodSeconds: number | undefined, deletionTimestamp?: string): Promise<void> {
    const pod = worker.record.pod;
    const grace = gracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds ?? 30;
    if (!worker.terminating) {
      worker.record.pod = { ...pod, metadata: { ...pod.metadata, deletionTimestamp: deletionTimestamp ?? rfc3339(this.clock.now()), deletionGracePeriodSeconds: grace } };
      this.publishPod(pod.metadata.uid ?? "");
    }
    return worker.terminate(grace);
  }

  /**
   * shortenTermination makes a running termination end within a shorter grace period: once it
   * has passed, every container of the pod is killed at once (kubelet: a shorter grace period
   * replaces the one in progress).
   */
  private async shortenTermination(record: PodRecord, gracePeriodSeconds: number): Promise<void> {
    if (gracePeriodSeconds > 0) await this.clock.sleep(gracePeriodSeconds * 1000);
    const worker = this.workers.get(record.pod.metadata.uid ?? "");
    if (worker && !worker.finished && record.sandboxId) await this.runtime.stopPodSandbox(record.sandboxId).catch(() => undefined);
  }

  /**
   * forget drops a terminated pod. Unless the agent is shutting down, its final status goes to
   * the store and the pod is deleted from it with grace 0 and a UID precondition, as the
   * kubelet's status manager does once a deleted pod has terminated (status_manager.go
   * syncPod / canBeDeleted); a manifest pod's mirror goes with it.
   */
  private forget(record: PodRecord): void {
    const uid = record.pod.metadata.uid ?? "";
    this.workers.delete(uid);
    if (!this.closing) {
      // A deleted pod is gone for good; an agent shutdown keeps its desired state for next time.
      void this.state.forgetPod(uid);
      const mirrorUid = this.mirrors.mirrorUid(uid);
      const final = this.withStatus(record.pod);
      writePodStatus(this.store, record.pod, final.status, mirrorUid);
      removeStoredPod(this.store, record.pod, mirrorUid);
      for (const sink of this.statusSinks) sink.podTerminated(final);
      if (record.source === "api") void this.apiPods.save();
    }
    this.mirrors.forget(uid);
    this.admitted.delete(uid);
    this.portHolders.delete(uid);
    this.statusManager.removePod(uid);
    this.configObjects.unregisterPod?.(record.pod);
    this.history.forget(uid, this.closing);
    this.metrics.forgetPod(uid, record.pod.metadata.namespace ?? "", record.pod.metadata.name ?? "", allContainers(record.pod).map((c) => c.name));
  }

  private withStatus(pod: Pod): Pod {
    const status = this.statusManager.getPodStatus(pod.metadata.uid ?? "");
    return { apiVersion: "v1", kind: "Pod", ...pod, status: status ? structuredClone(status) : { phase: "Pending" } };
  }

  /**
   * publishPod writes a pod's current status into the store and hands it to the status sinks
   * (the status manager's syncPod), and its metrics.
   */
  private publishPod(uid: string): void {
    const worker = this.workers.get(uid);
    if (!worker) return;
    const pod = this.withStatus(worker.record.pod);
    const version = this.statusManager.version(uid);
    if (version > 0) for (const sink of this.statusSinks) sink.statusChanged(pod, version);
    if (pod.status) {
      this.metrics.observeRestarts(pod.metadata.namespace ?? "", pod.metadata.name ?? "", pod.status);
      this.metrics.observeStartup(uid, pod.status, this.clock.now());
      // An agent shutdown keeps the last running status for the next agent, not the final one its
      // own termination of the pods publishes (that would leave the restored pod terminal).
      if (!this.closing) this.state.saveStatus(uid, pod.status);
    }
    writePodStatus(this.store, worker.record.pod, pod.status, this.mirrors.mirrorUid(uid), worker.record.containersStopped !== true);
  }

  // ---- deletion for in-process callers, and the node's functions ----

  /**
   * deletePod deletes a pod as DELETE …/pods/{name} does (graceful unless grace is 0) and
   * returns it as it is now. A manifest pod's mirror is deleted and made again, the pod runs on
   * (static-pod-mirrors.ts). Throws ApiError NotFound.
   */
  deletePod(namespace: string, name: string, gracePeriodSeconds?: number): Pod {
    this.getPod(namespace, name);
    const request = { preconditions: {}, dryRun: false, ...(gracePeriodSeconds !== undefined ? { gracePeriodSeconds } : {}) };
    return structuredClone(deleteObject(this.store, PODS, namespace, name, request, this.clock.now()).object) as Pod;
  }

  /** deletePodAndWait deletes a pod and resolves once it has terminated (tests, CLI); a static pod is not terminated. */
  async deletePodAndWait(namespace: string, name: string, gracePeriodSeconds?: number): Promise<void> {
    const stored = this.store.get<Pod>(PODS.name, namespace, name);
    if (stored === undefined) return;
    const worker = isMirrorPod(stored) ? undefined : this.workers.get(stored.metadata.uid ?? "");
    this.deletePod(namespace, name, gracePeriodSeconds);
    if (worker !== undefined) await this.deleteRecord(worker, gracePeriodSeconds);
  }

  /** workerOf is the pod worker of a stored pod: an API pod's own, a mirror pod's static pod's. */
  private workerOf(stored: Pod): PodWorker | undefined {
    return this.workers.get(this.podUidOf(stored));
  }

  readLogs(request: LogRequest): AsyncIterable<string> {
    const pod = this.getPod(request.namespace, request.name);
    const worker = this.workerOf(pod);
    if (worker === undefined) throw new ApiError("NotFound", `pods "${request.name}" not found`);
    return readContainerLog(this.runtime, worker.record, request, pod.status, this.clock);
  }

  execContainer(namespace: string, name: string, container?: string): ExecContainer | ExecStatus {
    return execContainerOf(this.store.get<Pod>(PODS.name, namespace, name), name, container, this.runtime);
  }

  podSandbox(namespace: string, name: string): PodSandboxTarget | ExecStatus {
    const uid = this.store.get<Pod>(PODS.name, namespace, name)?.metadata.uid ?? "";
    const sandboxId = this.workers.get(uid)?.record.sandboxId;
    if (uid === "" || sandboxId === undefined) return podNotFound(name);
    return { runtime: this.runtime, sandboxId, uid };
  }

  probeHistory(namespace: string, name: string): ProbeHistoryEntry[] {
    return this.history.list(this.podUidOf(this.getPod(namespace, name)));
  }

  probeHistoryRuns(namespace: string, name: string): ProbeHistorySegment[] {
    return this.history.runs(this.podUidOf(this.getPod(namespace, name)));
  }

  probeHistoryRange(namespace: string, name: string, query: HistoryQuery): ProbeHistoryRange {
    return this.history.query(this.podUidOf(this.getPod(namespace, name)), query);
  }

  /** podUidOf is the UID the agent runs a stored pod under (a mirror pod's: its static pod's). */
  private podUidOf(stored: Pod): string {
    return staticPodUid(stored) ?? stored.metadata.uid ?? "";
  }

  async triggerProbe(namespace: string, name: string, container: string | undefined, probeType: ProbeType): Promise<ProbeHistoryEntry> {
    const pod = this.getPod(namespace, name);
    // A static pod's workers run under its own UID, not its mirror's.
    const uid = this.podUidOf(pod);
    const record = this.workers.get(uid)?.record.pod ?? pod;
    const withProbe = sidecarsAndContainers(record.spec).filter((c) => probeOf(c, probeType) !== undefined).map((c) => c.name);
    const target = container ?? (withProbe.length === 1 ? withProbe[0] : undefined);
    if (target === undefined) {
      if (withProbe.length === 0) throw new ApiError("NotFound", `pod "${name}" has no ${probeType} probe`);
      throw new ApiError("BadRequest", `pod "${name}" has ${probeType} probes on containers ${withProbe.join(", ")}: choose one with container=`);
    }
    if (!withProbe.includes(target)) throw new ApiError("NotFound", `container "${target}" of pod "${name}" has no ${probeType} probe`);
    const worker = this.probeManager.getWorker(uid, target, probeType);
    if (worker === undefined) throw new ApiError("Conflict", `cannot probe now: the ${probeType} probe of container "${target}" is not running (the pod has not started, or has ended)`);
    return this.triggers.trigger(worker);
  }

  containerInstances(namespace: string, name: string): ContainerInstance[] {
    return this.instances.list(this.getPod(namespace, name).metadata.uid ?? "");
  }

  /** probeHistoryWindowMs is how long probe history is kept. */
  get probeHistoryWindowMs(): number {
    return this.history.windowMs;
  }

  probeMetrics(): Promise<string> {
    return this.proberMetrics.registry.metrics();
  }

  agentMetrics(): Promise<string> {
    return this.metrics.registry.metrics();
  }

  /** healthz reports the sync loop's health (sync-loop-health.ts). */
  healthz(): { ok: boolean; message: string } {
    const now = this.clock.now();
    return syncLoopHealth({
      stopping: this.stop.signal.aborted, now, lastResync: this.lastResync, periodMs: this.options.resyncIntervalMs ?? 1000,
      runtimeDownSince: this.pleg.runtimeDownSince, runtimeErrors: this.pleg.runtimeState.errors(now),
    });
  }

  /**
   * addStatusSink hands every status the status manager stores, with its version, and every pod
   * whose termination finished, to a sink (the kubelet's status manager syncs to the API server
   * from its own cache); the returned function removes it.
   */
  addStatusSink(sink: PodStatusSink): () => void {
    this.statusSinks.add(sink);
    return () => void this.statusSinks.delete(sink);
  }

  /**
   * podCouldHaveRunningContainers tells whether containers of the pod may still run: its worker
   * has not stopped them all (pod_workers.go CouldHaveRunningContainers, which the status manager
   * asks before it writes a terminal phase). A pod the agent does not know has none.
   */
  podCouldHaveRunningContainers(uid: string): boolean {
    const worker = this.workers.get(uid);
    return worker !== undefined && worker.record.containersStopped !== true;
  }

  /** runtimeErrors lists, in the kubelet's words, why pods are not being synced; empty while the runtime is up. */
  runtimeErrors(): string[] {
    return this.pleg.runtimeState.errors(this.clock.now());
  }

  /**
   * close stops every pod gracefully (each with its own grace period), then the probe workers.
   * The pods it stopped start afresh under the next agent (forgetStopped: restart counts, last states
   * and logs go with their containers); a pod that had already finished keeps its final status.
   * Idempotent.
   */
  async close(gracePeriodSeconds?: number): Promise<void> {
    this.beginShutdown();
    const stopped = this.runningPodUids();
    await Promise.all([...this.workers.values()].map((w) => this.deleteRecord(w, gracePeriodSeconds)));
    await this.forgetStopped(stopped);
    await this.finishShutdown();
  }

  /** runningPodUids are the pods not in a terminal phase: those a shutdown stops. */
  private runningPodUids(): Set<string> {
    return new Set([...this.workers.keys()].filter((uid) => !isPodPhaseTerminal(this.statusManager.getPodStatus(uid)?.phase)));
  }

  /**
   * forgetStopped makes the pods a shutdown stopped start afresh next time, as pods whose
   * containers were killed and removed: their saved statuses go, and their dead containers,
   * sandboxes and log directories are collected (kill -9 and detach keep all of it: the next
   * agent adopts the containers with their counts). API pods' specs stay saved.
   */
  private async forgetStopped(stopped: ReadonlySet<string>): Promise<void> {
    await Promise.all([...stopped].map((uid) => this.state.forgetPod(uid)));
    await this.gcRun;
    // A runtime that is down keeps them (the next agent then adopts them, counts and all).
    await collectContainerGarbage({ runtime: this.runtime, logRoot: this.logRoot, agentId: this.agentId, isPodKnown: (uid) => !stopped.has(uid), logger: this.logger.child("gc") })
      .catch((err: unknown) => this.logger.warn("Cannot remove the stopped pods' containers", { err: err instanceof Error ? err.message : String(err) }));
  }

  /** beginShutdown stops the loop and the store watches; pods that end from now on stay saved. */
  private beginShutdown(): void {
    this.closing = true;
    this.stop.abort();
    for (const stop of this.stopWatches) stop();
  }

  /** finishShutdown waits for the probe workers, the loop, a running collection and the state writes. */
  private async finishShutdown(): Promise<void> {
    await this.probeManager.close();
    await this.loop;
    await this.logRotation;
    await this.gcRun;
    await this.state.idle();
    await this.objectFiles.idle();
    await this.revisions.idle();
    await this.historyFiles.flush();
  }

  /**
   * detach stops the agent but leaves every container running, for a later agent with the same
   * state directory to adopt (only runtimes whose containers outlive the agent: CRI, and the
   * process runtime with its supervisor helper).
   */
  async detach(): Promise<void> {
    this.beginShutdown();
    await Promise.all([...this.workers.values()].map((w) => w.idle()));
    await this.finishShutdown();
  }

  /** destroy kills every pod at once (a second signal): no grace, no preStop; as after close, they start afresh next time. */
  async destroy(): Promise<void> {
    this.beginShutdown();
    const stopped = this.runningPodUids();
    await Promise.all(
      [...this.workers.values()].map(async (w) => {
        if (w.record.sandboxId) await this.runtime.stopPodSandbox(w.record.sandboxId).catch(() => undefined);
        await this.deleteRecord(w, 0);
      }),
    );
    await this.forgetStopped(stopped);
    await this.finishShutdown();
  }
}
