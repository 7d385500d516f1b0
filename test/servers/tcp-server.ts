// Loopback TCP servers for the tcpSocket handler tests and measurements:
// - startTcpServer: in-process, records how each connection ended (FIN or RST);
// - spawnTcpServer: the same server in a separate Node process (run this file directly);
// - startBlackholeServer: a listener whose accept queue is full, so further SYNs go unanswered.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fstatSync } from "node:fs";
import { connect, createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { fileURLToPath, pathToFileURL } from "node:url";

/** ConnectionEnd is how the peer closed a connection: an orderly FIN or an RST. */
export type ConnectionEnd = "fin" | "reset";

/** TcpTestServer is an in-process loopback server that accepts and observes connections. */
export interface TcpTestServer {
  host: string;
  port: number;
  /** Number of connections accepted so far. */
  readonly accepted: number;
  /** How each closed connection ended, in closing order. */
  readonly ends: readonly ConnectionEnd[];
  /** Bytes received over all connections. */
  readonly bytesReceived: number;
  /** waitForEnds resolves once `count` connections have closed (rejects after `timeoutMs`). */
  waitForEnds(count: number, timeoutMs?: number): Promise<readonly ConnectionEnd[]>;
  close(): Promise<void>;
}

/** startTcpServer listens on host:0 (default 127.0.0.1) and closes each connection once the peer does. */
export async function startTcpServer(host = "127.0.0.1"): Promise<TcpTestServer> {
  const ends: ConnectionEnd[] = [];
  const sockets = new Set<Socket>();
  const waiters = new Set<() => void>();
  let accepted = 0;
  let bytesReceived = 0;
  const server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    let end: ConnectionEnd = "fin";
    socket.on("data", (chunk) => (bytesReceived += chunk.length));
    socket.on("end", () => socket.end());
    socket.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code === "ECONNRESET") end = "reset";
    });
    socket.on("close", () => {
      sockets.delete(socket);
      ends.push(end);
      for (const wake of waiters) wake();
    });
  });
  const port = await listen(server, host);
  return {
    host,
    port,
    get accepted() {
      return accepted;
    },
    get ends() {
      return ends;
    },
    get bytesReceived() {
      return bytesReceived;
    },
    waitForEnds(count, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          if (ends.length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(ends);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`only ${ends.length} of ${count} connections closed within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** SpawnedServer is a server running in a child process. */
export interface SpawnedServer {
  port: number;
  pid: number;
  close(): Promise<void>;
}

/** spawnTcpServer runs this file as a separate Node process (the same accept-and-close server). */
export function spawnTcpServer(): Promise<SpawnedServer> {
  return spawnNodeServer([fileURLToPath(import.meta.url)]);
}

/**
 * startBlackholeServer starts a child process that listens with a backlog of 1 and then
 * blocks its event loop for `blockMs`, never accepting. Call fillBacklog() before probing:
 * once the accept queue is full, Linux drops new SYNs and a dial hangs until it times out.
 */
export async function startBlackholeServer(blockMs = 10_000): Promise<SpawnedServer & { fillBacklog(): Promise<void> }> {
  const script = `
    const server = require("node:net").createServer();
    server.listen({ host: "127.0.0.1", port: 0, backlog: 1 }, () => {
      process.stdout.write(server.address().port + "\\n");
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${blockMs});
      process.exit(0);
    });`;
  const spawned = await spawnNodeServer(["-e", script]);
  const fillers = new Set<Socket>();
  return {
    ...spawned,
    async fillBacklog() {
      // A backlog of 1 admits up to two queued connections; open a few more to be sure.
      for (let i = 0; i < 4; i++) {
        const socket = connect({ host: "127.0.0.1", port: spawned.port });
        socket.on("error", () => undefined);
        fillers.add(socket);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    },
    async close() {
      for (const socket of fillers) socket.destroy();
      await spawned.close();
    },
  };
}

/** spawnNodeServer runs `node <args>` and resolves once the child prints its port on a line of stdout. */
export async function spawnNodeServer(args: string[]): Promise<SpawnedServer> {
  const child: ChildProcess = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "inherit"] });
  let buffered = "";
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("server process did not report its port within 10 s")), 10_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      const line = buffered.split("\n")[0];
      if (buffered.includes("\n") && line !== undefined) {
        clearTimeout(timer);
        resolve(Number(line));
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server process exited early (${String(code)})`));
    });
  });
  return {
    port,
    pid: child.pid!,
    async close() {
      child.stdin?.destroy();
      child.stdout?.destroy();
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "close");
      child.kill("SIGTERM");
      await exited;
    },
  };
}

function listen(server: Server, host: string, port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host, port }, () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * serveAsScript runs a server for a process started directly: it prints the port on stdout
 * and exits on SIGTERM/SIGINT, or when stdin is a pipe that closes (the spawning test died).
 */
export async function serveAsScript(start: () => Promise<{ port: number; close(): Promise<void> }>): Promise<void> {
  const server = await start();
  process.stdout.write(`${server.port}\n`);
  const stop = (): void => void server.close().then(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  if (fstatSync(0).isFIFO()) {
    process.stdin.on("end", stop);
    process.stdin.resume();
  }
}

// Run directly: serve on 127.0.0.1 at an OS-assigned port (e.g. `node dist/test/servers/tcp-server.js &`).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await serveAsScript(() => startTcpServer("127.0.0.1"));
}
