// Writing complete (non-streaming) responses: JSON objects, metav1.Status failures and plain text,
// each with an exact Content-Length so keep-alive connections stay usable.
import type { ServerResponse } from "node:http";
import type { MetaStatus } from "./status-object.js";

/** JSON_CONTENT_TYPE is the Content-Type of every JSON answer. */
export const JSON_CONTENT_TYPE = "application/json";

/** TEXT_CONTENT_TYPE is the Content-Type of plain-text answers (healthz, logs). */
export const TEXT_CONTENT_TYPE = "text/plain; charset=utf-8";

/** PROMETHEUS_CONTENT_TYPE is the Prometheus text exposition format 0.0.4, as the kubelet serves /metrics. */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** sendBody ends the response with a complete body (text is sent as UTF-8); extra headers (e.g. Allow) are merged in. */
export function sendBody(res: ServerResponse, code: number, contentType: string, body: string | Uint8Array, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    cutStream(res);
    return;
  }
  const payload = typeof body === "string" ? Buffer.from(body, "utf8") : body;
  res.writeHead(code, { ...headers, "Content-Type": contentType, "Content-Length": payload.length });
  res.end(payload);
}

/** sendJson answers with a JSON document followed by a newline (as Go's json.Encoder writes it). */
export function sendJson(res: ServerResponse, code: number, value: unknown): void {
  sendBody(res, code, JSON_CONTENT_TYPE, `${JSON.stringify(value)}\n`);
}

/** sendStatus answers with a metav1.Status, using its code as the HTTP status. */
export function sendStatus(res: ServerResponse, status: MetaStatus, headers: Record<string, string> = {}): void {
  sendBody(res, status.code, JSON_CONTENT_TYPE, `${JSON.stringify(status)}\n`, headers);
}

/** sendText answers with plain text. */
export function sendText(res: ServerResponse, code: number, text: string): void {
  sendBody(res, code, TEXT_CONTENT_TYPE, text);
}

/**
 * cutStream ends a response whose headers are out without finishing its body: what was written
 * is flushed, then the connection closes without the final chunk, so the client sees a truncated
 * transfer (the only honest signal left once a stream has started).
 */
export function cutStream(res: ServerResponse): void {
  const socket = res.socket;
  if (socket === null || socket.destroyed) {
    res.destroy();
    return;
  }
  socket.end(() => socket.destroy());
}
