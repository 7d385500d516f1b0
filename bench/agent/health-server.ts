// The one loopback HTTP server the agent benches probe: every path answers 200 "ok". It counts
// connections (tcpSocket probes open and close one without a request) and requests, and notes
// when each path was first requested, so a bench can see a probe arrive without any agent hook.
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** HealthServer is a started loopback server. */
export interface HealthServer {
  readonly host: "127.0.0.1";
  readonly port: number;
  /** connections counts accepted TCP connections. */
  connections(): number;
  /** requests counts HTTP requests answered. */
  requests(): number;
  /** firstHit returns when a path was first requested (performance.now() ms), if it was. */
  firstHit(path: string): number | undefined;
  /** close stops listening and destroys open connections. */
  close(): Promise<void>;
}

/** startHealthServer listens on 127.0.0.1, on `port` (0 = any free port). */
export async function startHealthServer(port = 0): Promise<HealthServer> {
  let connections = 0;
  let requests = 0;
  const firstHits = new Map<string, number>();
  const sockets = new Set<Socket>();
  const server: Server = createServer({ keepAlive: false }, (req, res) => {
    const at = performance.now();
    requests++;
    const path = req.url ?? "/";
    if (!firstHits.has(path)) firstHits.set(path, at);
    res.writeHead(200, { "content-type": "text/plain", connection: "close" });
    res.end("ok");
  });
  server.on("connection", (socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    // A tcpSocket probe closes at once; ignore its resets.
    socket.on("error", () => undefined);
  });
  // Probes from 500 pods can arrive together: keep the accept queue deep.
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host: "127.0.0.1", port, backlog: 4096 }, () => resolve());
  });
  return {
    host: "127.0.0.1",
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    requests: () => requests,
    firstHit: (path) => firstHits.get(path),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
