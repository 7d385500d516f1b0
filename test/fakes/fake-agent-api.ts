// FakeAgentApi: an AgentApi for tests of the status server and the CLI. Objects live in a real
// ObjectStore (what the REST layer serves); tests drive it with addPod/updatePod/removePod/
// recordEvent, and logs and probe histories live in maps. It records which pods the API created
// and which deletions it started, read from the store's own watch.
import { ApiError, type AgentApi, type KubeEvent, type LogRequest, type WatchEvent } from "../../src/apiserver/endpoints/host-interface.js";
import type { Pod } from "../../src/api/types.js";
import { containerNotRunning, podNotFound, type ExecStatus } from "../../src/apiserver/exec/exec-status.js";
import type { ExecContainer, PodSandboxTarget } from "../../src/apiserver/exec/handle-exec.js";
import { startLocalApiServer } from "../../src/apiserver/local-api-server.js";
import { ObjectStore } from "../../src/apiserver/storage/object-store.js";
import { collapseRuns, type HistoryQuery, type ProbeHistoryEntry, type ProbeHistoryRange, type ProbeHistorySegment } from "../../src/prober/probe-history.js";
import type { ProbeType } from "../../src/prober/probe-type.js";
import type { ContainerInstance } from "../../src/api/container-instance.js";
import { systemClock } from "../../src/util/clock.js";
import { FixedNowClock } from "./fake-clock.js";

/** FAKE_TIME is the timestamp the fake writes everywhere (creation, log lines). */
export const FAKE_TIME = "2026-01-01T00:00:00Z";

/** FAKE_NODE is the node the fake agent runs as. */
export const FAKE_NODE = "node-a";

interface LogLine {
  time: string;
  text: string;
}

type Follower = () => void;

const key = (...parts: string[]): string => parts.join("/");


/** FakeAgentApi implements AgentApi over a real store; tests drive it with addPod/updatePod/recordEvent/appendLog. */
export class FakeAgentApi implements AgentApi {
  /** The store, with its namespace controller running on the system clock. */
  readonly store: ObjectStore = startLocalApiServer(systemClock, new ObjectStore(new FixedNowClock(Date.parse(FAKE_TIME)))).store;
  readonly nodeName = FAKE_NODE;
  /** Pods created through the API and deletions started through it (grace as stored), read from the store. */
  readonly calls = {
    createPod: [] as { input: Pod; namespace: string | undefined }[],
    deletePod: [] as { namespace: string; name: string; gracePeriodSeconds: number | undefined }[],
    readLogs: [] as Omit<LogRequest, "signal">[],
    triggerProbe: [] as { namespace: string; name: string; container: string | undefined; probeType: ProbeType }[],
  };
  /** What healthz answers. */
  health = { ok: true, message: "ok" };
  /** What the metrics methods resolve with (or reject with, when set to an Error). */
  probeMetricsText: string | Error = "# HELP prober_probe_total Cumulative number of a liveness, readiness or startup probe for a container by result.\n";
  agentMetricsText: string | Error = "# HELP probelet_pods Number of pods the agent runs.\nprobelet_pods 0\n";
  /** Log readers that are still iterating (for cleanup assertions). */
  activeLogReaders = 0;

  private readonly logs = new Map<string, LogLine[]>();
  private readonly probes = new Map<string, ProbeHistoryEntry[]>();
  private readonly instances = new Map<string, ContainerInstance[]>();
  /** What triggerProbe answers, by "ns/name/container/probeType" (container "" when not given). */
  readonly triggerAnswers = new Map<string, ProbeHistoryEntry | ApiError>();
  private readonly followers = new Set<Follower>();
  private readonly watchers = { pods: 0, events: 0 };
  /** The store's own watches (namespace controller, the fake's bookkeeping), left out of watcherCount. */
  private readonly baseline: { pods: number; events: number };
  private addingDirectly = false;

  constructor() {
    this.store.watch<Pod>("pods", {}, (e) => {
      const { namespace = "", name = "", deletionTimestamp, deletionGracePeriodSeconds } = e.object.metadata;
      if (e.type === "ADDED" && !this.addingDirectly) this.calls.createPod.push({ input: e.object, namespace });
      const deletionChanged = deletionTimestamp !== undefined && (e.previous?.metadata.deletionGracePeriodSeconds !== deletionGracePeriodSeconds);
      if (e.type === "MODIFIED" && deletionChanged) this.calls.deletePod.push({ namespace, name, gracePeriodSeconds: deletionGracePeriodSeconds });
      if (e.type === "DELETED" && e.previous?.metadata.deletionTimestamp === undefined && !this.addingDirectly) this.calls.deletePod.push({ namespace, name, gracePeriodSeconds: 0 });
    });
    this.baseline = { pods: this.store.watcherCount("pods"), events: this.store.watcherCount("events") };
  }

