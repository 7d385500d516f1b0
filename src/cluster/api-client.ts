// A small Kubernetes API client on node:https (Node 20's fetch takes no CA or client
// certificate): JSON requests with bounded responses, watch streams, the API server's Status
// errors kept as they are, and client-go's rest client retry of 429/5xx answers that carry
// Retry-After (client-go rest/request.go request, checkWait; at most 10 retries).
import { request as httpsRequest, Agent as HttpsAgent, type RequestOptions } from "node:https";
import type { IncomingMessage } from "node:http";
import { goDialErrorText } from "../probe/go-errors.js";
import type { Clock } from "../util/clock.js";
import { silentLogger, type Logger } from "../util/logger.js";
import type { ClusterCredentials } from "./kubeconfig.js";

/** MAX_RESPONSE_BYTES bounds one response body (a pod list of a busy node fits easily). */
export const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
/** MAX_WATCH_EVENT_BYTES bounds one watch event (one line of the stream). */
export const MAX_WATCH_EVENT_BYTES = 4 * 1024 * 1024;
/** MAX_RETRIES is client-go's rest client limit on Retry-After retries. */
export const MAX_RETRIES = 10;
/** REQUEST_TIMEOUT_MS bounds every non-watch request. */
export const REQUEST_TIMEOUT_MS = 30_000;

/** ApiStatus is the API server's metav1.Status error body. */
export interface ApiStatus {
  kind?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: Record<string, unknown>;
}

/** ApiStatusError is an answer of the API server other than 2xx; the message is the server's. */
export class ApiStatusError extends Error {
  override readonly name = "ApiStatusError";
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** isStatus tells whether an error is an API server answer with that code. */
export function isStatus(err: unknown, code: number): boolean {
  return err instanceof ApiStatusError && err.code === code;
}

/** WatchEvent is one event of a watch stream (metav1.WatchEvent). */
export interface ApiWatchEvent<T = Record<string, unknown>> {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  object: T;
}

/** RequestOptions of one API call. */
export interface ApiRequestOptions {
  body?: unknown;
  /** Content type of the body (default application/json; patches name their kind). */
  contentType?: string;
  signal?: AbortSignal;
}

/** ApiClientOptions configure an ApiClient. */
export interface ApiClientOptions {
  credentials: ClusterCredentials;
  clock: Clock;
  logger?: Logger;
  /** The User-Agent header (default probelet). */
  userAgent?: string;
}

/** ApiClient talks to one API server with one identity. */
export class ApiClient {
  private agent: HttpsAgent;
  private readonly log: Logger;

  constructor(private readonly options: ApiClientOptions) {
    this.agent = newAgent(options.credentials);
    this.log = (options.logger ?? silentLogger).child("apiclient");
  }

  /**
   * useClientCertificate switches to a new client certificate (a rotated one): new connections
   * present it, and every open connection is closed, as the kubelet closes its connections when
   * its certificate rotates (watches are opened again by their reflectors).
   */
  useClientCertificate(cert: Buffer, key: Buffer): void {
    const old = this.agent;
    this.agent = newAgent({ ...this.options.credentials, clientCert: cert, clientKey: key });
    old.destroy();
  }

  /** server is the API server's URL. */
  get server(): string {
    return this.options.credentials.server;
  }

