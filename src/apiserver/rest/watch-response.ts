// A watch as the API server streams it: headers flushed at once, then one JSON object per line
// ({"type":"ADDED|MODIFIED|DELETED|BOOKMARK|ERROR","object":…}) from the store's watch, with
// periodic BOOKMARK events when the client allows them, an end after timeoutSeconds, and a too
// old resourceVersion reported as an ERROR event carrying a 410 Expired Status (the watch
// cache's errWatcher).
import type { ServerResponse } from "node:http";
import { JSON_CONTENT_TYPE } from "../endpoints/respond.js";
import { statusForError } from "../error-status.js";
import { IN_BACKGROUND, type Clock } from "../../util/clock.js";
import type { Logger } from "../../util/logger.js";
import type { KubeObject, ObjectStore, StoreEvent } from "../storage/object-store.js";
import { StoreError } from "../storage/store-errors.js";
import type { ObjectFilter } from "./selector-adapter.js";

/** MAX_WATCH_BUFFER_BYTES bounds what a watch client may leave unread before it is dropped. */
export const MAX_WATCH_BUFFER_BYTES = 8 * 1024 * 1024;

/** WatchRequest is one watch to stream. */
export interface WatchRequest {
  resource: string;
  kind: string;
  namespace: string | undefined;
  filter: ObjectFilter | undefined;
  /** Replay changes after this; undefined or 0 starts with every current object as ADDED. */
  fromResourceVersion: number | undefined;
  allowBookmarks: boolean;
  bookmarkIntervalMs: number;
  /** End the watch after this long (timeoutSeconds). */
  timeoutMs: number | undefined;
  /** Shapes each object for the wire (a one-row Table, or the object itself). */
  render: (object: KubeObject) => unknown;
}

/**
 * serveResourceWatch streams a watch until the client goes (signal), the timeout passes or the
 * client stops reading. Store callbacks never throw back into the store.
 */
export function serveResourceWatch(res: ServerResponse, signal: AbortSignal, store: ObjectStore, request: WatchRequest, clock: Clock, logger: Logger): Promise<void> {
  res.socket?.setTimeout(0);
  res.writeHead(200, { "Content-Type": JSON_CONTENT_TYPE, "Cache-Control": "no-cache, private", "Transfer-Encoding": "chunked" });
  res.flushHeaders();
  let lastSent = request.fromResourceVersion ?? 0;
  const write = (type: string, object: unknown): void => {
    if (signal.aborted || res.destroyed || res.writableEnded) return;
    res.write(`${JSON.stringify({ type, object })}\n`);
    if (res.writableLength > MAX_WATCH_BUFFER_BYTES) {
      logger.warn("Dropping a watch client that does not read", { bufferedBytes: res.writableLength });
      res.destroy();
    }
  };
  const send = (event: StoreEvent): void => {
    try {
      lastSent = Math.max(lastSent, event.resourceVersion);
      write(event.type, request.render(event.object));
    } catch (err) {
      logger.warn("Ending a watch that could not encode an event", { err });
      res.destroy();
    }
  };
  const bookmark = (): void => {
    write("BOOKMARK", { kind: request.kind, apiVersion: "v1", metadata: { resourceVersion: String(Math.max(lastSent, Number(store.resourceVersion))) } });
  };

  let stop: () => void = () => undefined;
  try {
    stop = store.watch(request.resource, {
      ...(request.namespace !== undefined ? { namespace: request.namespace } : {}),
      ...(request.filter !== undefined ? { filter: request.filter } : {}),
      ...(request.fromResourceVersion !== undefined ? { fromResourceVersion: request.fromResourceVersion } : {}),
    }, send);
  } catch (err) {
    if (!(err instanceof StoreError)) throw err;
    write("ERROR", statusForError(err));
    res.end();
    return Promise.resolve();
  }

  return new Promise((resolve) => {
    const timers = new AbortController();
    const finish = (): void => {
      timers.abort();
      stop();
      if (!res.destroyed && !res.writableEnded) res.end();
      resolve();
    };
    if (request.allowBookmarks) {
      void (async () => {
        while (!timers.signal.aborted) {
          await clock.sleep(request.bookmarkIntervalMs, timers.signal, IN_BACKGROUND);
          if (!timers.signal.aborted) bookmark();
        }
      })();
    }
    if (request.timeoutMs !== undefined) {
      void clock.sleep(request.timeoutMs, timers.signal).then(() => {
        if (timers.signal.aborted) return;
        if (request.allowBookmarks) bookmark();
        finish();
      });
    }
    if (signal.aborted) finish();
    else signal.addEventListener("abort", finish, { once: true });
  });
}