  /** watcherCount is the number of open pod and event watches of clients (the store's own excluded). */
  watcherCount(): { pods: number; events: number } {
    return { pods: this.store.watcherCount("pods") - this.baseline.pods - this.watchers.pods, events: this.store.watcherCount("events") - this.baseline.events - this.watchers.events };
  }

  /** addPod stores a pod as-is, bound to the fake node (namespace defaults to "default"), and returns it. */
  addPod(pod: Pod): Pod {
    const stored: Pod = { apiVersion: "v1", kind: "Pod", ...structuredClone(pod) };
    stored.metadata.namespace ??= "default";
    stored.spec = { ...stored.spec, nodeName: stored.spec.nodeName ?? FAKE_NODE };
    this.addingDirectly = true;
    try {
      return structuredClone(this.store.create("pods", stored, { keepUid: true }));
    } finally {
      this.addingDirectly = false;
    }
  }

  /** updatePod changes a stored pod (a MODIFIED change). */
  updatePod(namespace: string, name: string, change: (pod: Pod) => void): void {
    this.store.modify<Pod>("pods", namespace, name, (pod) => {
      const next = structuredClone(pod);
      change(next);
      return next;
    });
  }

  /** removePod deletes a pod from the store. */
  removePod(namespace: string, name: string): void {
    this.addingDirectly = true;
    try {
      this.store.delete("pods", namespace, name);
    } finally {
      this.addingDirectly = false;
    }
  }

  /** recordEvent stores an event (metadata.namespace from the involved object). */
  recordEvent(event: Omit<KubeEvent, "apiVersion" | "kind" | "metadata"> & { metadata?: KubeEvent["metadata"] }): KubeEvent {
    const { metadata, ...rest } = event;
    const namespace = metadata?.namespace ?? event.involvedObject.namespace ?? "default";
    const count = this.store.list("events").items.length;
    const stored: KubeEvent = { apiVersion: "v1", kind: "Event", metadata: { name: `${event.involvedObject.name ?? "x"}.${count}`, namespace, ...metadata }, ...rest };
    return structuredClone(this.store.create("events", stored));
  }

  /** appendLog adds lines to a container's current log and wakes followers. */
  appendLog(namespace: string, name: string, container: string, ...lines: string[]): void {
    const log = this.logs.get(key(namespace, name, container)) ?? [];
    for (const text of lines) log.push({ time: FAKE_TIME, text });
    this.logs.set(key(namespace, name, container), log);
    for (const wake of [...this.followers]) wake();
  }

  /** recordProbe appends an entry to a pod's probe history. */
  recordProbe(namespace: string, name: string, entry: ProbeHistoryEntry): void {
    this.mustGet(namespace, name);
    const list = this.probes.get(key(namespace, name)) ?? [];
    list.push(entry);
    this.probes.set(key(namespace, name), list);
  }

  /** listPods returns the stored pods, optionally of one namespace. */
  listPods(namespace?: string): Pod[] {
    return this.store.list<Pod>("pods", namespace === undefined ? {} : { namespace }).items.map((p) => structuredClone(p));
  }

  /** getPod returns one stored pod. */
  getPod(namespace: string, name: string): Pod {
    return structuredClone(this.mustGet(namespace, name));
  }

  /** watchPods calls back on every later pod change (tests use it to play the node's part); returns the unsubscribe function. */
  watchPods(listener: (event: WatchEvent<Pod>) => void): () => void {
    this.watchers.pods++;
    const stop = this.store.watch<Pod>("pods", { fromResourceVersion: Number(this.store.resourceVersion) }, (e) => listener({ type: e.type, object: e.object }));
    return () => {
      stop();
      this.watchers.pods--;
    };
  }

  /** readLogs validates at the first next() (as an async generator does), then yields lines; follow waits for appendLog. */
  async *readLogs(request: LogRequest): AsyncIterable<string> {
    const { signal, ...rest } = request;
    this.calls.readLogs.push(rest);
    const pod = this.mustGet(request.namespace, request.name);
    const names = pod.spec.containers.map((c) => c.name);
    const container = request.container ?? (names.length === 1 ? names[0] : undefined);
    if (container === undefined) {
      throw new ApiError("BadRequest", `a container name must be specified for pod ${request.name}, choose one of: [${names.join(" ")}]`);
    }
    const initNames = (pod.spec.initContainers ?? []).map((c) => c.name);
    if (!names.includes(container) && !initNames.includes(container)) throw new ApiError("BadRequest", `container ${container} is not valid for pod ${request.name}`);
    const logKey = key(request.namespace, request.name, container) + (request.previous === true ? "/previous" : "");
    this.activeLogReaders++;
    try {
      const all = this.logs.get(logKey) ?? [];
      let sent = request.tailLines === undefined ? 0 : Math.max(0, all.length - request.tailLines);
      for (;;) {
        const log = this.logs.get(logKey) ?? [];
        while (sent < log.length) {
          const line = log[sent++]!;
          yield request.timestamps === true ? `${line.time} ${line.text}` : line.text;
        }
        if (request.follow !== true || signal?.aborted === true) return;
        await this.nextAppend(signal);
      }
    } finally {
      this.activeLogReaders--;
    }
  }

