// Agent: the node agent. It admits pods (manifests, API), reconciles each through its pod
// worker, reacts to probe results as the kubelet's sync loop does (§G.1), and serves its state
// through AgentApi. Runtime-agnostic: it talks to a Runtime only.
import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import { hostname } from "node:os";
import type { Pod } from "../api/types.js";
import { decodeValue } from "../api/decode.js";
import { defaultAndValidatePod } from "../api/validation.js";
import { formatFieldErrorBody, formatFieldErrors, formatInvalidObject } from "../api/field-errors.js";
import { podSchema } from "../api/schema.js";
import type { CommandRunner } from "../probe/command-runner.js";
import type { CloseMode } from "../probe/connection.js";
import { ProbeManager } from "../prober/manager.js";
import { ProberMetrics } from "../prober/metrics.js";
import { ProbeHistory, type ProbeHistoryEntry } from "../prober/probe-history.js";
import { probeTypeLabel } from "../prober/probe-type.js";
import type { Runtime } from "../runtime/runtime.js";
import { StatusManager } from "../status/status-manager.js";
import { systemClock, type Clock } from "../util/clock.js";
import { silentLogger, type Logger } from "../util/logger.js";
import { ApiError, type AgentApi, type KubeEvent, type LogRequest, type WatchEvent } from "./agent-api.js";
import { AgentMetrics } from "./agent-metrics.js";
import { formatGoDuration } from "../probe/go-duration.js";
import { formatRuntimeErrors, RuntimeState, SYNC_LOOP_HEALTH_THRESHOLD_MS } from "./runtime-state.js";
import { RestartBackoff, type BackoffOptions } from "./backoff.js";
import { EventStore } from "./kube-events.js";
import { readContainerLog } from "./container-logs.js";
import { allContainers, PodSyncer, type PodRecord } from "./pod-sync.js";
import { podUidFor } from "./pod-uid.js";
import { PodWorker } from "./pod-worker.js";
import { StateStore } from "./state-store.js";
import { LABEL_POD_UID } from "./pod-sync.js";
import { collectContainerGarbage, CONTAINER_GC_PERIOD_MS, type GcReport } from "./container-gc.js";
import { agentIdFor, ownedBy } from "./agent-id.js";

/** TERMINATE_RETRY_DELAY_MS is the pause before a failed pod termination is tried again. */
const TERMINATE_RETRY_DELAY_MS = 1000;

/** AgentOptions configure an Agent. */
export interface AgentOptions {
  runtime: Runtime;
  /** Directory for container logs and agent state. */
  stateDir: string;
  clock?: Clock;
  logger?: Logger;
  /** How often the runtime's containers are relisted to find pods to sync (the kubelet's PLEG period: 1 s). */
  resyncIntervalMs?: number;
  /** How often every pod is synced regardless (the kubelet's syncFrequency: 1 min). */
  fullResyncIntervalMs?: number;
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
}

/** AdmitResult is the outcome of admitting one manifest pod. */
export type AdmitResult = { ok: true; pod: Pod } | { ok: false; name: string; errors: string[] };

/** Agent runs pods on one runtime with the kubelet's lifecycle. */
export class Agent implements AgentApi {
  readonly probeManager: ProbeManager;
  readonly statusManager: StatusManager;
  readonly events: EventStore;
  readonly proberMetrics = new ProberMetrics();
  /** The last probes of every worker (beyond the kubelet: `describe` and `explain` show them). */
  private readonly history = new ProbeHistory();
  private readonly metrics: AgentMetrics;
  private readonly syncer: PodSyncer;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly runtime: Runtime;
  private readonly workers = new Map<string, PodWorker>();
  private readonly podWatchers = new Set<(e: WatchEvent<Pod>) => void>();
  private readonly published = new Map<string, string>();
  /** The last relist's container signature per sandbox. */
  private readonly relisted = new Map<string, string>();
  private readonly stop = new AbortController();
  private loop: Promise<void> | undefined;
  /** The container garbage collection in progress, if any. */
  private gcRun: Promise<void> | undefined;
  /** Root of the pods' log directories: `<logRoot>/<namespace>_<name>_<uid>/<container>/<attempt>.log`. */
  private readonly logRoot: string;
  /** The owner label value of what this agent creates in the runtime (agent-id.ts). */
  private readonly agentId: string;
  private lastResync = 0;
  private readonly runtimeState = new RuntimeState();
  /** Since when pod syncs are skipped because the runtime is down (undefined while it is up). */
  private runtimeDownSince: number | undefined;
  /** A sync was skipped while the runtime was down: every pod is synced once it is back. */
  private syncsSkipped = false;
  private readonly store: StateStore;
  /** Statuses saved by a previous agent, by pod UID; consumed when the pod is admitted again. */
  private saved = new Map<string, Pod["status"]>();
  /** Set by close/destroy/detach: pods that end now are not deleted from the saved state. */
  private closing = false;

