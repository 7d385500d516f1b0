// The differential suite's recorder: a watch on the pods and one on the events of a namespace,
// through the API server as the cluster admin, keeping every stored pod status and every event
// occurrence with the time it arrived (performance.now, milliseconds).
import { performance } from "node:perf_hooks";
import type { RestClient } from "../../src/client/rest-client.js";
import { eventKey, fieldPaths, NOT_COMPARED_EVENTS, podState, stateKey, type Json, type JsonObject, type Side } from "./normalize.js";
import type { EventSample, Recording, StatusSample } from "./timeline-compare.js";

/** RawPodSample is a pod as one watch event delivered it. */
interface RawPodSample {
  at: number;
  pod: JsonObject;
  deleted: boolean;
}

/** RawEventSample is an event and the occurrences this delivery added. */
interface RawEventSample {
  at: number;
  event: JsonObject;
  occurrences: number;
}

/** MAX_SAMPLES bounds what one pod keeps (a crash loop stores a few dozen). */
const MAX_SAMPLES = 5000;
/** WATCH_REOPENS bounds how often one watch is opened again after it ended. */
const WATCH_REOPENS = 200;

function obj(v: Json | undefined): JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? v : {};
}

/** NamespaceRecorder records one node's namespace. */
export class NamespaceRecorder {
  private readonly pods = new Map<string, RawPodSample[]>();
  private readonly events = new Map<string, RawEventSample[]>();
  private readonly eventCounts = new Map<string, number>();
  private readonly abort = new AbortController();
  private readonly watches: Promise<void>[] = [];
  /** Watch failures, for the report (a recording with a gap is not trusted silently). */
  readonly errors: string[] = [];

  constructor(private readonly client: RestClient, readonly side: Side) {}

  /** start lists then watches pods and events; resolves once both watches are open. */
  async start(): Promise<void> {
    const ns = encodeURIComponent(this.side.namespace);
    const opened = [
      this.follow(`/api/v1/namespaces/${ns}/pods`, (type, o) => this.onPod(type, o)),
      this.follow(`/api/v1/namespaces/${ns}/events`, (type, o) => this.onEvent(type, o)),
    ];
    await Promise.all(opened.map((o) => o.opened));
    this.watches.push(...opened.map((o) => o.done));
  }

  /** stop ends the watches. */
  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.allSettled(this.watches);
  }

  /** follow lists `path`, then watches it from the list's resourceVersion, opening it again when it ends. */
  private follow(path: string, onEvent: (type: string, object: JsonObject) => void): { opened: Promise<void>; done: Promise<void> } {
    let markOpened: () => void = () => undefined;
    const opened = new Promise<void>((resolve) => (markOpened = resolve));
    const done = (async () => {
      const list = await this.client.request<JsonObject>("GET", path, { signal: this.abort.signal });
      let rv = String(obj(list["metadata"])["resourceVersion"] ?? "");
      for (const item of Array.isArray(list["items"]) ? list["items"] : []) onEvent("ADDED", obj(item));
      for (let i = 0; i < WATCH_REOPENS && !this.abort.signal.aborted; i++) {
        const watching = this.client.watch(`${path}?watch=1&allowWatchBookmarks=true&timeoutSeconds=600&resourceVersion=${encodeURIComponent(rv)}`, (event) => {
          const object = obj(event.object as Json);
          const version = obj(object["metadata"])["resourceVersion"];
          if (typeof version === "string") rv = version;
          if (event.type === "ERROR") {
            this.errors.push(`${path}: watch error ${JSON.stringify(object).slice(0, 200)}`);
            return;
          }
          if (event.type !== "BOOKMARK") onEvent(event.type, object);
        }, this.abort.signal);
        if (i === 0) markOpened();
        await watching.catch((err: unknown) => {
          if (!this.abort.signal.aborted) this.errors.push(`${path}: ${err instanceof Error ? err.message : String(err)}`);
        });
      }
    })();
    done.catch((err: unknown) => {
      this.errors.push(`${path}: ${err instanceof Error ? err.message : String(err)}`);
      markOpened();
    });
    return { opened, done: done.catch(() => undefined) };
  }

  private onPod(type: string, pod: JsonObject): void {
    const metadata = obj(pod["metadata"]);
    const name = String(metadata["name"] ?? "");
    if (typeof metadata["uid"] === "string") this.side.uids.add(metadata["uid"]);
    const samples = this.pods.get(name) ?? [];
    if (samples.length < MAX_SAMPLES) samples.push({ at: performance.now(), pod, deleted: type === "DELETED" });
    this.pods.set(name, samples);
  }

  private onEvent(type: string, event: JsonObject): void {
    const involved = obj(event["involvedObject"]);
    if (involved["kind"] !== "Pod") return;
    const name = String(involved["name"] ?? "");
    const id = String(obj(event["metadata"])["name"] ?? "");
    const count = typeof event["count"] === "number" ? event["count"] : 1;
    const before = this.eventCounts.get(id) ?? 0;
    this.eventCounts.set(id, Math.max(before, count));
    const occurrences = type === "ADDED" ? count : Math.max(0, count - before);
    if (occurrences === 0) return;
    const samples = this.events.get(name) ?? [];
    if (samples.length < MAX_SAMPLES) samples.push({ at: performance.now(), event, occurrences });
    this.events.set(name, samples);
  }

  /** recording is what this namespace stored for pod `name`, timed from `t0` (performance.now) over `windowMs`. */
  recording(name: string, t0: number, windowMs: number): Recording {
    const statuses: StatusSample[] = (this.pods.get(name) ?? []).filter((s) => s.at - t0 <= windowMs).map((s) => {
      const status = obj(s.pod["status"]);
      const restarts: Record<string, number> = {};
      for (const list of [status["initContainerStatuses"], status["containerStatuses"]]) {
        for (const c of Array.isArray(list) ? list : []) {
          const cs = obj(c);
          restarts[String(cs["name"])] = typeof cs["restartCount"] === "number" ? cs["restartCount"] : 0;
        }
      }
      const ready = (Array.isArray(status["conditions"]) ? status["conditions"] : []).map(obj).find((c) => c["type"] === "Ready");
      return {
        t: s.at - t0,
        key: s.deleted ? "deleted" : stateKey(podState(s.pod, this.side)),
        ready: typeof ready?.["status"] === "string" ? ready["status"] : "",
        restarts,
        phase: typeof status["phase"] === "string" ? status["phase"] : "",
        deleted: s.deleted,
        fields: s.deleted ? [] : fieldPaths(status as Json),
      };
    });
    const events: EventSample[] = (this.events.get(name) ?? [])
      .filter((e) => e.at - t0 <= windowMs)
      .map((e) => ({ t: e.at - t0, key: eventKey(e.event, this.side), occurrences: e.occurrences }))
      .filter((e) => !NOT_COMPARED_EVENTS.some((re) => re.test(e.key)));
    return { statuses, events, windowMs };
  }

  /** lastPod is the latest copy of pod `name` the watch delivered. */
  lastPod(name: string): JsonObject | undefined {
    return this.pods.get(name)?.at(-1)?.pod;
  }
}