  /**
   * request sends one call and returns the decoded JSON answer. A 429 or 5xx with Retry-After is
   * retried after that many seconds, at most MAX_RETRIES times; other errors reject with an
   * ApiStatusError (the server's message) or a Go-style transport error.
   */
  async request<T>(method: string, path: string, options: ApiRequestOptions = {}): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await this.send(method, path, options, REQUEST_TIMEOUT_MS);
        const body = await readBounded(res, MAX_RESPONSE_BYTES, `${goMethod(method)} "${this.server}${path}"`);
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) return (body.length === 0 ? {} : JSON.parse(body.toString("utf8"))) as T;
        throw this.refusal(method, path, statusError(status, body, res.headers["retry-after"]));
      } catch (err) {
        const wait = err instanceof ApiStatusError ? err.retryAfterSeconds : undefined;
        if (wait === undefined || attempt >= MAX_RETRIES || options.signal?.aborted) throw err;
        this.log.info("Got a Retry-After response", { code: (err as ApiStatusError).code, delay: `${wait}s`, attempt: attempt + 1, url: path });
        await this.options.clock.sleep(wait * 1000, options.signal);
      }
    }
  }

  /**
   * watch opens a watch stream and calls onEvent for each event until the server ends the stream
   * (resolves), the signal aborts (resolves), or the stream fails (rejects). A non-2xx answer
   * rejects with its ApiStatusError before any event.
   */
  async watch(path: string, onEvent: (event: ApiWatchEvent) => void, signal: AbortSignal): Promise<void> {
    const res = await this.send("GET", path, { signal }, undefined);
    const status = res.statusCode ?? 0;
    if (status < 200 || status >= 300) {
      const body = await readBounded(res, MAX_RESPONSE_BYTES, `GET "${this.server}${path}"`);
      throw this.refusal("GET", path, statusError(status, body, res.headers["retry-after"]));
    }
    await new Promise<void>((resolve, reject) => {
      let pending = "";
      const fail = (err: Error): void => {
        res.destroy();
        reject(err);
      };
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        pending += chunk;
        let newline;
        while ((newline = pending.indexOf("\n")) >= 0) {
          const line = pending.slice(0, newline).trim();
          pending = pending.slice(newline + 1);
          if (line === "") continue;
          let event: ApiWatchEvent;
          try {
            event = JSON.parse(line) as ApiWatchEvent;
          } catch {
            fail(new Error(`watch ${path}: the server sent an event that is not JSON`));
            return;
          }
          onEvent(event);
        }
        if (pending.length > MAX_WATCH_EVENT_BYTES) fail(new Error(`watch ${path}: an event larger than ${MAX_WATCH_EVENT_BYTES} bytes`));
      });
      res.on("end", () => resolve());
      res.on("error", (err) => (signal.aborted ? resolve() : reject(err)));
      res.on("close", () => resolve());
    });
  }

  /**
   * refusal logs a 401 or 403 with the request it answered (the server's text names neither the
   * request nor, for a 401, the cause) and returns the error unchanged.
   */
  private refusal(method: string, path: string, err: ApiStatusError): ApiStatusError {
    if (err.code === 401) {
      this.log.warn("The API server did not accept the node's credentials (an expired or revoked token or client certificate?)", { request: `${method} ${this.server}${path}`, code: 401, err: err.message });
    } else if (err.code === 403) {
      this.log.warn("The API server refused the request: the node's identity may not do it", { request: `${method} ${this.server}${path}`, code: 403, err: err.message });
    }
    return err;
  }

  /** close drops the kept-alive connections. */
  close(): void {
    this.agent.destroy();
  }

  private send(method: string, path: string, options: ApiRequestOptions, timeoutMs: number | undefined): Promise<IncomingMessage> {
    const url = new URL(this.server + path);
    const c = this.options.credentials;
    const body = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
    const headers: Record<string, string> = {
      accept: "application/json",
      "user-agent": this.options.userAgent ?? "probelet",
    };
    if (c.token !== undefined) headers["authorization"] = `Bearer ${c.token}`;
    if (body !== undefined) {
      headers["content-type"] = options.contentType ?? "application/json";
      headers["content-length"] = String(body.length);
    }
    const requestOptions: RequestOptions = { method, host: url.hostname, port: url.port, path: url.pathname + url.search, headers, agent: this.agent, ...(options.signal ? { signal: options.signal } : {}) };
    return new Promise((resolve, reject) => {
      const req = httpsRequest(requestOptions, resolve);
      req.on("error", (err) => reject(transportError(method, url, err)));
      if (timeoutMs !== undefined) {
        req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error("i/o timeout"), { code: "ETIMEDOUT" })));
      }
      req.end(body);
    });
  }
}

/** newAgent is the connection pool of one identity. */
function newAgent(c: ClusterCredentials): HttpsAgent {
  return new HttpsAgent({
    keepAlive: true,
    maxSockets: 16,
    ...(c.ca !== undefined ? { ca: c.ca } : {}),
    ...(c.clientCert !== undefined ? { cert: c.clientCert, key: c.clientKey } : {}),
    rejectUnauthorized: !c.insecureSkipTlsVerify,
  });
}

/** goMethod spells an HTTP method as Go's url.Error does ("Get", "Patch"). */
function goMethod(method: string): string {
  return method.charAt(0) + method.slice(1).toLowerCase();
}

/** transportError words a failed connection as Go's net/http does: `Get "URL": dial tcp …: connect: connection refused`. */
function transportError(method: string, url: URL, err: Error): Error {
  const code = (err as { code?: string }).code;
  const address = `${url.hostname}:${url.port || "443"}`;
  const detail = code === "ECONNREFUSED" || code === "EHOSTUNREACH" || code === "ENETUNREACH" || code === "ETIMEDOUT" ? goDialErrorText(err, address) : err.message;
  return new Error(`${goMethod(method)} "${url.href}": ${detail}`, { cause: err });
}

/** statusError turns a non-2xx answer into an ApiStatusError with the server's own message. */
function statusError(code: number, body: Buffer, retryAfter: string | string[] | undefined): ApiStatusError {
  let status: ApiStatus = {};
  try {
    status = JSON.parse(body.toString("utf8")) as ApiStatus;
  } catch {
    status = { message: body.toString("utf8").slice(0, 512).trim() || `the server responded with the status code ${code}` };
  }
  const header = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
  const seconds = header !== undefined && /^\d+$/.test(header) && (code === 429 || code >= 500) ? Math.min(Number(header), 60) : undefined;
  return new ApiStatusError(code, status.reason ?? "", status.message ?? `the server responded with the status code ${code}`, seconds);
}

/** readBounded reads a whole response body of at most limit bytes. */
function readBounded(res: IncomingMessage, limit: number, what: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        res.destroy();
        reject(new Error(`${what}: the response is larger than ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    res.on("end", () => resolve(Buffer.concat(chunks, size)));
    res.on("error", reject);
  });
}
