// The CLI's HTTP transport: node:http and node:https requests answered as WHATWG Responses, so
// the client reads them as it read fetch's, with what fetch cannot do in Node 20: trust a given CA
// (the agent's self-signed serving certificate) and talk HTTP over a Unix socket (the agent's
// owner-only socket in its state directory). Failures keep fetch's shape (an Error whose cause
// carries the system error code) for the client's error mapping.
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { Readable } from "node:stream";
import { socketAddress } from "../server/unix-socket.js";

/** TransportRequest is one request: method, headers, optional body, a signal, and for HTTPS the CA to trust. */
export interface TransportRequest {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
  /** PEM certificates to trust instead of the system's (HTTPS only). */
  ca?: Buffer;
  /** Send the request over this Unix socket (the URL then only gives the path). */
  socketPath?: string;
}

/** Statuses whose responses have no body (a Response refuses one). */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/** sendRequest makes one request and resolves with its Response once the headers have arrived. */
export function sendRequest(url: string, options: TransportRequest): Promise<Response> {
  const target = new URL(url);
  const request = target.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const fail = (err: unknown): void => reject(Object.assign(new Error("fetch failed"), { cause: err }));
    if (options.signal.aborted) return reject(options.signal.reason);
    let socket: ReturnType<typeof socketAddress> | undefined;
    try {
      socket = options.socketPath === undefined ? undefined : socketAddress(options.socketPath);
    } catch (err) {
      return fail(err);
    }
    const via = socket === undefined ? {} : { socketPath: socket.path };
    const req = request(target, { method: options.method, headers: options.headers, signal: options.signal, ...via, ...(options.ca !== undefined ? { ca: options.ca } : {}) }, (res: IncomingMessage) => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(res.headers)) {
        if (Array.isArray(value)) for (const v of value) headers.append(name, v);
        else if (value !== undefined) headers.set(name, value);
      }
      const status = res.statusCode ?? 500;
      const body = NULL_BODY_STATUSES.has(status) ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
      if (body === null) res.resume();
      resolve(new Response(body, { status, statusText: res.statusMessage ?? "", headers }));
    });
    req.once("error", (err: Error) => (options.signal.aborted ? reject(options.signal.reason) : fail(err)));
    // The socket's directory descriptor (a long path) is needed only to connect.
    if (socket !== undefined) req.once("socket", (s) => s.once("connect", () => socket.release()).once("close", () => socket.release()));
    req.end(options.body);
  });
}