  constructor(private readonly options: AgentOptions) {
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger;
    // Every pod waiting out a restart back-off listens on the stop signal: no listener limit.
    setMaxListeners(0, this.stop.signal);
    this.runtime = options.runtime;
    this.logRoot = `${options.stateDir}/pods`;
    this.agentId = agentIdFor(options.stateDir);
    const nodeName = options.nodeName ?? hostname();
    this.events = new EventStore(this.clock, nodeName);
    this.metrics = new AgentMetrics();
    this.statusManager = new StatusManager({ clock: this.clock, podLookup: { getPodByUid: (uid) => this.workers.get(uid)?.record.pod }, logger: this.logger });
    const runner = fullIdRunner(this.runtime);
    this.probeManager = new ProbeManager({
      statusProvider: this.statusManager,
      runner,
      recorder: this.events,
      clock: this.clock,
      logger: this.logger,
      metrics: this.proberMetrics,
      onProbe: (worker, record) => {
        this.history.record(worker, record);
        const cpu = record.outcome?.cpuSeconds;
        if (cpu !== undefined) this.metrics.observeExecProbeCpu(probeTypeLabel(record.probeType), cpu);
      },
      ...(options.probeCloseMode ? { proberOptions: { closeMode: options.probeCloseMode } } : {}),
    });
    this.syncer = new PodSyncer({
      runtime: this.runtime,
      runner,
      probeManager: this.probeManager,
      statusManager: this.statusManager,
      events: this.events,
      backoff: new RestartBackoff(this.clock, options.backoff),
      clock: this.clock,
      logger: this.logger.child("sync"),
      logRoot: this.logRoot,
      hostIP: options.hostIP ?? "127.0.0.1",
      nodeName,
      agentId: this.agentId,
    });
    this.store = new StateStore(options.stateDir, this.logger.child("state"));
    this.wireProbeReactions();
    this.statusManager.subscribe((uid) => this.publishPod(uid));
  }

  /** wireProbeReactions mirrors syncLoopIteration: liveness failures sync; readiness/startup write status then sync. */
  private wireProbeReactions(): void {
    const pm = this.probeManager;
    pm.livenessManager.subscribe((u) => {
      if (u.result === "Failure") this.handleProbeSync(u.podUid);
    });
    pm.readinessManager.subscribe((u) => {
      this.statusManager.setContainerReadiness(u.podUid, u.containerId, u.result === "Success");
      this.handleProbeSync(u.podUid);
    });
    pm.startupManager.subscribe((u) => {
      this.statusManager.setContainerStartup(u.podUid, u.containerId, u.result === "Success");
      this.handleProbeSync(u.podUid);
    });
  }

  /** handleProbeSync syncs the pod by UID if the agent still has it (stale updates are ignored). */
  private handleProbeSync(uid: string): void {
    this.workers.get(uid)?.queueSync();
  }

  /** start launches the periodic resync loop. Idempotent. */
  start(): void {
    this.loop ??= this.resyncLoop();
  }

  /**
   * restore loads what a previous agent saved in the state directory: the last status of every
   * pod (so containers that kept running keep their readiness and restart counts) and the pods
   * that were created through the API (which are admitted again). Call before adding manifests.
   */
  async restore(): Promise<void> {
    this.saved = await this.store.loadStatuses();
    for (const pod of await this.store.loadApiPods()) {
      const result = this.admit(pod, "api", pod.metadata.uid);
      if (!result.ok) this.logger.warn("Dropping a saved API pod that no longer validates", { pod: result.name, errors: result.errors });
    }
  }

