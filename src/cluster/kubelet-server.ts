// The kubelet's HTTPS endpoint on the daemon port (kubelet pkg/kubelet/server/server.go), the
// address the API server dials for `kubectl logs`, `exec`, `attach`, `port-forward` and its node
// proxy (`kubectl get --raw /api/v1/nodes/<node>/proxy/…`). Clients authenticate with a
// certificate of the client CA (--client-ca-file; the API server's --kubelet-client-certificate)
// or a bearer token, and every request, upgraded ones included, is authorized as the kubelet
// authorizes it (kubelet-auth.ts); a certificate of another CA is refused at the TLS handshake
// (Go's VerifyClientCertIfGiven), anonymous requests get 401. The routes are in
// kubelet-routes.ts; /exec, /attach and /portForward in kubelet-streaming.ts.
import { createServer, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import type { TLSSocket } from "node:tls";
import type { AgentApi } from "../agent/agent-api.js";
import { LISTENER_TIMEOUTS, processConnectionBudget, type ConnectionBudget } from "../server/connection-guard.js";
import { malformedEscape, matchRoute } from "../server/routes.js";
import { sendStatus, sendText } from "../server/respond.js";
import { badRequestStatus, methodNotAllowedStatus, notFoundStatus } from "../server/status-object.js";
import type { Logger } from "../util/logger.js";
import type { KubeletAuth } from "./kubelet-auth.js";
import { KUBELET_ROUTES } from "./kubelet-routes.js";
import { handleStreamingUpgrade, parseStreamingPath, writeRefusal } from "./kubelet-streaming.js";
import type { MachineStats } from "./node-stats.js";

/** DEFAULT_KUBELET_PORT is the kubelet's --port. */
export const DEFAULT_KUBELET_PORT = 10250;

/** KubeletServerOptions configure the endpoint. */
export interface KubeletServerOptions {
  agent: AgentApi;
  host: string;
  port: number;
  cert: Buffer;
  key: Buffer;
  /** PEM of the CA whose client certificates are let in. */
  clientCa: Buffer;
  /** Authenticates and authorizes each request. */
  auth: Pick<KubeletAuth, "authenticate" | "authorize">;
  /** The machine's figures for /stats/summary and /metrics/resource. */
  machine: MachineStats;
  logger: Logger;
}

/** KubeletServer is the running endpoint. */
export interface KubeletServer {
  port: number;
  /** useServingCertificate serves a new certificate (a rotated one) to new connections. */
  useServingCertificate(cert: Buffer, key: Buffer): void;
  close(): Promise<void>;
}

/** startKubeletServer listens and serves until close(). */
export async function startKubeletServer(options: KubeletServerOptions): Promise<KubeletServer> {
  const streams = new Set<AbortController>();
  const server: Server = createServer(
    {
      cert: options.cert, key: options.key, ca: options.clientCa, requestCert: true, rejectUnauthorized: false, minVersion: "TLSv1.2",
      // Bounded connections (src/server/connection-guard.ts): a client that is slow to shake
      // hands or to send its headers is cut off, and silent connections never take every slot.
      handshakeTimeout: LISTENER_TIMEOUTS.handshakeTimeoutMs,
      headersTimeout: LISTENER_TIMEOUTS.headersTimeoutMs,
      requestTimeout: LISTENER_TIMEOUTS.requestTimeoutMs,
      keepAliveTimeout: LISTENER_TIMEOUTS.keepAliveTimeoutMs,
    },
    (req, res) => {
      void handle(req, res, options, streams, budget);
    },
  );
  const budget = processConnectionBudget(options.logger);
  budget.watch(server);
  // A client certificate is optional (bearer tokens), but one the client CA did not sign ends
  // the connection before any request, as Go's VerifyClientCertIfGiven fails the handshake; one
  // it signed has proven itself (a bearer token proves itself at its first authenticated request).
  server.on("secureConnection", (socket: TLSSocket) => {
    if (socket.authorized) budget.prove(socket);
    else if (Object.keys(socket.getPeerCertificate()).length > 0) socket.destroy();
  });
  server.on("tlsClientError", (err: Error) => options.logger.debug("TLS handshake failed", { err: err.message }));
  // Upgraded connections leave the server's bookkeeping: close() ends them itself.
  const upgraded = new Set<Duplex>();
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    upgraded.add(socket);
    socket.once("close", () => upgraded.delete(socket));
    socket.on("error", () => undefined);
    upgrade(req, socket, head, options, budget).then(
      (served) => {
        if (!served) socket.end("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
      },
      () => socket.destroy(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    useServingCertificate: (cert, key) => server.setSecureContext({ cert, key, ca: options.clientCa, minVersion: "TLSv1.2" }),
    close: async () => {
      for (const s of streams) s.abort();
      for (const s of upgraded) s.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, options: KubeletServerOptions, streams: Set<AbortController>, budget: ConnectionBudget): Promise<void> {
  const url = new URL(req.url ?? "/", "https://kubelet");
  // Go's http server refuses a path with a malformed escape before any handler runs.
  const badEscape = malformedEscape(url.pathname);
  if (badEscape !== undefined) {
    sendStatus(res, badRequestStatus(`invalid URL escape ${JSON.stringify(badEscape)}`));
    return;
  }
  if (parseStreamingPath(url.pathname) !== undefined) {
    // proxy.UpgradeAwareHandler with upgradeRequired, behind the auth filter.
    if (await authorized(req, res, url, options, budget)) sendText(res, 500, "Upgrade request required");
    return;
  }
  if (req.method !== "GET") {
    sendStatus(res, methodNotAllowedStatus());
    return;
  }
  if (!(await authorized(req, res, url, options, budget))) return;
  const match = matchRoute(url.pathname, KUBELET_ROUTES);
  const handler = match?.route.methods[req.method];
  if (match === undefined || handler === undefined) {
    sendStatus(res, match === undefined ? notFoundStatus() : methodNotAllowedStatus());
    return;
  }
  await handler({ req, res, url, params: match.params, node: { agent: options.agent, machine: options.machine, logger: options.logger }, streams });
}

/** Answer sends the auth filter's refusal the way the request can take it (plain response or raw socket). */
type Answer = (code: 401 | 403 | 500, message: string) => void;

/**
 * authorizeRequest is server.go InstallAuthFilter: authenticate, then authorize the request's
 * verb and subresources; false (after answering through `answer`) when either fails.
 */
async function authorizeRequest(req: IncomingMessage, url: URL, options: KubeletServerOptions, budget: ConnectionBudget, answer: Answer): Promise<boolean> {
  const user = await options.auth.authenticate(req);
  if (user === undefined) {
    answer(401, "Unauthorized");
    return false;
  }
  budget.prove(req.socket);
  const decision = await options.auth.authorize(user, req.method ?? "GET", url.pathname);
  if (!decision.allowed) {
    answer(decision.code, decision.message);
    return false;
  }
  return true;
}

/** authorized runs the auth filter for a plain request, answering 401/403 as plain text. */
function authorized(req: IncomingMessage, res: ServerResponse, url: URL, options: KubeletServerOptions, budget: ConnectionBudget): Promise<boolean> {
  return authorizeRequest(req, url, options, budget, (code, message) => sendText(res, code, message));
}

/**
 * upgrade serves an upgraded request (exec, attach, port-forward through the API server): the
 * same auth filter as every other request, then the streaming proxy. False when the path is not a
 * streaming route.
 */
async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, options: KubeletServerOptions, budget: ConnectionBudget): Promise<boolean> {
  const url = new URL(req.url ?? "/", "https://kubelet");
  if (parseStreamingPath(url.pathname) === undefined) return false;
  if (!(await authorizeRequest(req, url, options, budget, (code, message) => writeRefusal(socket, { code, message })))) return true;
  return handleStreamingUpgrade(req, socket, head, options.agent, options.logger);
}
