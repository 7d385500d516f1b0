// The kubelet's HTTPS endpoint on the daemon port (kubelet pkg/kubelet/server/server.go:
// /healthz, /pods, /containerLogs/{podNamespace}/{podID}/{containerName} with tailLines,
// timestamps, follow and previous), the address the API server dials for `kubectl logs`. Only
// clients presenting a certificate signed by the given CA get in (kubelet --client-ca-file
// x509 authentication; the API server's --kubelet-client-certificate); anyone else is refused
// during the TLS handshake.
import { createServer, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import type { AgentApi } from "../agent/agent-api.js";
import type { Pod } from "../api/types.js";
import { PODS } from "../apiserver/resources/pods.js";
import { LISTENER_TIMEOUTS, processConnectionBudget } from "../server/connection-guard.js";
import { serveLogs } from "../server/log-stream.js";
import { sendJson, sendStatus, sendText } from "../server/respond.js";
import { malformedEscape } from "../server/routes.js";
import { badRequestStatus, methodNotAllowedStatus, notFoundStatus, statusForError } from "../server/status-object.js";
import type { Logger } from "../util/logger.js";

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
  logger: Logger;
}

/** KubeletServer is the running endpoint. */
export interface KubeletServer {
  port: number;
  close(): Promise<void>;
}

/** startKubeletServer listens and serves until close(). */
export async function startKubeletServer(options: KubeletServerOptions): Promise<KubeletServer> {
  const streams = new Set<AbortController>();
  const server: Server = createServer(
    {
      cert: options.cert, key: options.key, ca: options.clientCa, requestCert: true, rejectUnauthorized: true, minVersion: "TLSv1.2",
      // Bounded connections (src/server/connection-guard.ts): a client that is slow to shake
      // hands or to send its headers is cut off, and silent connections never take every slot.
      handshakeTimeout: LISTENER_TIMEOUTS.handshakeTimeoutMs,
      headersTimeout: LISTENER_TIMEOUTS.headersTimeoutMs,
      requestTimeout: LISTENER_TIMEOUTS.requestTimeoutMs,
      keepAliveTimeout: LISTENER_TIMEOUTS.keepAliveTimeoutMs,
    },
    (req, res) => {
      void handle(req, res, options, streams);
    },
  );
  // The TLS handshake authenticates: a client whose certificate the CA signed has proven itself.
  const budget = processConnectionBudget(options.logger);
  budget.watch(server);
  server.on("secureConnection", (socket: TLSSocket) => {
    if (socket.authorized) budget.prove(socket);
  });
  server.on("tlsClientError", (err: Error) => options.logger.debug("TLS handshake failed", { err: err.message }));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      for (const s of streams) s.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, options: KubeletServerOptions, streams: Set<AbortController>): Promise<void> {
  const url = new URL(req.url ?? "/", "https://kubelet");
  // Go's http server refuses a path with a malformed escape before any handler runs.
  const badEscape = malformedEscape(url.pathname);
  if (badEscape !== undefined) {
    sendStatus(res, badRequestStatus(`invalid URL escape ${JSON.stringify(badEscape)}`));
    return;
  }
  if (req.method !== "GET") {
    sendStatus(res, methodNotAllowedStatus());
    return;
  }
  if (url.pathname === "/healthz") {
    const health = options.agent.healthz();
    sendText(res, health.ok ? 200 : 500, health.ok ? "ok" : `healthz check failed: ${health.message}`);
    return;
  }
  if (url.pathname === "/pods") {
    const { agent } = options;
    sendJson(res, 200, { kind: "PodList", apiVersion: "v1", metadata: {}, items: agent.store.list<Pod>(PODS.name, { filter: (p) => p.spec.nodeName === agent.nodeName }).items });
    return;
  }
  const match = /^\/containerLogs\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
  if (match === null) {
    sendStatus(res, notFoundStatus());
    return;
  }
  const [namespace, name, container] = match.slice(1).map((p) => decodeURIComponent(p)) as [string, string, string];
  const tail = url.searchParams.get("tailLines");
  if (tail !== null && !/^\d+$/.test(tail)) {
    sendStatus(res, badRequestStatus(`tailLines: Invalid value: "${tail}": must be a non-negative integer`));
    return;
  }
  const abort = new AbortController();
  streams.add(abort);
  req.on("close", () => abort.abort());
  try {
    const request = {
      namespace,
      name,
      container,
      previous: url.searchParams.get("previous") === "true",
      follow: url.searchParams.get("follow") === "true",
      timestamps: url.searchParams.get("timestamps") === "true",
      ...(tail !== null ? { tailLines: Number(tail) } : {}),
      signal: abort.signal,
    };
    await serveLogs(res, endingLines(options.agent.readLogs(request)), request, options.logger);
  } catch (err) {
    if (!res.headersSent) sendStatus(res, statusForError(err, { name }));
  } finally {
    streams.delete(abort);
  }
}

/** endingLines ends every log line with a newline, as the kubelet's log stream carries them. */
async function* endingLines(lines: AsyncIterable<string>): AsyncIterable<string> {
  for await (const line of lines) yield line.endsWith("\n") ? line : `${line}\n`;
}
