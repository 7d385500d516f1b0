// Watch responses as the API server streams them: one JSON object per line,
// {"type":"ADDED|MODIFIED|DELETED","object":{…}}, first the current objects as ADDED, then every
// change, until the client disconnects or the server closes.
import type { ServerResponse } from "node:http";
import type { WatchEvent } from "../agent/agent-api.js";
import type { Logger } from "../util/logger.js";
import { JSON_CONTENT_TYPE } from "./respond.js";

/** MAX_WATCH_BUFFER_BYTES bounds what a watch client may leave unread before it is dropped. */
export const MAX_WATCH_BUFFER_BYTES = 8 * 1024 * 1024;

/** WatchSource is what one watch request streams. */
export interface WatchSource<T> {
  /** The objects that exist now, sent first as ADDED. */
  list(): T[];
  /** subscribe registers for changes and returns the unsubscribe function. */
  subscribe(listener: (event: WatchEvent<T>) => void): () => void;
  /** matches keeps only the objects this request asked for (namespace, field selector). */
  matches(object: T): boolean;
  /** render shapes an object for the wire (e.g. adds kind and apiVersion). */
  render(object: T): unknown;
}

/**
 * serveWatch streams a watch on res until signal aborts (see StreamTracker). The snapshot and
 * the subscription happen in one synchronous step, so no change between them is lost.
 * A client that lets more than MAX_WATCH_BUFFER_BYTES pile up unread is disconnected rather
 * than allowed to grow the server's memory.
 */
export function serveWatch<T>(res: ServerResponse, signal: AbortSignal, source: WatchSource<T>, logger: Logger): Promise<void> {
  // Listed before any header goes out, so a failing list still becomes a Status.
  const initial = source.list();
  // A watch may be quiet for a long time: the per-request idle timeout does not apply.
  res.socket?.setTimeout(0);
  res.writeHead(200, { "Content-Type": JSON_CONTENT_TYPE, "Cache-Control": "no-cache, private" });
  res.flushHeaders();

  // Called from the agent's notification loop: it must never throw back into the agent.
  const send = (event: WatchEvent<T>): void => {
    if (signal.aborted || res.destroyed || res.writableEnded) return;
    try {
      if (!source.matches(event.object)) return;
      res.write(`${JSON.stringify({ type: event.type, object: source.render(event.object) })}\n`);
    } catch (err) {
      logger.warn("Ending a watch that could not encode an event", { err });
      res.destroy();
      return;
    }
    if (res.writableLength > MAX_WATCH_BUFFER_BYTES) {
      logger.warn("Dropping a watch client that does not read", { bufferedBytes: res.writableLength });
      res.destroy();
    }
  };

  for (const object of initial) send({ type: "ADDED", object });
  const unsubscribe = source.subscribe(send);

  return new Promise((resolve) => {
    const finish = (): void => {
      unsubscribe();
      if (!res.destroyed && !res.writableEnded) res.end();
      resolve();
    };
    if (signal.aborted) finish();
    else signal.addEventListener("abort", finish, { once: true });
  });
}