  /**
   * cleanupOrphans stops and removes sandboxes this agent labelled for pods it no longer has
   * (kubelet HandlePodCleanups). Call once the pod sources have been loaded. Another agent's
   * sandboxes in a shared runtime are left alone.
   */
  async cleanupOrphans(): Promise<void> {
    for (const sandbox of await this.runtime.listPodSandboxes()) {
      const uid = sandbox.labels[LABEL_POD_UID];
      if (uid === undefined || this.workers.has(uid) || !ownedBy(sandbox.labels, this.agentId)) continue;
      this.logger.info("Removing an orphaned pod sandbox", { pod: sandbox.name, podUID: uid, sandbox: sandbox.id });
      await this.runtime.stopPodSandbox(sandbox.id).catch(() => undefined);
      await this.runtime.removePodSandbox(sandbox.id).catch(() => undefined);
      void this.store.forgetPod(uid);
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
      await this.relist();
      if (this.noteRuntimeState(now)) {
        if (this.syncsSkipped || now - lastFull >= fullEvery) {
          this.syncsSkipped = false;
          lastFull = now;
          for (const worker of this.workers.values()) worker.queueSync();
        }
        // Off the loop (it does file I/O): relists go on meanwhile; one collection at a time.
        if (now - lastGc >= gcEvery && this.gcRun === undefined) {
          lastGc = now;
          this.gcRun = this.collectGarbage()
            .then(() => undefined, (err: unknown) => this.logger.warn("Container garbage collection failed", { err: err instanceof Error ? err.message : String(err) }))
            .finally(() => (this.gcRun = undefined));
        }
      }
      this.metrics.observePods([...this.workers.values()].map((w) => this.statusManager.getPodStatus(w.record.pod.metadata.uid ?? "")));
      await this.clock.sleep(period, this.stop.signal);
    }
  }

  /**
   * collectGarbage runs one container garbage collection now (kubelet containerGC.GarbageCollect):
   * dead containers beyond the newest per container and their logs, and everything left of pods
   * the agent no longer has. The resync loop runs it every containerGcIntervalMs.
   */
  collectGarbage(): Promise<GcReport> {
    return collectContainerGarbage({ runtime: this.runtime, logRoot: this.logRoot, agentId: this.agentId, isPodKnown: (uid) => this.workers.has(uid), logger: this.logger.child("gc") });
  }

  /** noteRuntimeState logs the runtime going down or coming back and reports whether pods may sync. */
  private noteRuntimeState(now: number): boolean {
    const errors = this.runtimeState.errors(now);
    if (errors.length === 0) {
      if (this.runtimeDownSince !== undefined) this.logger.warn("Container runtime is up again; syncing every pod", { downFor: formatGoDuration(now - this.runtimeDownSince) });
      this.runtimeDownSince = undefined;
      return true;
    }
    if (this.runtimeDownSince === undefined) {
      this.runtimeDownSince = now;
      this.logger.error("Skipping pod synchronization", { err: formatRuntimeErrors(errors), cause: this.runtimeState.lastErrorMessage });
    }
    return false;
  }

  /** relist syncs the pods whose containers appeared, vanished or changed state since the last relist. */
  private async relist(): Promise<void> {
    let infos;
    try {
      infos = await this.runtime.relistContainers();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (message !== this.runtimeState.lastErrorMessage) this.logger.warn("Relisting containers failed", { err: message });
      this.runtimeState.failed(message);
      return;
    }
    this.runtimeState.synced(this.clock.now());
    const seen = new Map<string, string>();
    for (const info of infos) seen.set(info.podSandboxId, `${seen.get(info.podSandboxId) ?? ""}${info.id}:${info.state};`);
    for (const worker of this.workers.values()) {
      const sandbox = worker.record.sandboxId;
      if (sandbox === undefined) continue;
      const now = seen.get(sandbox) ?? "";
      if (this.relisted.get(sandbox) !== now) {
        this.relisted.set(sandbox, now);
        worker.queueSync();
      }
    }
  }

  /** requeue syncs a pod again once a restart back-off ends (kubelet pod workers requeue after errors). */
  private requeue(record: PodRecord, delayMs: number): void {
    const at = this.clock.now() + delayMs;
    if (record.requeueAt !== undefined && record.requeueAt <= at && record.requeueAt > this.clock.now()) return;
    record.requeueAt = at;
    const uid = record.pod.metadata.uid ?? "";
    void this.clock.sleep(delayMs, this.stop.signal).then(() => {
      if (record.requeueAt === at) record.requeueAt = undefined;
      this.workers.get(uid)?.queueSync();
    });
  }

