// The agent's status API over HTTP (node:http, no framework): binding rules (a loopback or,
// with TLS, any TCP address, or a Unix socket), authentication, routing, metav1.Status errors,
// request logging, bounded connections and timeouts against slow or hostile clients
// (connection-guard.ts), and a close() that ends open watch and log streams before closing
// every socket.
import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { AgentApi } from "../apiserver/endpoints/host-interface.js";
import { joinHostPort } from "../probe/address.js";
import { systemClock, type Clock } from "../util/clock.js";
import { silentLogger, type Logger } from "../util/logger.js";
import { BearerAuthenticator, isLoopbackHost, parseListenAddress } from "./auth.js";
import { ConnectionBudget, LISTENER_TIMEOUTS, processConnectionBudget } from "./connection-guard.js";
import { sendStatus } from "../apiserver/endpoints/respond.js";
import type { RequestContext } from "../apiserver/endpoints/request-context.js";
import { malformedEscape, matchRoute } from "./routes.js";
import { badRequestStatus, failureStatus, methodNotAllowedStatus, notFoundStatus, StatusError, unauthorizedStatus } from "../apiserver/endpoints/status-object.js";
import { statusForError } from "../apiserver/error-status.js";
import { listenOnSocket } from "../util/unix-socket.js";
import { StreamTracker } from "../apiserver/endpoints/stream-tracker.js";
import type { Duplex } from "node:stream";
import { handleExec } from "../apiserver/exec/handle-exec.js";
import { refuseUpgrade } from "../apiserver/exec/websocket.js";

/** EXEC_PATH is the one path served over a connection upgrade. */
const EXEC_PATH = /^\/api\/v1\/namespaces\/[^/]+\/pods\/[^/]+\/exec$/;

/** SOCKET_SCHEME prefixes a Unix socket's path in a listen address ("unix:/state/agent.sock"). */
export const SOCKET_SCHEME = "unix:";

/** StatusServerOptions configure startStatusServer; the timeouts have production defaults. */
export interface StatusServerOptions {
  /**
   * "host:port", e.g. "127.0.0.1:10255" or "[::1]:0" (port 0 picks a free port), or
   * "unix:PATH", a Unix socket (made 0600; the caller keeps it in a directory only its owner
   * can enter, and removes a stale one first).
   */
  listen: string;
  /**
   * Bearer token every request but GET /healthz must present; required to listen on a
   * non-loopback address. `probelet run` always sets one (docs/security.md).
   */
  token?: string;
  /** Serve HTTPS with this certificate and key (PEM); required to listen on a non-loopback address. */
  tls?: { cert: Buffer; key: Buffer };
  /** Requests wait for this before they are routed (the agent restoring its pods); /healthz does not. */
  ready?: Promise<void>;
  logger?: Logger;
  /** Measures request durations for the debug log and bounds close(). */
  clock?: Clock;
  /** Time a client has to send the request headers (default 10 s; answered with 408). */
  headersTimeoutMs?: number;
  /** Time a client has to send the whole request, body included (default 30 s; 408). */
  requestTimeoutMs?: number;
  /** Socket inactivity allowed while a non-streaming request is served (default 60 s). */
  idleTimeoutMs?: number;
  /** How often a watch that allows bookmarks gets a BOOKMARK event (default 60 s, as the API server). */
  bookmarkIntervalMs?: number;
  /** How long close() waits for ended streams to flush before cutting sockets (default 1 s). */
  closeGraceMs?: number;
  /** The URL a browser opens the console at, when not this server's own (the Unix socket's HTTP sibling). */
  consoleUrl?: string;
  /**
   * The web console's gate, which the composer hands in (the run command:
   * src/console/console-gate.ts consoleGateFactory, over the sessions its listeners share); none:
   * the server has no console routes and no console sessions.
   */
  consoleGate?: FrontGateFactory;
}

/** FrontGateRequest is what a front gate sees of one request. */
export interface FrontGateRequest {
  req: IncomingMessage;
  res: ServerResponse;
  path: string;
  query: URLSearchParams;
  /** The request carries the API's bearer token (or the server has none). */
  bearer: boolean;
  /** The request carries a session the gate authenticated. */
  session: boolean;
  api: AgentApi;
}

/**
 * FrontGate is a set of routes in front of the API with sessions of their own (the web console):
 * it says whether a request's session opens the API for reading and answers its own routes.
 */
export interface FrontGate {
  /** listening tells the gate the URL a browser reaches it at, and the listener's port. */
  listening(url: string, port: number): void;
  /** authenticates reports whether the request carries a live session of the gate. */
  authenticates(req: IncomingMessage): boolean;
  /** handle answers the request when it is one of the gate's routes (true), else leaves it (false). */
  handle(request: FrontGateRequest): boolean;
  /** mayWrite reports whether a session may make this write (a session reads, and writes only what its gate allows). */
  mayWrite(req: IncomingMessage, path: string): boolean;
}

