// Connections of the httpGet probe client: a plain socket that reads into one shared buffer
// and reports to its owner without per-connection closures, and TLS (no verification, SNI
// for names only, HTTP/1.1 by ALPN) over such a socket for https, through a tap that keeps the
// server's first bytes for Go's wording of a non-TLS answer.
import { Socket, type LookupFunction, type OnReadOpts, type SocketConstructorOpts } from "node:net";
import { Duplex } from "node:stream";
import { connect as tlsConnect, type TLSSocket } from "node:tls";
import { joinHostPort } from "./address.js";
import type { HttpTarget } from "./http-target.js";

/**
 * ProbeStream is what a probe does with the connection an event came from: a Node socket, or
 * a native engine connection (http-native.ts).
 */
export interface ProbeStream {
  /** setTimeout re-arms the connection's deadline to `ms` from now. */
  setTimeout(ms: number): unknown;
  readonly destroyed: boolean;
  destroy(): unknown;
}

/** SocketOwner receives a connection's events, each with the connection it came from. */
export interface SocketOwner {
  /** onRead: buf[0, bytes) was read. The bytes are only valid during the call. */
  onRead(socket: ProbeStream, buf: Buffer, bytes: number): void;
  onEnd(socket: ProbeStream): void;
  onTimeout(socket: ProbeStream): void;
  onError(socket: ProbeStream, err: Error): void;
}

/** ProbeSocket is a TCP socket that knows its owner; clearing `owner` silences it for good. */
export class ProbeSocket extends Socket {
  owner: SocketOwner | undefined;
  /** source is the local "ip:port" once connected: Go names it in read and write errors. */
  source: string | undefined;
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

function onSocketConnect(this: ProbeSocket): void {
  this.source = joinHostPort(this.localAddress ?? "", this.localPort ?? 0);
}

function onSocketError(this: ProbeSocket, err: Error): void {
  this.owner?.onError(this, err);
}

/**
 * dialProbeSocket starts connecting to `target`, names resolved by `lookup` (default
 * dns.lookup). For http the socket's own events go to `owner`; for https only its errors do,
 * and a ServerHeadTap carries TLS over it. The error listener stays for the socket's life, so a
 * late error on an abandoned socket is never unhandled.
 */
export function dialProbeSocket(target: HttpTarget, owner: SocketOwner, lookup?: LookupFunction): ProbeSocket {
  const socket = new ProbeSocket(target.tls ? undefined : PLAIN);
  socket.owner = owner;
  socket.on("error", onSocketError);
  socket.once("connect", onSocketConnect);
  if (!target.tls) {
    socket.on("end", onSocketEnd);
    socket.on("timeout", onSocketTimeout);
  }
  try {
    const address = { host: target.connectHost, port: target.connectPort };
    return socket.connect(lookup ? { ...address, lookup } : address);
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
export function startTls(raw: ServerHeadTap, target: HttpTarget, owner: SocketOwner): TLSSocket {
  const tls = tlsConnect({ socket: raw, servername: target.servername, rejectUnauthorized: false, ALPNProtocols: ["http/1.1"] });
  tls.once("secureConnect", () => tls.write(target.head));
  tls.on("data", (chunk: Buffer) => owner.onRead(tls, chunk, chunk.length));
  tls.on("end", () => owner.onEnd(tls));
  tls.on("timeout", () => owner.onTimeout(tls));
  tls.on("error", (err: Error) => owner.onError(tls, err));
  return tls;
}

/**
 * ServerHeadTap carries a TLS session over a probe socket and keeps the first five bytes the
 * server sent: Go's client words a handshake that met something other than TLS by that record
 * header (net/http client.go send, crypto/tls conn.go readRecordOrCCS), and OpenSSL does not
 * report the bytes. The socket's errors stay with its owner (dialProbeSocket).
 */
export class ServerHeadTap extends Duplex {
  /** head holds the first bytes received, up to five (one TLS record header). */
  readonly head = Buffer.alloc(5);
  headLength = 0;

  constructor(private readonly raw: ProbeSocket) {
    super();
    raw.on("data", (chunk: Buffer) => {
      if (this.headLength < this.head.length) this.headLength += chunk.copy(this.head, this.headLength, 0);
      if (!this.push(chunk)) raw.pause();
    });
    raw.on("end", () => this.push(null));
  }

  override _read(): void {
    this.raw.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    this.raw.write(chunk, () => done()); // a write error reaches the owner from the socket itself
  }

  override _final(done: (err?: Error | null) => void): void {
    this.raw.end();
    done();
  }

  /** receivedHead returns the first five bytes from the server, or undefined if fewer came. */
  receivedHead(): Buffer | undefined {
    return this.headLength === this.head.length ? this.head : undefined;
  }
}