  /**
   * admit validates a decoded pod and starts it. Manifest pods get a UID derived from their
   * source and content; an existing pod of the same name from the same source is replaced
   * when its content changed (static pod semantics).
   */
  admit(input: Pod, source: string, uid?: string): AdmitResult {
    const checked = defaultAndValidatePod(input);
    const name = input.metadata?.name ?? "";
    if (!checked.ok) return { ok: false, name, errors: formatFieldErrors(checked.errors) };
    const pod = checked.pod;
    pod.metadata.uid = uid ?? (source === "api" ? randomUUID() : podUidFor(pod, source));
    pod.metadata.creationTimestamp ??= new Date(this.clock.now()).toISOString().replace(/\.\d+Z$/, "Z");
    const existing = this.findWorker(pod.metadata.namespace ?? "default", pod.metadata.name ?? "");
    if (existing) {
      if (existing.record.pod.metadata.uid === pod.metadata.uid) return { ok: true, pod: existing.record.pod };
      if (existing.record.source !== source) return { ok: false, name, errors: [`pods "${name}" already exists (from ${existing.record.source})`] };
      void this.deleteRecord(existing, undefined);
    }
    const record: PodRecord = { pod, source, podIP: "", startTime: this.clock.now(), imageWarned: new Set(), startErrors: new Map() };
    const worker = new PodWorker(record, {
      sync: async (r) => {
        // kubelet syncLoop: no pod is synced while runtimeErrors() reports anything.
        if (this.runtimeState.errors(this.clock.now()).length > 0) {
          this.syncsSkipped = true;
          return;
        }
        r.backoffRemainingMs = undefined;
        await this.metrics.timeSync(r.pod.metadata.uid ?? "", () => this.syncer.sync(r));
        if (r.backoffRemainingMs !== undefined) this.requeue(r, r.backoffRemainingMs);
      },
      terminate: (r, grace) => this.syncer.terminate(r, grace),
      terminated: (r) => this.forget(r),
      shorten: (r, grace) => void this.shortenTermination(r, grace),
      retryDelay: () => this.clock.sleep(TERMINATE_RETRY_DELAY_MS),
      logger: this.logger,
    });
    this.workers.set(pod.metadata.uid, worker);
    const saved = this.saved.get(pod.metadata.uid);
    this.metrics.podSeen(pod.metadata.uid, record.startTime, saved);
    if (saved) {
      // The previous agent's view seeds the status manager, as the API server's copy seeds a
      // restarted kubelet: readiness and restart counts carry over for containers still running.
      this.saved.delete(pod.metadata.uid);
      this.statusManager.setPodStatus(pod, saved);
    }
    if (source === "api") void this.saveApiPods();
    this.emitPod("ADDED", pod);
    worker.queueSync();
    return { ok: true, pod };
  }

  /** removeSource deletes every pod from a source whose UID is not in `keep` (a manifest changed or vanished). */
  removeSource(source: string, keep: ReadonlySet<string> = new Set()): void {
    for (const worker of [...this.workers.values()]) {
      if (worker.record.source === source && !keep.has(worker.record.pod.metadata.uid ?? "")) void this.deleteRecord(worker, undefined);
    }
  }

  private findWorker(namespace: string, name: string): PodWorker | undefined {
    for (const w of this.workers.values()) {
      if (!w.terminating && w.record.pod.metadata.namespace === namespace && w.record.pod.metadata.name === name) return w;
    }
    return undefined;
  }

