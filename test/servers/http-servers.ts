// Loopback servers for HTTP probe tests: a plain HTTP server, an HTTPS server with a throwaway
// self-signed certificate (made with openssl at test time), a raw TCP server for servers
// that misbehave, and a TLS server whose handshake never completes. All listen on 127.0.0.1 port 0, count their connections, and close every
// connection (and pending handler timer) when closed.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { createServer as createNetServer, type AddressInfo, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** HttpHandler answers one request; it may use `later` for delayed work that close() cancels. */
export type HttpHandler = (req: IncomingMessage, res: ServerResponse, later: (ms: number, fn: () => void) => void) => void;

/** TestServer is a started loopback server. */
export interface TestServer {
  readonly host: "127.0.0.1";
  readonly port: number;
  /** url returns "http(s)://127.0.0.1:<port><path>". */
  url(path?: string): string;
  /** connections counts the TCP connections accepted so far. */
  connections(): number;
  /** openConnections counts accepted connections not yet closed. */
  openConnections(): number;
  /** close stops listening, destroys open connections and cancels pending handler timers. */
  close(): Promise<void>;
}

/** TlsMaterial is a PEM key and self-signed certificate. */
export interface TlsMaterial {
  key: string;
  cert: string;
}

/** startHttpServer starts an HTTP/1.1 server running `handler`. */
export function startHttpServer(handler: HttpHandler): Promise<TestServer> {
  const timers = new Set<NodeJS.Timeout>();
  const server = createHttpServer((req, res) => handler(req, res, laterFn(timers)));
  return listen(server, "http", timers);
}

/** startHttpsServer starts an HTTPS server (self-signed certificate for "localhost"). */
export function startHttpsServer(
  handler: HttpHandler,
  tls: TlsMaterial,
  onServername?: (name: string | undefined) => void,
): Promise<TestServer> {
  const timers = new Set<NodeJS.Timeout>();
  const server = createHttpsServer({ key: tls.key, cert: tls.cert }, (req, res) => handler(req, res, laterFn(timers)));
  if (onServername) server.on("secureConnection", (socket) => onServername((socket as { servername?: string | false }).servername || undefined));
  return listen(server, "https", timers);
}

/**
 * startRawServer starts a TCP server that hands each connection to `onConnection`, for
 * servers that misbehave (no reply, slow or broken replies). A client's FIN closes the socket.
 */
export function startRawServer(onConnection: (socket: Socket, later: (ms: number, fn: () => void) => void) => void): Promise<TestServer> {
  const timers = new Set<NodeJS.Timeout>();
  const server = createNetServer({ allowHalfOpen: false }, (socket) => {
    socket.on("error", () => undefined);
    onConnection(socket, laterFn(timers));
  });
  return listen(server, "http", timers);
}

/** StalledTlsServer is a TestServer that also counts the TLS ClientHellos it received. */
export interface StalledTlsServer extends TestServer {
  /** clientHellos counts connections whose first bytes were a TLS handshake record. */
  clientHellos(): number;
}

/**
 * startStalledTlsServer accepts TCP connections, reads what the client sends (its ClientHello)
 * and never answers, so a TLS handshake never completes. Its url() is https.
 */
export async function startStalledTlsServer(): Promise<StalledTlsServer> {
  let hellos = 0;
  const timers = new Set<NodeJS.Timeout>();
  const server = createNetServer({ allowHalfOpen: false }, (socket) => {
    socket.on("error", () => undefined);
    socket.once("data", (chunk: Buffer) => {
      if (chunk[0] === TLS_HANDSHAKE_RECORD) hellos++;
      socket.resume(); // keep reading, never write
    });
  });
  const started = await listen(server, "https", timers);
  return { ...started, clientHellos: () => hellos };
}

const TLS_HANDSHAKE_RECORD = 0x16; // TLS record content type "handshake"

/** makeSelfSignedCert generates a throwaway key and certificate, or undefined without openssl. */
export function makeSelfSignedCert(): TlsMaterial | undefined {
  const dir = mkdtempSync(join(tmpdir(), "probelet-tls-"));
  try {
    const key = join(dir, "key.pem");
    const cert = join(dir, "cert.pem");
    execFileSync(
      "openssl",
      ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=localhost"],
      { stdio: "ignore", timeout: 20_000 },
    );
    return { key: readFileSync(key, "utf8"), cert: readFileSync(cert, "utf8") };
  } catch {
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function laterFn(timers: Set<NodeJS.Timeout>): (ms: number, fn: () => void) => void {
  return (ms, fn) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };
}

function listen(server: Server | ReturnType<typeof createNetServer>, scheme: string, timers: Set<NodeJS.Timeout>): Promise<TestServer> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  server.on("connection", (socket: Socket) => {
    accepted++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        host: "127.0.0.1",
        port,
        url: (path = "/") => `${scheme}://127.0.0.1:${port}${path}`,
        connections: () => accepted,
        openConnections: () => sockets.size,
        close: () =>
          new Promise<void>((done) => {
            for (const timer of timers) clearTimeout(timer);
            timers.clear();
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
