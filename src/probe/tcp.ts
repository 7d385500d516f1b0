// The tcpSocket handler (kubelet pkg/probe/tcp/tcp.go, spec §B.3): open a TCP connection
// to host:port within the timeout and close it again. Nothing is written or read, so any
// listener passes, whatever protocol it speaks.
import { isIP, Socket } from "node:net";
import { dialHost, joinHostPort } from "./address.js";
import { closeProbeSocket, DEFAULT_CLOSE_MODE, type CloseMode } from "./connection.js";
import { GO_IO_TIMEOUT, GO_OPERATION_CANCELED, goDialErrorText, goInvalidPortText, goOpErrorText } from "./go-errors.js";
import { nativeDialIp } from "./native-engine.js";
import { nativeEngine } from "./probe-engine.js";
import type { HandlerOptions, ProbeOutcome } from "./probe-result.js";
import { probeTcpNative } from "./tcp-native.js";

/** TcpProbeTarget is where a tcpSocket probe connects; an empty host dials the local host. */
export interface TcpProbeTarget {
  host: string;
  port: number;
}

/** TcpProbeOptions are the handler options plus how the probe socket is closed. */
export interface TcpProbeOptions extends HandlerOptions {
  /** How the connected socket is closed (default "graceful", see docs/connection-hygiene.md). */
  closeMode?: CloseMode;
}

/** isDialablePort mirrors Go's port check at dial time: an integer in 0–65535 (0 is dialled and refused). */
export function isDialablePort(port: number): boolean {
  return Number.isInteger(port) && port >= 0 && port <= 65535;
}

/**
 * probeTcp dials target within options.timeoutMs and closes the connection at once.
 * Resolves `{ result: "success", output: "" }` when the connection was established and a
 * failure whose output is Go's dial error text otherwise, e.g.
 * "dial tcp 127.0.0.1:8080: connect: connection refused" or "dial tcp 10.0.0.5:8080: i/o timeout"
 * (kubelet tcp.go: dial errors become failures, never errors). Never rejects and leaves no
 * socket or timer behind. A timeout of 0 or less means no dial timeout, as in Go.
 */
export function probeTcp(target: TcpProbeTarget, options: TcpProbeOptions): Promise<ProbeOutcome> {
  const { host, port } = target;
  // Go rejects the port before any socket exists: "dial tcp: address -1: invalid port" (case 59).
  if (!isDialablePort(port)) return Promise.resolve(failure(goInvalidPortText(port)));
  const signal = options.signal;
  if (signal?.aborted) return Promise.resolve(failure(goOpErrorText("dial", "tcp", joinHostPort(host, port), GO_OPERATION_CANCELED)));
  const closeMode = options.closeMode ?? DEFAULT_CLOSE_MODE;
  // IP targets go to the native engine when it is in use; names keep Node's lookup.
  const native = nativeEngine();
  const ip = native === undefined ? undefined : nativeDialIp(host);
  if (ip !== undefined) return probeTcpNative(native!, ip, host, port, options, closeMode);

  // The "host:port" of the texts is only rendered when a probe fails (this path is hot).
  let peer: string | undefined;
  const dialed = (): string => (peer ??= joinHostPort(host, port));

  return new Promise<ProbeOutcome>((resolve) => {
    const socket = new Socket();
    let settled = false;
    // Every path destroys the socket before settling, which also clears its timer.
    const abandon = (text: string): void => {
      socket.destroy();
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      resolve(failure(text));
    };
    const onAbort = (): void => abandon(goOpErrorText("dial", "tcp", dialed(), GO_OPERATION_CANCELED));

    // An error before the probe settles is the dial error; anything later is ignored.
    socket.on("error", (err) => abandon(goDialErrorText(err, joinHostPort(host, port))));
    if (host !== "" && isIP(host) === 0) {
      // Go names the resolved peer in a dial error, not the host name that was looked up.
      socket.once("lookup", (err, resolved) => {
        if (err === null) peer = joinHostPort(resolved, port);
      });
    }
    socket.once("connect", () => {
      // kubelet tcp.go: close at once; a close error would only be logged.
      closeProbeSocket(socket, closeMode);
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      resolve({ result: "success", output: "" });
    });
    if (options.timeoutMs > 0) {
      // The socket's idle timer runs from here through the lookup and the connect, so it is
      // the dial timeout (Go's DialTimeout also covers the lookup).
      socket.setTimeout(options.timeoutMs, () => abandon(goOpErrorText("dial", "tcp", dialed(), GO_IO_TIMEOUT)));
    }
    signal?.addEventListener("abort", onAbort, { once: true });

    try {
      socket.connect({ host: dialHost(host), port, lookup: options.lookup });
    } catch (err) {
      abandon(goDialErrorText(err, joinHostPort(host, port)));
    }
  });
}

function failure(output: string): ProbeOutcome {
  return { result: "failure", output };
}