  /** deleteRecord starts graceful deletion (kubelet: deletionTimestamp + grace, then SyncTerminatingPod). */
  private deleteRecord(worker: PodWorker, gracePeriodSeconds: number | undefined): Promise<void> {
    const pod = worker.record.pod;
    const grace = gracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds ?? 30;
    if (!worker.terminating) {
      worker.record.pod = {
        ...pod,
        metadata: { ...pod.metadata, deletionTimestamp: new Date(this.clock.now()).toISOString().replace(/\.\d+Z$/, "Z"), deletionGracePeriodSeconds: grace },
      };
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

  private forget(record: PodRecord): void {
    const uid = record.pod.metadata.uid ?? "";
    this.workers.delete(uid);
    this.published.delete(uid);
    if (!this.closing) {
      // A deleted pod is gone for good; an agent shutdown keeps its desired state for next time.
      void this.store.forgetPod(uid);
      if (record.source === "api") void this.saveApiPods();
    }
    const gone = this.withStatus(record.pod);
    this.statusManager.removePod(uid);
    this.history.forget(uid);
    this.metrics.forgetPod(uid, record.pod.metadata.namespace ?? "", record.pod.metadata.name ?? "", allContainers(record.pod).map((c) => c.name));
    this.emitPod("DELETED", gone);
  }

  private withStatus(pod: Pod): Pod {
    const status = this.statusManager.getPodStatus(pod.metadata.uid ?? "");
    return { apiVersion: "v1", kind: "Pod", ...pod, status: status ? structuredClone(status) : { phase: "Pending" } };
  }

  private publishPod(uid: string): void {
    const worker = this.workers.get(uid);
    if (!worker) return;
    const pod = this.withStatus(worker.record.pod);
    const text = JSON.stringify(pod);
    if (this.published.get(uid) === text) return;
    this.published.set(uid, text);
    if (pod.status) {
      this.metrics.observeRestarts(pod.metadata.namespace ?? "", pod.metadata.name ?? "", pod.status);
      this.metrics.observeStartup(uid, pod.status, this.clock.now());
      // An agent shutdown keeps the last running status for the next agent, not the final one its
      // own termination of the pods publishes (that would leave the restored pod terminal).
      if (!this.closing) this.store.saveStatus(uid, pod.status);
    }
    this.emitPod("MODIFIED", pod);
  }

  private emitPod(type: WatchEvent<Pod>["type"], pod: Pod): void {
    for (const listener of this.podWatchers) listener({ type, object: type === "ADDED" ? this.withStatus(pod) : pod });
  }

  private async saveApiPods(): Promise<void> {
    const pods = [...this.workers.values()].filter((w) => w.record.source === "api" && !w.terminating).map((w) => w.record.pod);
    await this.store.saveApiPods(pods).catch((err: unknown) => this.logger.warn("Cannot save API pods", { err }));
  }

  // ---- AgentApi ----

  listPods(namespace?: string): Pod[] {
    return [...this.workers.values()]
      .map((w) => w.record.pod)
      .filter((p) => namespace === undefined || p.metadata.namespace === namespace)
      .sort((a, b) => `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace}/${b.metadata.name}`))
      .map((p) => this.withStatus(p));
  }

  getPod(namespace: string, name: string): Pod {
    for (const w of this.workers.values()) {
      const p = w.record.pod;
      if (p.metadata.namespace === namespace && p.metadata.name === name) return this.withStatus(p);
    }
    throw new ApiError("NotFound", `pods "${name}" not found`);
  }

  createPod(input: unknown, namespace?: string): Pod {
    const errs: string[] = [];
    const decoded = decodeValue(podSchema, input, "", errs) as Pod;
    if (errs.length > 0) throw new ApiError("BadRequest", `Pod in version "v1" cannot be handled as a Pod: ${errs.join("; ")}`);
    if (namespace !== undefined) decoded.metadata = { ...decoded.metadata, namespace: decoded.metadata?.namespace ?? namespace };
    const name = decoded.metadata?.name ?? "";
    const checked = defaultAndValidatePod(decoded);
    if (!checked.ok) {
      throw new ApiError(
        "Invalid",
        formatInvalidObject("Pod", name, checked.errors),
        checked.errors.map((e) => ({ field: e.field, message: formatFieldErrorBody(e), reason: `FieldValue${e.type}` })),
      );
    }
    if (this.findWorker(checked.pod.metadata.namespace ?? "default", name)) throw new ApiError("AlreadyExists", `pods "${name}" already exists`);
    const admitted = this.admit(checked.pod, "api");
    if (!admitted.ok) throw new ApiError("Invalid", admitted.errors.join("; "));
    return this.withStatus(admitted.pod);
  }

  deletePod(namespace: string, name: string, gracePeriodSeconds?: number): Pod {
    const worker = [...this.workers.values()].find((w) => w.record.pod.metadata.namespace === namespace && w.record.pod.metadata.name === name);
    if (!worker) throw new ApiError("NotFound", `pods "${name}" not found`);
    void this.deleteRecord(worker, gracePeriodSeconds);
    return this.withStatus(worker.record.pod);
  }

  /** deletePodAndWait deletes a pod and resolves once it is gone (tests, CLI). */
  async deletePodAndWait(namespace: string, name: string, gracePeriodSeconds?: number): Promise<void> {
    const worker = [...this.workers.values()].find((w) => w.record.pod.metadata.namespace === namespace && w.record.pod.metadata.name === name);
    if (worker) await this.deleteRecord(worker, gracePeriodSeconds);
  }

  listEvents(namespace?: string, involvedName?: string): KubeEvent[] {
    return this.events.list(namespace, involvedName);
  }

  watchPods(listener: (event: WatchEvent<Pod>) => void): () => void {
    this.podWatchers.add(listener);
    return () => this.podWatchers.delete(listener);
  }

  watchEvents(listener: (event: WatchEvent<KubeEvent>) => void): () => void {
    return this.events.watch(listener);
  }

  readLogs(request: LogRequest): AsyncIterable<string> {
    const pod = this.getPod(request.namespace, request.name);
    const worker = this.workers.get(pod.metadata.uid ?? "")!;
    return readContainerLog(this.runtime, worker.record, request, pod.status, this.clock);
  }

  probeHistory(namespace: string, name: string): ProbeHistoryEntry[] {
    return this.history.list(this.getPod(namespace, name).metadata.uid ?? "");
  }

  probeMetrics(): Promise<string> {
    return this.proberMetrics.registry.metrics();
  }

  agentMetrics(): Promise<string> {
    return this.metrics.registry.metrics();
  }

  /**
   * healthz fails when the agent is stopping, when its loop has stalled (10 relist periods + 5 s),
   * or when pod syncs have been skipped for 5 minutes because the runtime is down (the kubelet's
   * syncloop check: max(2 × syncFrequency, 5 min)).
   */
  healthz(): { ok: boolean; message: string } {
    if (this.stop.signal.aborted) return { ok: false, message: "agent is shutting down" };
    const now = this.clock.now();
    const period = this.options.resyncIntervalMs ?? 1000;
    const behind = now - this.lastResync;
    if (behind > period * 10 + 5000) return { ok: false, message: `sync loop is stale: last resync ${behind} ms ago` };
    const skippedFor = this.runtimeDownSince === undefined ? 0 : now - this.runtimeDownSince;
    if (skippedFor >= SYNC_LOOP_HEALTH_THRESHOLD_MS) {
      return { ok: false, message: `pod synchronization skipped for ${formatGoDuration(skippedFor)}: ${formatRuntimeErrors(this.runtimeState.errors(now))}` };
    }
    return { ok: true, message: "ok" };
  }

  /** runtimeErrors lists, in the kubelet's words, why pods are not being synced; empty while the runtime is up. */
  runtimeErrors(): string[] {
    return this.runtimeState.errors(this.clock.now());
  }

  /** close stops every pod gracefully (each with its own grace period), then the probe workers. Idempotent. */
  async close(gracePeriodSeconds?: number): Promise<void> {
    this.closing = true;
    this.stop.abort();
    await Promise.all([...this.workers.values()].map((w) => this.deleteRecord(w, gracePeriodSeconds)));
    await this.probeManager.close();
    await this.loop;
    await this.gcRun;
    await this.store.idle();
  }

  /**
   * detach stops the agent but leaves every container running, for a later agent with the same
   * state directory to adopt (only runtimes whose containers outlive the agent: CRI, and the
   * process runtime with its supervisor helper).
   */
  async detach(): Promise<void> {
    this.closing = true;
    this.stop.abort();
    await Promise.all([...this.workers.values()].map((w) => w.idle()));
    await this.probeManager.close();
    await this.loop;
    await this.gcRun;
    await this.store.idle();
  }

  /** destroy kills every pod at once (a second signal): no grace, no preStop. */
  async destroy(): Promise<void> {
    this.closing = true;
    this.stop.abort();
    await Promise.all(
      [...this.workers.values()].map(async (w) => {
        if (w.record.sandboxId) await this.runtime.stopPodSandbox(w.record.sandboxId).catch(() => undefined);
        await this.deleteRecord(w, 0);
      }),
    );
    await this.probeManager.close();
    await this.loop;
    await this.gcRun;
  }
}

/** fullIdRunner adapts a runtime to CommandRunner calls made with "<type>://<id>" container IDs. */
function fullIdRunner(runtime: Runtime): CommandRunner {
  const prefix = `${runtime.type}://`;
  return {
    runInContainer: (id, argv, options) => runtime.runInContainer(id.startsWith(prefix) ? id.slice(prefix.length) : id, argv, options),
  };
}
