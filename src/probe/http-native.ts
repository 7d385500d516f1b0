// An httpGet connection on the native engine: the addon connects, writes the prebuilt request
// and reads; this object hands its events to the probe (http.ts) exactly as a ProbeSocket
// does, so the same parser, deadline and close logic run on both engines.
import type { CloseMode } from "./connection.js";
import type { ProbeStream, SocketOwner } from "./http-socket.js";
import { socketError, type NativeProbeEngine, type NativeProbeSink, type NativeSyscall } from "./native-engine.js";

/** PAUSE_BYTES mirrors the addon's: after this much is delivered without an arm, it stops reading. */
const PAUSE_BYTES = 65536;

/**
 * NativeHttpConnection is one request's connection. Its deadline is the engine's per-probe
 * deadline: setTimeout(ms) moves it to ms from now (and resumes reading after a delivery), as
 * the probe re-arms a socket's idle timer after every read.
 */
export class NativeHttpConnection implements NativeProbeSink, ProbeStream {
  owner: SocketOwner | undefined;
  /** source is the local "ip:port" once connected (Go names it in read and write errors). */
  source: string | undefined;
  /** destroyed: the engine no longer holds the socket (closed here, or released at EOF or an error). */
  destroyed = false;
  private handle = -1;
  /** Bytes delivered since the last arm; at PAUSE_BYTES the engine paused reading until the next setTimeout. */
  private unarmed = 0;
  private deadlineAt = Number.NaN;

  constructor(
    private readonly engine: NativeProbeEngine,
    private readonly ip: string,
    private readonly port: number,
    owner: SocketOwner,
  ) {
    this.owner = owner;
  }

  /** open starts the connection; a failure to queue it is reported as the socket's error, asynchronously. */
  open(request: Buffer, timeoutMs: number, closeMode: CloseMode): this {
    this.handle = this.engine.dialHttp(this.ip, this.port, request, timeoutMs, closeMode, this);
    this.deadlineAt = performance.now() + timeoutMs;
    if (this.handle < 0) {
      this.destroyed = true;
      const err = socketError(-this.handle, "connect", this.ip, this.port);
      process.nextTick(() => this.owner?.onError(this, err));
    }
    return this;
  }

  setTimeout(ms: number): void {
    if (this.destroyed) return;
    const at = performance.now() + ms;
    // Re-arming to the deadline already set is a no-op unless reading must resume.
    if (this.unarmed < PAUSE_BYTES && Math.abs(at - this.deadlineAt) < 1) return;
    this.unarmed = 0;
    this.deadlineAt = at;
    this.engine.arm(this.handle, ms);
  }

  /** destroy closes the socket plainly (Node's destroy()). */
  destroy(): void {
    this.close("graceful");
  }

  /** close closes the socket with the close mode ("reset": RST). */
  close(mode: CloseMode): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.engine.close(this.handle, mode);
  }

  onConnected(): void {
    // HTTP connections report their first read, not the connect.
  }

  onError(errno: number, syscall: NativeSyscall, local: string): void {
    this.destroyed = true;
    if (local !== "") this.source = local;
    this.owner?.onError(this, socketError(errno, syscall, this.ip, this.port));
  }

  onTimeout(): void {
    this.deadlineAt = Number.NaN; // the engine disarmed it
    this.owner?.onTimeout(this);
  }

  onData(buf: Buffer, eof: boolean): void {
    // At EOF the engine has closed the socket with the probe's close mode already.
    if (eof) this.destroyed = true;
    else this.unarmed += buf.length;
    if (buf.length > 0) this.owner?.onRead(this, buf, buf.length);
    if (eof) this.owner?.onEnd(this);
  }
}
