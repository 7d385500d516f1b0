// client-go's reflector (tools/cache/reflector.go ListAndWatch) for one collection: list, then
// watch from the list's resourceVersion with bookmarks and a random 5–10 min timeout; a watch
// the server ends (or that is cut) is opened again from the last resourceVersion seen, a 410
// Gone / Expired relists, and every other error backs off (800 ms doubling to 30 s, jitter)
// without touching what was listed before. The pod source and the per-object ConfigMap and
// Secret caches run on it.
import { IN_BACKGROUND, type Clock } from "../util/clock.js";
import type { Logger } from "../util/logger.js";
import { ApiStatusError, type RestClient, type ApiWatchEvent } from "../client/rest-client.js";
import { Backoff, REFLECTOR_BACKOFF } from "./retry-backoff.js";

/** MIN_WATCH_TIMEOUT_SECONDS is the shortest watch the reflector asks for (a random 5–10 min). */
const MIN_WATCH_TIMEOUT_SECONDS = 300;

/** ListedObject is what a reflector needs of an object: its metadata. */
export interface ListedObject {
  metadata: { resourceVersion?: string };
}

/** ReflectorOptions configure a Reflector. */
export interface ReflectorOptions<T extends ListedObject> {
  client: RestClient;
  clock: Clock;
  logger: Logger;
  /** The collection with its query, e.g. `/api/v1/pods?fieldSelector=spec.nodeName%3Dn`. */
  path: string;
  /** What is listed, for log lines (client-go names the type: `*v1.Pod`). */
  what: string;
  /** replace takes a whole list (client-go Store.Replace). */
  replace(items: T[]): void;
  /** apply takes one ADDED, MODIFIED or DELETED event. */
  apply(type: "ADDED" | "MODIFIED" | "DELETED", object: T): void;
  random?: () => number;
}

/** Reflector keeps a local copy of a collection in step with the API server. */
export class Reflector<T extends ListedObject> {
  private resourceVersion = "";
  private readonly backoff: Backoff;

  constructor(private readonly options: ReflectorOptions<T>) {
    this.backoff = new Backoff(REFLECTOR_BACKOFF, options.random);
  }

  /** run lists and watches until the signal aborts; errors back off and retry, they never end the loop. */
  async run(signal: AbortSignal): Promise<void> {
    const { clock, logger, what } = this.options;
    while (!signal.aborted) {
      try {
        if (this.resourceVersion === "") await this.list(signal);
        // The list may have been all its owner needed (an immutable object stops its reflector).
        if (!signal.aborted) await this.watch(signal);
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof ApiStatusError && (err.code === 410 || err.reason === "Expired" || err.reason === "Gone")) {
          logger.info(`Watch of ${what} closed: resource version too old, relisting`, { err: err.message });
          this.resourceVersion = "";
          continue;
        }
        const wait = this.backoff.failed(clock.now());
        logger.warn(`Failed to list or watch ${what}`, { err: err instanceof Error ? err.message : String(err), retryIn: `${Math.round(wait)}ms` });
        await clock.sleep(wait, signal, IN_BACKGROUND);
      }
    }
  }

  private async list(signal: AbortSignal): Promise<void> {
    const list = await this.options.client.request<{ metadata?: { resourceVersion?: string }; items?: T[] }>("GET", this.options.path, { signal });
    this.options.replace(list.items ?? []);
    this.resourceVersion = list.metadata?.resourceVersion ?? "";
    this.backoff.reset();
  }

  private async watch(signal: AbortSignal): Promise<void> {
    const timeout = Math.floor(MIN_WATCH_TIMEOUT_SECONDS * (1 + (this.options.random ?? Math.random)()));
    const path = `${this.options.path}${this.options.path.includes("?") ? "&" : "?"}watch=true&allowWatchBookmarks=true&timeoutSeconds=${timeout}&resourceVersion=${encodeURIComponent(this.resourceVersion)}`;
    let failure: ApiStatusError | undefined;
    await this.options.client.watch(path, (event) => {
      if (failure === undefined) failure = this.handle(event);
    }, signal);
    if (failure !== undefined) throw failure;
  }

  /** handle applies one watch event; an ERROR event is returned as the error it carries. */
  private handle(event: ApiWatchEvent): ApiStatusError | undefined {
    const object = event.object as unknown as T & { code?: number; reason?: string; message?: string };
    if (event.type === "ERROR") return new ApiStatusError(object.code ?? 500, object.reason ?? "", object.message ?? "watch error");
    const rv = object.metadata?.resourceVersion;
    if (rv !== undefined) this.resourceVersion = rv;
    if (event.type !== "BOOKMARK") this.options.apply(event.type, object);
    return undefined;
  }
}
