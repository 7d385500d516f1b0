// The WebSocket side of exec: upgrades a request with the `ws` package (RFC 6455 handshake,
// framing, masking, fragmentation, ping/pong, close codes and payload limits are its job) or
// refuses it with a metav1.Status as an HTTP answer. See docs/kube-api.md, section "exec", for
// why `ws` rather than a handwritten server.
import type { IncomingMessage } from "node:http";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import type { ExecStatus } from "./exec-status.js";

/** MAX_MESSAGE_BYTES bounds one client message (kubectl sends stdin in 32 KiB pieces); larger ones close the socket with 1009. */
export const MAX_MESSAGE_BYTES = 1024 * 1024;

/**
 * upgradeToWebSocket completes the handshake with the given subprotocol and resolves with the
 * open socket, or with undefined when `ws` refused the handshake (bad Sec-WebSocket-Key or
 * version: it answers 400 itself) or the connection closed first.
 */
export function upgradeToWebSocket(req: IncomingMessage, socket: Duplex, head: Buffer, protocol: string): Promise<WebSocket | undefined> {
  const server = new WebSocketServer({
    noServer: true,
    clientTracking: false,
    perMessageDeflate: false,
    maxPayload: MAX_MESSAGE_BYTES,
    handleProtocols: () => protocol,
  });
  return new Promise((resolve) => {
    const onClose = (): void => {
      server.close();
      resolve(undefined);
    };
    socket.once("close", onClose);
    server.handleUpgrade(req, socket, head, (ws) => {
      socket.off("close", onClose);
      server.close();
      resolve(ws);
    });
  });
}

/** isWebSocketUpgrade tells whether a request asks for a WebSocket (Upgrade: websocket). */
export function isWebSocketUpgrade(req: IncomingMessage): boolean {
  return (req.headers.upgrade ?? "").toLowerCase() === "websocket";
}

/** refuseUpgrade answers an upgrade request with a Status as plain HTTP and closes the connection. */
export function refuseUpgrade(socket: Duplex, status: ExecStatus): void {
  const code = status.code ?? 500;
  const body = JSON.stringify(status);
  socket.on("error", () => undefined);
  socket.end(
    `HTTP/1.1 ${code} ${STATUS_CODES[code] ?? "Error"}\r\n` +
      "Content-Type: application/json\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      "Connection: close\r\n\r\n" +
      body,
  );
}
