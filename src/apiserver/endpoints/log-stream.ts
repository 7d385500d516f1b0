// Container logs over HTTP (kubectl logs): text/plain, written as the log's iterator yields
// chunks; with follow the response stays open until the client disconnects or the server closes.
import type { ServerResponse } from "node:http";
import { once } from "node:events";
import type { LogRequest } from "./host-interface.js";
import type { Logger } from "../../util/logger.js";
import { cutStream, TEXT_CONTENT_TYPE } from "./respond.js";

type Step = { done: true } | { done: false; value: string } | { failed: unknown };

/**
 * serveLogs streams `log` (text chunks, newlines included) to res; request.signal must abort
 * when the client goes away or the server closes (the agent's reader stops with it).
 *
 * Errors the agent reports before producing anything (unknown pod or container: ApiError) are
 * thrown before any header is written, so the caller can still answer with a Status. Only an
 * error that settles within the current turn of the event loop counts as "before": a followed,
 * empty log must not hold back the response headers. Once streaming, an error cuts the
 * connection, which is how a client learns the log is incomplete.
 */
export async function serveLogs(res: ServerResponse, log: AsyncIterable<string>, request: LogRequest & { signal: AbortSignal }, logger: Logger): Promise<void> {
  const { signal } = request;
  const iterator = log[Symbol.asyncIterator]();
  let pending = nextStep(iterator);
  const early = await Promise.race([pending, afterPendingIo()]);
  if (early !== undefined && "failed" in early) throw early.failed;

  if (request.follow === true) res.socket?.setTimeout(0);
  res.writeHead(200, { "Content-Type": TEXT_CONTENT_TYPE, "Cache-Control": "no-cache, private" });
  res.flushHeaders();
  let cut = false;
  try {
    for (;;) {
      const step = await untilAborted(pending, signal);
      if (step === undefined) return;
      if ("failed" in step) {
        logger.warn("Log stream failed", { namespace: request.namespace, pod: request.name, err: step.failed });
        cut = true;
        cutStream(res);
        return;
      }
      if (step.done) return;
      if (!res.write(step.value)) await once(res, "drain", { signal }).catch(() => undefined);
      if (signal.aborted) return;
      pending = nextStep(iterator);
    }
  } finally {
    // Let the agent release its reader; it may still be settling a next() we no longer await.
    try {
      void Promise.resolve(iterator.return?.()).catch(() => undefined);
    } catch {
      // An iterator whose return() throws has nothing left to release.
    }
    if (!cut && !res.destroyed && !res.writableEnded) res.end();
  }
}

function nextStep(iterator: AsyncIterator<string>): Promise<Step> {
  return iterator.next().then(
    (r): Step => (r.done === true ? { done: true } : { done: false, value: String(r.value) }),
    (failed: unknown): Step => ({ failed }),
  );
}

/** afterPendingIo resolves after the current turn of the event loop (settled promises win the race). */
function afterPendingIo(): Promise<undefined> {
  return new Promise((resolve) => setImmediate(() => resolve(undefined)));
}

/** untilAborted resolves with the step, or undefined as soon as signal aborts (no lingering listener). */
function untilAborted(step: Promise<Step>, signal: AbortSignal): Promise<Step | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const onAbort = (): void => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    void step.then((s) => {
      signal.removeEventListener("abort", onAbort);
      resolve(s);
    });
  });
}
