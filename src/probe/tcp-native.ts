// The tcpSocket probe on the native engine: the same dial, close and texts as tcp.ts, with the
// connect and close made by the addon's thread.
import { joinHostPort } from "./address.js";
import type { CloseMode } from "./connection.js";
import { GO_IO_TIMEOUT, GO_OPERATION_CANCELED, goDialErrorText, goOpErrorText } from "./go-errors.js";
import { socketError, type NativeProbeEngine, type NativeProbeSink, type NativeSyscall } from "./native-engine.js";
import type { HandlerOptions, ProbeOutcome } from "./probe-result.js";

/**
 * probeTcpNative dials ip:port (the IP that `host` names) within options.timeoutMs on the
 * native engine and closes at once; outcomes and texts are probeTcp's ("host:port" as given).
 */
export function probeTcpNative(engine: NativeProbeEngine, ip: string, host: string, port: number, options: HandlerOptions, closeMode: CloseMode): Promise<ProbeOutcome> {
  return new Promise((resolve) => new TcpNativeProbe(engine, ip, host, port, options.signal, resolve).start(options.timeoutMs, closeMode));
}

class TcpNativeProbe implements NativeProbeSink {
  private handle = -1;
  private settled = false;
  /** The abort listener, made only for a probe that has a signal. */
  private onAbort: (() => void) | undefined;

  constructor(
    private readonly engine: NativeProbeEngine,
    private readonly ip: string,
    private readonly host: string,
    private readonly port: number,
    private readonly signal: AbortSignal | undefined,
    private readonly resolve: (outcome: ProbeOutcome) => void,
  ) {}

  start(timeoutMs: number, closeMode: CloseMode): void {
    const handle = (this.handle = this.engine.dialTcp(this.ip, this.port, timeoutMs, closeMode, this));
    if (handle < 0) return this.onError(-handle, "connect");
    if (this.signal === undefined) return;
    this.onAbort = (): void => {
      this.engine.close(this.handle, "graceful");
      this.settle(goOpErrorText("dial", "tcp", joinHostPort(this.host, this.port), GO_OPERATION_CANCELED));
    };
    this.signal.addEventListener("abort", this.onAbort, { once: true });
  }

  onConnected(): void {
    this.settle("");
  }

  onError(errno: number, syscall: NativeSyscall): void {
    this.settle(tcpDialErrorText(errno, syscall, this.ip, this.host, this.port));
  }

  onTimeout(): void {
    this.settle(tcpDialTimeoutText(this.host, this.port));
  }

  onData(): void {
    // A tcpSocket probe reads nothing; the engine delivers no data for it.
  }

  /** settle resolves once: "" is success, any other text a failure with that output. */
  private settle(failureText: string): void {
    if (this.settled) return;
    this.settled = true;
    if (this.onAbort !== undefined) this.signal?.removeEventListener("abort", this.onAbort);
    this.resolve(failureText === "" ? { result: "success", output: "" } : { result: "failure", output: failureText });
  }
}

/** tcpDialErrorText is Go's text for a failed dial of ip:port ("host:port" as given), as probeTcp renders it. */
export function tcpDialErrorText(errno: number, syscall: NativeSyscall, ip: string, host: string, port: number): string {
  return goDialErrorText(socketError(errno, syscall, ip, port), joinHostPort(host, port));
}

/** tcpDialTimeoutText is Go's text for a dial that ran out of time. */
export function tcpDialTimeoutText(host: string, port: number): string {
  return goOpErrorText("dial", "tcp", joinHostPort(host, port), GO_IO_TIMEOUT);
}
