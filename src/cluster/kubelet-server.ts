// The kubelet's HTTPS endpoint on the daemon port (kubelet pkg/kubelet/server/server.go:
// /healthz, /pods, /containerLogs/{podNamespace}/{podID}/{containerName} with tailLines,
// timestamps, follow and previous; /exec, /attach and /portForward in kubelet-streaming.ts),
// the address the API server dials for `kubectl logs`, `exec`, `attach` and `port-forward`. Only
// clients presenting a certificate signed by the given CA get in (kubelet --client-ca-file
// x509 authentication; the API server's --kubelet-client-certificate); anyone else is refused
// during the TLS handshake.
import { createServer, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import type { AgentApi } from "../agent/agent-api.js";
import type { Pod } from "../api/types.js";
import { PODS } from "../apiserver/resources/pods.js";
import { serveLogs } from "../server/log-stream.js";
import { sendJson, sendStatus, sendText } from "../server/respond.js";
import { badRequestStatus, methodNotAllowedStatus, notFoundStatus, statusForError } from "../server/status-object.js";
import type { Logger } from "../util/logger.js";
import { handleStreamingUpgrade, parseStreamingPath } from "./kubelet-streaming.js";

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
  const server: Server = createServer({ cert: options.cert, key: options.key, ca: options.clientCa, requestCert: true, rejectUnauthorized: true, minVersion: "TLSv1.2" }, (req, res) => {
    void handle(req, res, options, streams);
  });
  // Upgraded connections leave the server's bookkeeping: close() ends them itself.
  const upgraded = new Set<Duplex>();
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    upgraded.add(socket);
    socket.once("close", () => upgraded.delete(socket));
    handleStreamingUpgrade(req, socket, head, options.agent, options.logger).then(
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
    close: async () => {
      for (const s of streams) s.abort();
      for (const s of upgraded) s.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, options: KubeletServerOptions, streams: Set<AbortController>): Promise<void> {
  const url = new URL(req.url ?? "/", "https://kubelet");
  if (parseStreamingPath(url.pathname) !== undefined) {
    // proxy.UpgradeAwareHandler with upgradeRequired, answered through the kubelet's responder.
    sendText(res, 500, "Upgrade request required");
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
