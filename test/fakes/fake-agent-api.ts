// FakeAgentApi: an in-memory AgentApi for tests of the status server and the CLI. It keeps pods,
// events and container logs in maps, notifies watchers synchronously, records every mutating
// call, and answers with the ApiError texts the real agent uses (docs/http-api.md).
import { ApiError, type AgentApi, type KubeEvent, type LogRequest, type WatchEvent } from "../../src/agent/agent-api.js";
import { formatFieldErrorBody, formatInvalidObject, invalid, required, type FieldError } from "../../src/api/field-errors.js";
import type { Pod } from "../../src/api/types.js";
import type { ProbeHistoryEntry } from "../../src/prober/probe-history.js";

/** FAKE_TIME is the timestamp the fake writes everywhere (creation, deletion, log lines). */
export const FAKE_TIME = "2026-01-01T00:00:00Z";

interface LogLine {
  time: string;
  text: string;
}

type Follower = () => void;

const key = (...parts: string[]): string => parts.join("/");

/** FakeAgentApi implements AgentApi in memory; tests drive it with addPod/updatePod/recordEvent/appendLog. */
export class FakeAgentApi implements AgentApi {
  /** Recorded createPod/deletePod/readLogs calls, in order. */
  readonly calls = {
    createPod: [] as { input: unknown; namespace: string | undefined }[],
    deletePod: [] as { namespace: string; name: string; gracePeriodSeconds: number | undefined }[],
    readLogs: [] as Omit<LogRequest, "signal">[],
  };
  /** What healthz answers. */
  health = { ok: true, message: "ok" };
  /** What the metrics methods resolve with (or reject with, when set to an Error). */
  probeMetricsText: string | Error = "# HELP prober_probe_total Cumulative number of a liveness, readiness or startup probe for a container by result.\n";
  agentMetricsText: string | Error = "# HELP probelet_pods Number of pods the agent runs.\nprobelet_pods 0\n";
  /** Log readers that are still iterating (for cleanup assertions). */
  activeLogReaders = 0;

  private readonly pods = new Map<string, Pod>();
  private readonly events: KubeEvent[] = [];
  private readonly logs = new Map<string, LogLine[]>();
  private readonly probes = new Map<string, ProbeHistoryEntry[]>();
  private readonly podWatchers = new Set<(e: WatchEvent<Pod>) => void>();
  private readonly eventWatchers = new Set<(e: WatchEvent<KubeEvent>) => void>();
  private readonly followers = new Set<Follower>();
  private uidSequence = 0;

  /** watcherCount is the number of subscribed pod and event watchers. */
  watcherCount(): { pods: number; events: number } {
    return { pods: this.podWatchers.size, events: this.eventWatchers.size };
  }

  /** addPod stores a pod as-is (namespace defaults to "default") and notifies ADDED. */
  addPod(pod: Pod): Pod {
    const stored = structuredClone(pod);
    stored.metadata.namespace ??= "default";
    this.pods.set(key(stored.metadata.namespace, stored.metadata.name ?? ""), stored);
    this.notifyPods("ADDED", stored);
    return structuredClone(stored);
  }

  /** updatePod changes a stored pod and notifies MODIFIED. */
  updatePod(namespace: string, name: string, change: (pod: Pod) => void): void {
    const pod = this.mustGet(namespace, name);
    change(pod);
    this.notifyPods("MODIFIED", pod);
  }

  /** removePod forgets a pod and notifies DELETED. */
  removePod(namespace: string, name: string): void {
    const pod = this.mustGet(namespace, name);
    this.pods.delete(key(namespace, name));
    this.notifyPods("DELETED", pod);
  }

  /** recordEvent stores an event (metadata.namespace from the involved object) and notifies ADDED. */
  recordEvent(event: Omit<KubeEvent, "apiVersion" | "kind" | "metadata"> & { metadata?: KubeEvent["metadata"] }): KubeEvent {
    const { metadata, ...rest } = event;
    const namespace = metadata?.namespace ?? event.involvedObject.namespace ?? "default";
    const stored: KubeEvent = {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: `${event.involvedObject.name ?? "x"}.${this.events.length}`, namespace, ...metadata },
      ...rest,
    };
    this.events.push(stored);
    for (const listener of [...this.eventWatchers]) listener({ type: "ADDED", object: structuredClone(stored) });
    return stored;
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