/** FrontGateFactory makes a listener's front gate; secure: the listener serves TLS. */
export type FrontGateFactory = (clock: Clock, secure: boolean) => Promise<FrontGate>;

/** StatusServer is a running status server. */
export interface StatusServer {
  /** The bound address (the real port when 0 was asked for). */
  address: { host: string; port: number };
  /** Base URL, e.g. "http://127.0.0.1:10255", "http://[::1]:41234", "https://0.0.0.0:10250" or "unix:/state/agent.sock". */
  url: string;
  /** close stops accepting, ends watch and log streams, closes all sockets; idempotent. */
  close(): Promise<void>;
}

/** HEALTHZ_PATH answers without authentication, as liveness checks of the agent need. */
const HEALTHZ_PATH = "/healthz";

/** SECRET_ROUTE matches the routes of Secrets, which a console session may not read. */
const SECRET_ROUTE = /\/secrets(\/|$)/;

/** A Unix socket's own bounds: its owner's clients only, so no source is told from another. */
const SOCKET_LIMITS = { maxUnproven: 64, maxUnprovenPerSource: 64, maxTotal: 256 };

/**
 * startStatusServer serves api over HTTP on options.listen. It rejects with an Error for a
 * malformed address, for a non-loopback address without a token and TLS, and when listening fails
 * (e.g. EADDRINUSE).
 */
