// What every handler of the status server gets for one request, and the route table's types.
// Handlers and the route table both depend on this file, never on each other.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AgentApi } from "./host-interface.js";
import type { Clock } from "../../util/clock.js";
import type { Logger } from "../../util/logger.js";
import type { ErrorSubject } from "../error-status.js";
import type { StreamTracker } from "./stream-tracker.js";

/** RequestContext is what a handler gets for one request. */
export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  /** Decoded path parameters (":ns" → params.ns). */
  params: Record<string, string>;
  query: URLSearchParams;
  api: AgentApi;
  streams: StreamTracker;
  logger: Logger;
  clock: Clock;
  /** How often a watch that allows bookmarks gets one (the API server: about a minute). */
  bookmarkIntervalMs: number;
  /** Handlers set subject.name so a failure's Status names the object (details.name). */
  subject: ErrorSubject;
}

/** Handler serves one method on one route; it answers through ctx.res or throws (StatusError, StoreError, …). */
export type Handler = (ctx: RequestContext) => void | Promise<void>;

/** Route is one path pattern ("/api/v1/namespaces/:ns/pods/:name") and its handlers by method. */
export interface Route {
  pattern: string;
  methods: Readonly<Partial<Record<string, Handler>>>;
}
