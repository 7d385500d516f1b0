// Open long-lived responses (watches, followed logs): each gets an AbortSignal that fires when
// the client goes away or the server closes, and close() can end them all at once.
import type { ServerResponse } from "node:http";

/** StreamTracker owns the abort controllers of every open streaming response. */
export class StreamTracker {
  private readonly open = new Map<ServerResponse, AbortController>();

  /**
   * start registers a streaming response and returns its signal. The signal aborts when the
   * response closes (client disconnect, or the stream ended) or when abortAll() is called; the
   * stream's owner then stops producing and ends the response.
   */
  start(res: ServerResponse): AbortSignal {
    const controller = new AbortController();
    this.open.set(res, controller);
    res.once("close", () => {
      this.open.delete(res);
      controller.abort(new Error("the client closed the stream"));
    });
    return controller.signal;
  }

  /**
   * abortAll asks every open stream to end and resolves once each response has closed, or
   * after `patience` resolves (a client that stops reading cannot hold the server open).
   */
  async abortAll(patience: Promise<void>): Promise<void> {
    // Every response still in the map has not emitted "close" yet.
    const closed = [...this.open.keys()].map((res) => new Promise<void>((resolve) => res.once("close", () => resolve())));
    for (const controller of this.open.values()) controller.abort(new Error("the server is closing"));
    await Promise.race([Promise.all(closed), patience]);
  }

  /** size is the number of open streams. */
  get size(): number {
    return this.open.size;
  }
}