  listPods(namespace?: string): Pod[] {
    return [...this.pods.values()]
      .filter((p) => namespace === undefined || p.metadata.namespace === namespace)
      .sort((a, b) => key(a.metadata.namespace ?? "", a.metadata.name ?? "").localeCompare(key(b.metadata.namespace ?? "", b.metadata.name ?? "")))
      .map((p) => structuredClone(p));
  }

  getPod(namespace: string, name: string): Pod {
    return structuredClone(this.mustGet(namespace, name));
  }

  createPod(input: unknown, namespace?: string): Pod {
    this.calls.createPod.push({ input: structuredClone(input), namespace });
    const pod = structuredClone(input) as Pod;
    const errors = validate(pod);
    const name = (pod.metadata as Pod["metadata"] | undefined)?.name ?? "";
    if (errors.length > 0) {
      const causes = errors.map((e) => ({ reason: `FieldValue${e.type}`, message: formatFieldErrorBody(e), field: e.field }));
      throw new ApiError("Invalid", formatInvalidObject("Pod", name, errors), causes);
    }
    const ns = namespace ?? pod.metadata.namespace ?? "default";
    if (this.pods.has(key(ns, name))) throw new ApiError("AlreadyExists", `pods "${name}" already exists`);
    pod.metadata = { ...pod.metadata, namespace: ns, uid: `fake-uid-${++this.uidSequence}`, creationTimestamp: FAKE_TIME };
    pod.status = { phase: "Pending" };
    return this.addPod(pod);
  }

  deletePod(namespace: string, name: string, gracePeriodSeconds?: number): Pod {
    this.calls.deletePod.push({ namespace, name, gracePeriodSeconds });
    const pod = this.mustGet(namespace, name);
    pod.metadata.deletionTimestamp = FAKE_TIME;
    pod.metadata.deletionGracePeriodSeconds = gracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds ?? 30;
    this.notifyPods("MODIFIED", pod);
    return structuredClone(pod);
  }

  listEvents(namespace?: string, involvedName?: string): KubeEvent[] {
    return this.events
      .filter((e) => namespace === undefined || e.metadata.namespace === namespace)
      .filter((e) => involvedName === undefined || e.involvedObject.name === involvedName)
      .map((e) => structuredClone(e));
  }

  watchPods(listener: (event: WatchEvent<Pod>) => void): () => void {
    this.podWatchers.add(listener);
    return () => this.podWatchers.delete(listener);
  }

  watchEvents(listener: (event: WatchEvent<KubeEvent>) => void): () => void {
    this.eventWatchers.add(listener);
    return () => this.eventWatchers.delete(listener);
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

  private mustGet(namespace: string, name: string): Pod {
    const pod = this.pods.get(key(namespace, name));
    if (pod === undefined) throw new ApiError("NotFound", `pods "${name}" not found`);
    return pod;
  }

  private notifyPods(type: WatchEvent<Pod>["type"], pod: Pod): void {
    for (const listener of [...this.podWatchers]) listener({ type, object: structuredClone(pod) });
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

// A small stand-in for the agent's validation: the name is required and a liveness or startup
// probe's successThreshold must be 1 (validation.go), enough to produce 422s with causes.
function validate(pod: Partial<Pod>): FieldError[] {
  const errors: FieldError[] = [];
  if (pod.metadata?.name === undefined || pod.metadata.name === "") errors.push(required("metadata.name", "name or generateName is required"));
  (pod.spec?.containers ?? []).forEach((c, i) => {
    for (const field of ["livenessProbe", "startupProbe"] as const) {
      const threshold = c[field]?.successThreshold;
      if (threshold !== undefined && threshold !== 1) errors.push(invalid(`spec.containers[${i}].${field}.successThreshold`, threshold, "must be 1"));
    }
  });
  return errors;
}
