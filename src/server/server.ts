// The agent's status API over HTTP (node:http, no framework): binding rules, authentication,
// routing, metav1.Status errors, request logging, timeouts against slow or hostile clients,
// and a close() that ends open watch and log streams before closing every socket.
import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { AgentApi } from "../agent/agent-api.js";
import { ConsoleGate } from "../console/console-gate.js";
import { joinHostPort } from "../probe/address.js";
import { systemClock, type Clock } from "../util/clock.js";
import { silentLogger, type Logger } from "../util/logger.js";
import { BearerAuthenticator, isLoopbackHost, parseListenAddress } from "./auth.js";
import { sendStatus } from "./respond.js";
import type { RequestContext } from "./request-context.js";
import { matchRoute } from "./routes.js";
import { methodNotAllowedStatus, notFoundStatus, StatusError, statusForError, unauthorizedStatus } from "./status-object.js";
import { StreamTracker } from "./stream-tracker.js";
import type { Duplex } from "node:stream";
import { handleExec } from "../apiserver/exec/handle-exec.js";
import { refuseUpgrade } from "../apiserver/exec/websocket.js";

/** EXEC_PATH is the one path served over a connection upgrade. */
const EXEC_PATH = /^\/api\/v1\/namespaces\/[^/]+\/pods\/[^/]+\/exec$/;

/** StatusServerOptions configure startStatusServer; the timeouts have production defaults. */
export interface StatusServerOptions {
  /** "host:port", e.g. "127.0.0.1:10255" or "[::1]:0" (port 0 picks a free port). */
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
}

/** StatusServer is a running status server. */
export interface StatusServer {
  /** The bound address (the real port when 0 was asked for). */
  address: { host: string; port: number };
  /** Base URL, e.g. "http://127.0.0.1:10255", "http://[::1]:41234" or "https://0.0.0.0:10250". */
  url: string;
  /** close stops accepting, ends watch and log streams, closes all sockets; idempotent. */
  close(): Promise<void>;
}

/** HEALTHZ_PATH answers without authentication, as liveness checks of the agent need. */
const HEALTHZ_PATH = "/healthz";

// Upper bound on simultaneous connections, so a flood cannot exhaust file descriptors.
const MAX_CONNECTIONS = 1024;

/**
 * startStatusServer serves api over HTTP on options.listen. It rejects with an Error for a
 * malformed address, for a non-loopback address without a token and TLS, and when listening fails
 * (e.g. EADDRINUSE).
 */
export async function startStatusServer(api: AgentApi, options: StatusServerOptions): Promise<StatusServer> {
  const { host, port } = parseListenAddress(options.listen);
  if ((options.token === undefined || options.tls === undefined) && !isLoopbackHost(host)) {
    throw new Error(
      `refusing to serve the status API on non-loopback address "${options.listen}" without a token and TLS: ` +
        `listen on 127.0.0.1 or [::1], or set a bearer token and a serving certificate`,
    );
  }
  const auth = options.token === undefined ? undefined : new BearerAuthenticator(options.token);
  const logger = (options.logger ?? silentLogger).child("server");
  const clock = options.clock ?? systemClock;
  const requestTimeout = options.requestTimeoutMs ?? 30_000;
  const headersTimeout = Math.min(options.headersTimeoutMs ?? 10_000, requestTimeout);
  const idleTimeout = options.idleTimeoutMs ?? 60_000;
  const streams = new StreamTracker();
  const consoleGate = await ConsoleGate.create(clock, options.tls !== undefined);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = clock.monotonic();
    const { path, query } = splitRequestUrl(req.url ?? "/");
    res.once("close", () => {
      const ms = Math.round(clock.monotonic() - started);
      logger.debug("HTTP request", { method: req.method, path, status: res.statusCode, ms });
    });
    req.socket.setTimeout(idleTimeout);
    const health = path === HEALTHZ_PATH;
    const bearer = auth === undefined || auth.authenticate(req.headers.authorization);
    // The web console's pages and login (src/console/); its session cookie also opens the API for reading and the console's actions.
    if (!health && consoleGate.handle({ req, res, path, query, bearer, api })) return;
    if (!bearer && !health && !consoleGate.opensApi(req, path)) return sendStatus(res, unauthorizedStatus());
    if (!health && options.ready !== undefined) await options.ready;
    const match = matchRoute(path);
    if (match === undefined) return sendStatus(res, notFoundStatus());
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

  const serverOptions: ServerOptions = { requestTimeout, headersTimeout, connectionsCheckingInterval: Math.max(50, Math.min(headersTimeout / 4, 30_000)) };
  const server: Server = options.tls === undefined ? createServer(serverOptions) : createHttpsServer({ ...serverOptions, cert: options.tls.cert, key: options.tls.key });
  server.maxConnections = MAX_CONNECTIONS;
  // kubectl exec: a WebSocket upgrade, authenticated and gated like every other request.
  const upgraded = new Set<Duplex>();
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    upgraded.add(socket);
    socket.once("close", () => upgraded.delete(socket));
    void (async () => {
      if (auth !== undefined && !auth.authenticate(req.headers.authorization)) return refuseUpgrade(socket, unauthorizedStatus());
      if (options.ready !== undefined) await options.ready;
      const { path } = splitRequestUrl(req.url ?? "/");
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
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(host === "" ? { port } : { host, port }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.on("error", (err) => logger.error("Status server error", { err }));

  const bound = server.address() as AddressInfo;
  const address = { host: bound.address, port: bound.port };
  logger.info("Status server listening", { address: joinHostPort(address.host, address.port), auth: auth !== undefined, tls: options.tls !== undefined });

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
    })();
    return closing;
  };
  const scheme = options.tls === undefined ? "http" : "https";
  return { address, url: `${scheme}://${joinHostPort(address.host, address.port)}`, close };
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
