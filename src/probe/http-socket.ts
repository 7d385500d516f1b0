// Connections of the httpGet probe client: a plain socket that reads into one shared buffer
// and reports to its owner without per-connection closures, and TLS (no verification, SNI
// for names only, HTTP/1.1 by ALPN) over such a socket for https.
import { Socket, type OnReadOpts, type SocketConstructorOpts } from "node:net";
import { connect as tlsConnect, type TLSSocket } from "node:tls";
import type { HttpTarget } from "./http-target.js";

/** SocketOwner receives a connection's events, each with the socket it came from. */
export interface SocketOwner {
  /** onRead: buf[0, bytes) was read. The bytes are only valid during the call. */
  onRead(socket: Socket, buf: Buffer, bytes: number): void;
  onEnd(socket: Socket): void;
  onTimeout(socket: Socket): void;
  onError(socket: Socket, err: Error): void;
}

/** ProbeSocket is a TCP socket that knows its owner; clearing `owner` silences it for good. */
export class ProbeSocket extends Socket {
  owner: SocketOwner | undefined;
}

// Plain sockets read into this buffer: reads are handed over synchronously and the owner copies
// what it keeps, so one buffer serves every connection (no buffer allocated per read).
const READ_BUFFER = Buffer.allocUnsafe(16 * 1024);
const PLAIN: SocketConstructorOpts & { onread: OnReadOpts } = { onread: { buffer: READ_BUFFER, callback: onSocketRead } };

function onSocketRead(this: ProbeSocket, bytes: number, buf: Uint8Array): boolean {
  this.owner?.onRead(this, buf as Buffer, bytes);
  return true;
}

function onSocketEnd(this: ProbeSocket): void {
  this.owner?.onEnd(this);
}

function onSocketTimeout(this: ProbeSocket): void {
  this.owner?.onTimeout(this);
}

function onSocketError(this: ProbeSocket, err: Error): void {
  this.owner?.onError(this, err);
}

/**
 * dialProbeSocket starts connecting to `target`. For http the socket's own events go to
 * `owner`; for https only its errors do, and startTls wraps it. The error listener stays for
 * the socket's life, so a late error on an abandoned socket is never unhandled.
 */
export function dialProbeSocket(target: HttpTarget, owner: SocketOwner): ProbeSocket {
  const socket = new ProbeSocket(target.tls ? undefined : PLAIN);
  socket.owner = owner;
  socket.on("error", onSocketError);
  if (!target.tls) {
    socket.on("end", onSocketEnd);
    socket.on("timeout", onSocketTimeout);
  }
  try {
    return socket.connect(target.connect);
  } catch (err) {
    socket.owner = undefined;
    socket.destroy();
    throw err;
  }
}

/**
 * startTls runs TLS over `raw` as the kubelet's transport does (InsecureSkipVerify, SNI for
 * names) and writes the request head once the handshake is done, as Go's Transport does
 * (dialConn finishes the handshake before the request is written). Writing earlier would leave
 * the head queued during a stalled handshake, and Node defers the first idle timeout of a
 * socket with a write in progress: the probe deadline would fire a whole timeout late.
 */
export function startTls(raw: ProbeSocket, target: HttpTarget, owner: SocketOwner): TLSSocket {
  const tls = tlsConnect({ socket: raw, servername: target.servername, rejectUnauthorized: false, ALPNProtocols: ["http/1.1"] });
  tls.once("secureConnect", () => tls.write(target.head));
  tls.on("data", (chunk: Buffer) => owner.onRead(tls, chunk, chunk.length));
  tls.on("end", () => owner.onEnd(tls));
  tls.on("timeout", () => owner.onTimeout(tls));
  tls.on("error", (err: Error) => owner.onError(tls, err));
  return tls;
}