export async function startStatusServer(api: AgentApi, options: StatusServerOptions): Promise<StatusServer> {
  const socketPath = options.listen.startsWith(SOCKET_SCHEME) ? options.listen.slice(SOCKET_SCHEME.length) : undefined;
  if (socketPath !== undefined && (!socketPath.startsWith("/") || options.tls !== undefined)) {
    throw new Error(`invalid listen address "${options.listen}": a Unix socket needs an absolute path, and is served without TLS`);
  }
  const { host, port } = socketPath === undefined ? parseListenAddress(options.listen) : { host: "", port: 0 };
  if (socketPath === undefined && (options.token === undefined || options.tls === undefined) && !isLoopbackHost(host)) {
    throw new Error(
      `refusing to serve the status API on non-loopback address "${options.listen}" without a token and TLS: ` +
        `listen on 127.0.0.1 or [::1], or set a bearer token and a serving certificate`,
    );
  }
  const auth = options.token === undefined ? undefined : new BearerAuthenticator(options.token);
  const logger = (options.logger ?? silentLogger).child("server");
  const clock = options.clock ?? systemClock;
  const requestTimeout = options.requestTimeoutMs ?? LISTENER_TIMEOUTS.requestTimeoutMs;
  const headersTimeout = Math.min(options.headersTimeoutMs ?? LISTENER_TIMEOUTS.headersTimeoutMs, requestTimeout);
  const idleTimeout = options.idleTimeoutMs ?? 60_000;
  // Bounded connections (connection-guard.ts): TCP listeners share the process's budget; a Unix
  // socket, which only its owner can reach, has one of its own.
  const budget = socketPath === undefined ? processConnectionBudget(logger) : new ConnectionBudget(SOCKET_LIMITS, logger);
  const streams = new StreamTracker();
  const consoleGate = options.consoleGate === undefined ? undefined : await options.consoleGate(clock, options.tls !== undefined);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = clock.monotonic();
    const { path, query } = splitRequestUrl(req.url ?? "/");
    res.once("close", () => {
      const ms = Math.round(clock.monotonic() - started);
      logger.debug("HTTP request", { method: req.method, path, status: res.statusCode, ms });
    });
    // Go's url.ParseRequestURI refuses a malformed escape before any handler (or authentication) runs.
    const badEscape = malformedEscape(path);
    if (badEscape !== undefined) return sendStatus(res, badRequestStatus(`invalid URL escape ${JSON.stringify(badEscape)}`));
    req.socket.setTimeout(idleTimeout);
    const health = path === HEALTHZ_PATH;
    const bearer = auth === undefined || auth.authenticate(req.headers.authorization);
    // The web console's pages, login and sessions (src/console/); a session also opens the API for reading and the console's actions.
    const session = bearer || health || consoleGate === undefined ? false : consoleGate.authenticates(req);
    if (bearer || session) budget.prove(req.socket);
    if (!health && consoleGate?.handle({ req, res, path, query, bearer, session, api }) === true) return;
    // A session reads, and writes only what its gate lets it (the console's two actions from its own page, console-writes.ts).
    if (!bearer && !health && !(session && (req.method === "GET" || req.method === "HEAD" || consoleGate?.mayWrite(req, path) === true))) return sendStatus(res, unauthorizedStatus());
    if (!health && options.ready !== undefined) await options.ready;
    const match = matchRoute(path);
    if (match === undefined) return sendStatus(res, notFoundStatus());
    if (session && SECRET_ROUTE.test(match.route.pattern)) {
      return sendStatus(res, failureStatus(403, "Forbidden", "secrets is forbidden: a console session may not read Secrets; use the CLI or kubectl, which hold the agent's token"));
    }
    const handler = match.route.methods[req.method ?? ""];
    if (handler === undefined) return sendStatus(res, methodNotAllowedStatus(), { Allow: Object.keys(match.route.methods).join(", ") });
    const ctx: RequestContext = { req, res, params: match.params, query, api, streams, logger, clock, bookmarkIntervalMs: options.bookmarkIntervalMs ?? 60_000, subject: {} };
    try {
      await handler(ctx);
    } catch (err) {
      const status = statusForError(err, ctx.subject);
      if (status.code >= 500) logger.error("Request failed", { method: req.method, path, err });
      sendStatus(res, status, err instanceof StatusError ? err.headers : {});
    }
  };

  const serverOptions: ServerOptions = {
    requestTimeout,
    headersTimeout,
    keepAliveTimeout: LISTENER_TIMEOUTS.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.max(50, Math.min(headersTimeout / 4, 30_000)),
  };
  const server: Server =
    options.tls === undefined
      ? createServer(serverOptions)
      : createHttpsServer({ ...serverOptions, cert: options.tls.cert, key: options.tls.key, handshakeTimeout: LISTENER_TIMEOUTS.handshakeTimeoutMs });
  budget.watch(server);
  // kubectl exec: a WebSocket upgrade, authenticated and gated like every other request.
  const upgraded = new Set<Duplex>();
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    upgraded.add(socket);
    socket.once("close", () => upgraded.delete(socket));
    void (async () => {
      const { path } = splitRequestUrl(req.url ?? "/");
      const badEscape = malformedEscape(path);
      if (badEscape !== undefined) return refuseUpgrade(socket, badRequestStatus(`invalid URL escape ${JSON.stringify(badEscape)}`));
      if (auth !== undefined && !auth.authenticate(req.headers.authorization)) return refuseUpgrade(socket, unauthorizedStatus());
      budget.prove(req.socket);
      if (options.ready !== undefined) await options.ready;
      if (!EXEC_PATH.test(path)) return refuseUpgrade(socket, notFoundStatus());
      await handleExec(req, socket, head, { resolveContainer: (namespace, pod, container) => api.execContainer(namespace, pod, container) });
    })().catch((err: unknown) => {
      logger.error("Unhandled upgrade failure", { err });
      socket.destroy();
    });
  });
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((err: unknown) => {
      logger.error("Unhandled request failure", { err });
      res.destroy();
    });
  });
  // tls.Server reports a failed or timed-out handshake here; the socket is closed already.
  server.on("tlsClientError", (err: Error) => logger.debug("TLS handshake failed", { err: err.message }));
  let releaseSocket = (): void => undefined;
  if (socketPath !== undefined) releaseSocket = await listenOnSocket(server, socketPath);
  else {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(host === "" ? { port } : { host, port }, () => {
        server.off("error", reject);
        resolve();
      });
    });
  }
  server.on("error", (err) => logger.error("Status server error", { err }));

  const bound = socketPath === undefined ? (server.address() as AddressInfo) : undefined;
  const address = bound === undefined ? { host: socketPath ?? "", port: 0 } : { host: bound.address, port: bound.port };
  const scheme = options.tls === undefined ? "http" : "https";
  const url = socketPath !== undefined ? `${SOCKET_SCHEME}${socketPath}` : `${scheme}://${joinHostPort(address.host, address.port)}`;
  consoleGate?.listening(options.consoleUrl ?? url, address.port);
  logger.info("Status server listening", { address: socketPath ?? joinHostPort(address.host, address.port), auth: auth !== undefined, tls: options.tls !== undefined });

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const patience = new AbortController();
      await streams.abortAll(clock.sleep(options.closeGraceMs ?? 1000, patience.signal));
      patience.abort();
      server.closeAllConnections();
      for (const socket of upgraded) socket.destroy();
      await closed;
      releaseSocket();
    })();
    return closing;
  };
  return { address, url, close };
}

/** splitRequestUrl separates the path from the query of a request target (origin or absolute form). */
function splitRequestUrl(target: string): { path: string; query: URLSearchParams } {
  let rest = target;
  if (!rest.startsWith("/")) {
    try {
      const url = new URL(rest);
      rest = url.pathname + url.search;
    } catch {
      rest = "/";
    }
  }
  const q = rest.indexOf("?");
  return q < 0 ? { path: rest, query: new URLSearchParams() } : { path: rest.slice(0, q), query: new URLSearchParams(rest.slice(q + 1)) };
}