  probeHistory(namespace: string, name: string): ProbeHistoryEntry[] {
    this.mustGet(namespace, name);
    return structuredClone(this.probes.get(key(namespace, name)) ?? []);
  }

  /** probeHistoryRuns collapses the stored probes into runs, per container and probe type, as the agent does. */
  probeHistoryRuns(namespace: string, name: string): ProbeHistorySegment[] {
    const byWorker = new Map<string, ProbeHistoryEntry[]>();
    for (const e of this.probeHistory(namespace, name)) byWorker.set(`${e.container}/${e.probeType}`, [...(byWorker.get(`${e.container}/${e.probeType}`) ?? []), e]);
    return [...byWorker.values()].flatMap((entries) => collapseRuns(entries)).sort((a, b) => a.end.localeCompare(b.end));
  }

  /** probeHistoryRange serves the stored probes within the range (the fake keeps no segments). */
  probeHistoryRange(namespace: string, name: string, query: HistoryQuery): ProbeHistoryRange {
    const items = this.probeHistory(namespace, name).filter((e) => Date.parse(e.time) >= (query.since ?? -Infinity) && Date.parse(e.time) <= (query.until ?? Infinity) && (query.container === undefined || e.container === query.container) && (query.probeType === undefined || e.probeType === query.probeType));
    return { items, segments: [] };
  }

  /**
   * triggerProbe answers with triggerAnswers' entry (or throws its error) for "ns/name/container/type";
   * an unknown key is a NotFound, as for a pod without that probe.
   */
  triggerProbe(namespace: string, name: string, container: string | undefined, probeType: ProbeType): Promise<ProbeHistoryEntry> {
    this.mustGet(namespace, name);
    this.calls.triggerProbe.push({ namespace, name, container, probeType });
    const answer = this.triggerAnswers.get(key(namespace, name, container ?? "", probeType));
    if (answer === undefined) return Promise.reject(new ApiError("NotFound", `pod "${name}" has no ${probeType} probe`));
    return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(structuredClone(answer));
  }

  /** recordInstance adds a container instance to a pod's log. */
  recordInstance(namespace: string, name: string, instance: ContainerInstance): void {
    this.mustGet(namespace, name);
    const list = this.instances.get(key(namespace, name)) ?? [];
    list.push(instance);
    this.instances.set(key(namespace, name), list);
  }

  containerInstances(namespace: string, name: string): ContainerInstance[] {
    this.mustGet(namespace, name);
    return structuredClone(this.instances.get(key(namespace, name)) ?? []);
  }

  /** probeHistoryWindowMs is the default window (24 h). */
  readonly probeHistoryWindowMs = 24 * 3600_000;

  /** probeMetrics resolves with probeMetricsText (rejects if it is an Error). */
  probeMetrics(): Promise<string> {
    return typeof this.probeMetricsText === "string" ? Promise.resolve(this.probeMetricsText) : Promise.reject(this.probeMetricsText);
  }

  /** agentMetrics resolves with agentMetricsText (rejects if it is an Error). */
  agentMetrics(): Promise<string> {
    return typeof this.agentMetricsText === "string" ? Promise.resolve(this.agentMetricsText) : Promise.reject(this.agentMetricsText);
  }

  healthz(): { ok: boolean; message: string } {
    return { ...this.health };
  }

  /** execContainer finds no runtime in the fake: a known pod's exec is refused as not running. */
  execContainer(namespace: string, name: string, container?: string): ExecContainer | ExecStatus {
    const pod = this.store.get<Pod>("pods", namespace, name);
    if (pod === undefined) return podNotFound(name);
    return containerNotRunning(container ?? pod.spec.containers[0]?.name ?? "");
  }

  /** podSandbox finds no sandbox in the fake: every pod is refused as not found. */
  podSandbox(_namespace: string, name: string): PodSandboxTarget | ExecStatus {
    return podNotFound(name);
  }

  private mustGet(namespace: string, name: string): Pod {
    const pod = this.store.get<Pod>("pods", namespace, name);
    if (pod === undefined) throw new ApiError("NotFound", `pods "${name}" not found`);
    return pod;
  }

  private nextAppend(signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        this.followers.delete(done);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      this.followers.add(done);
      signal?.addEventListener("abort", done, { once: true });
    });
  }
}
