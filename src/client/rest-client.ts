// The one Kubernetes REST client (client-go's rest package, rest/request.go): the node's calls to
// the API server (src/cluster/) and the CLI's to the agent (src/cli/) go through it. JSON requests
// with bounded responses and a deadline, text streams and watch streams with bounded events, the
// server's Status errors kept whole, and client-go's retry of 429/5xx answers that carry
// Retry-After (request, checkWait; at most 10 retries). It talks HTTPS (verifying the server's
// certificate against the given CA, optionally presenting a client certificate), plain HTTP, or
// HTTP over a Unix socket; node:http(s) because Node 20's fetch takes no CA, client certificate
// or socket. The bearer token goes only in the Authorization header, never in a URL or a log.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type RequestOptions } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { goDialErrorText } from "../probe/go-errors.js";
import type { Clock } from "../util/clock.js";
import { silentLogger, type Logger } from "../util/logger.js";
import { socketAddress } from "../util/unix-socket.js";

/** MAX_RESPONSE_BYTES bounds one response body (a pod list of a busy node fits easily). */
export const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
/** MAX_WATCH_EVENT_BYTES bounds one watch event (one line of the stream). */
export const MAX_WATCH_EVENT_BYTES = 4 * 1024 * 1024;
/** MAX_RETRIES is client-go's rest client limit on Retry-After retries. */
export const MAX_RETRIES = 10;
/** REQUEST_TIMEOUT_MS bounds every request that is not a stream, its body included. */
export const REQUEST_TIMEOUT_MS = 30_000;
/** MAX_ERROR_TEXT is how much of a failure body that is not JSON an ApiStatusError keeps. */
const MAX_ERROR_TEXT = 512;

/** ApiStatus is a metav1.Status error body. */
export interface ApiStatus {
  kind?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: Record<string, unknown>;
}

/** ApiStatusError is an answer other than 2xx; the message is the server's. */
export class ApiStatusError extends Error {
  override readonly name = "ApiStatusError";
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly retryAfterSeconds?: number,
    /** The answer's body when it was a JSON object (a metav1.Status from an API server). */
    readonly status?: ApiStatus,
    /** The start of the answer's body as text (at most 512 characters). */
    readonly text?: string,
  ) {
    super(message);
  }
}

/** isStatus tells whether an error is an API server answer with that code. */
export function isStatus(err: unknown, code: number): boolean {
  return err instanceof ApiStatusError && err.code === code;
}

/** ApiWatchEvent is one event of a watch stream (metav1.WatchEvent). */
export interface ApiWatchEvent<T = Record<string, unknown>> {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  object: T;
}

/** ApiRequestOptions of one API call. */
export interface ApiRequestOptions {
  /** Sent as JSON. */
  body?: unknown;
  /** Content type of the body (default application/json; patches name their kind). */
  contentType?: string;
  /** The Accept header (default application/json). */
  accept?: string;
  signal?: AbortSignal;
}

/** RestCredentials say where the server is and how to trust it and be known to it. */
export interface RestCredentials {
  /** The server URL without a trailing slash (https://host:port or http://host:port). */
  server: string;
  /** PEM of the CA that signs the server's certificate; undefined uses the system's roots. */
  ca?: Buffer;
  /** Verify nothing about the server's certificate (only when a kubeconfig says so). */
  insecureSkipTlsVerify?: boolean;
  /** A bearer token (never logged). */
  token?: string;
  /** A client certificate and its key (PEM). */
  clientCert?: Buffer;
  clientKey?: Buffer;
  /** Connect to this Unix socket instead of the URL's host (the URL then gives only the scheme and path). */
  socketPath?: string;
}

/** RestClientOptions configure a RestClient. */
export interface RestClientOptions {
  credentials: RestCredentials;
  clock: Clock;
  logger?: Logger;
  /** The User-Agent header; none is sent without one. */
  userAgent?: string;
}

/** RestClient talks to one server with one identity. */
export class RestClient {
  private agent: HttpAgent;
  private readonly log: Logger;

  constructor(private readonly options: RestClientOptions) {
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

  /** server is the server's URL. */
  get server(): string {
    return this.options.credentials.server;
  }

  /**
   * request sends one call and returns the decoded JSON answer (an empty body is {}). A 429 or 5xx
   * with Retry-After is retried after that many seconds, at most MAX_RETRIES times; other errors
   * reject with an ApiStatusError (the server's message) or a Go-style transport error.
   */
  async request<T>(method: string, path: string, options: ApiRequestOptions = {}): Promise<T> {
    const body = await this.requestBody(method, path, options);
    return (body.length === 0 ? {} : JSON.parse(body.toString("utf8"))) as T;
  }

  /** requestText is request for an answer that is text (e.g. /healthz). */
  async requestText(method: string, path: string, options: ApiRequestOptions = {}): Promise<string> {
    return (await this.requestBody(method, path, options)).toString("utf8");
  }

  private async requestBody(method: string, path: string, options: ApiRequestOptions): Promise<Buffer> {
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await this.send(method, path, options, REQUEST_TIMEOUT_MS);
        const body = await readBounded(res, MAX_RESPONSE_BYTES, `${goMethod(method)} "${this.server}${path}"`);
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) return body;
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
   * stream GETs a path whose answer may be long or last (a log, a followed log) and yields it as
   * text chunks as they arrive, unbuffered, until the server ends it or the signal aborts; with
   * deadlineMs it fails with ETIMEDOUT when that passes. A non-2xx answer rejects with its
   * ApiStatusError before any chunk.
   */
  async *stream(path: string, signal: AbortSignal, deadlineMs?: number): AsyncIterable<string> {
    const res = await this.open(path, signal, deadlineMs);
    res.setEncoding("utf8");
    for await (const chunk of res) yield chunk as string;
  }

  /**
   * watchEvents opens a watch stream and yields its events until the server ends the stream or
   * the signal aborts; an event that is not JSON or longer than MAX_WATCH_EVENT_BYTES ends it with
   * an error. ERROR events are yielded like the others. A non-2xx answer rejects with its
   * ApiStatusError before any event.
   */
  async *watchEvents<T = Record<string, unknown>>(path: string, signal: AbortSignal): AsyncIterable<ApiWatchEvent<T>> {
    const res = await this.open(path, signal);
    res.setEncoding("utf8");
    let pending = "";
    try {
      for await (const chunk of res) {
        pending += chunk as string;
        let newline;
        while ((newline = pending.indexOf("\n")) >= 0) {
          // An event read whole in one chunk is held to the bound as much as one still pending.
          if (newline > MAX_WATCH_EVENT_BYTES) throw new Error(`watch ${path}: an event larger than ${MAX_WATCH_EVENT_BYTES} bytes`);
          const line = pending.slice(0, newline).trim();
          pending = pending.slice(newline + 1);
          if (line === "") continue;
          let event: ApiWatchEvent<T>;
          try {
            event = JSON.parse(line) as ApiWatchEvent<T>;
          } catch {
            throw new Error(`watch ${path}: the server sent an event that is not JSON`);
          }
          yield event;
        }
        if (pending.length > MAX_WATCH_EVENT_BYTES) throw new Error(`watch ${path}: an event larger than ${MAX_WATCH_EVENT_BYTES} bytes`);
      }
    } catch (err) {
      // The signal's abort and a connection closed before the end both end the stream quietly.
      if (signal.aborted || (err as { code?: unknown }).code === "ERR_STREAM_PREMATURE_CLOSE") return;
      throw err;
    } finally {
      res.destroy();
    }
  }

  /**
   * watch opens a watch stream and calls onEvent for each event until the server ends the stream
   * (resolves), the signal aborts (resolves), or the stream fails (rejects). A non-2xx answer
   * rejects with its ApiStatusError before any event.
   */
  async watch(path: string, onEvent: (event: ApiWatchEvent) => void, signal: AbortSignal): Promise<void> {
    for await (const event of this.watchEvents(path, signal)) onEvent(event);
  }

  /** open GETs a path and resolves with a 2xx answer whose body is left to read (a deadline, when given, covers the body too). */
  private async open(path: string, signal: AbortSignal, deadlineMs?: number): Promise<IncomingMessage> {
    const res = await this.send("GET", path, { signal }, deadlineMs);
    const status = res.statusCode ?? 0;
    if (status >= 200 && status < 300) return res;
    const body = await readBounded(res, MAX_RESPONSE_BYTES, `GET "${this.server}${path}"`);
    throw this.refusal("GET", path, statusError(status, body, res.headers["retry-after"]));
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

  /**
   * send makes one request and resolves with the answer once its headers have arrived; with a
   * deadline, the request and the reading of its body fail with ETIMEDOUT ("i/o timeout") when
   * it passes.
   */
  private send(method: string, path: string, options: ApiRequestOptions, deadlineMs: number | undefined): Promise<IncomingMessage> {
    const url = new URL(this.server + path);
    const c = this.options.credentials;
    const body = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
    const headers: Record<string, string> = { accept: options.accept ?? "application/json" };
    if (this.options.userAgent !== undefined) headers["user-agent"] = this.options.userAgent;
    if (c.token !== undefined) headers["authorization"] = `Bearer ${c.token}`;
    if (body !== undefined) {
      headers["content-type"] = options.contentType ?? "application/json";
      headers["content-length"] = String(body.length);
    }
    return new Promise((resolve, reject) => {
      if (options.signal?.aborted) return reject(transportError(method, url, options.signal.reason as Error));
      let socket: ReturnType<typeof socketAddress> | undefined;
      try {
        socket = c.socketPath === undefined ? undefined : socketAddress(c.socketPath);
      } catch (err) {
        return reject(transportError(method, url, err as Error));
      }
      const requestOptions: RequestOptions = {
        method, path: url.pathname + url.search, headers, agent: this.agent,
        ...(socket !== undefined ? { socketPath: socket.path } : { host: url.hostname, port: url.port }),
        ...(options.signal ? { signal: options.signal } : {}),
      };
      // The deadline covers the body too: the answer is destroyed with the request.
      const deadline = deadlineMs === undefined ? undefined : AbortSignal.timeout(deadlineMs);
      let answer: IncomingMessage | undefined;
      const req = (url.protocol === "https:" ? httpsRequest : httpRequest)(requestOptions, (res) => {
        answer = res;
        res.once("close", () => deadline?.removeEventListener("abort", expire));
        resolve(res);
      });
      const expire = (): void => {
        const err = Object.assign(new Error("i/o timeout"), { code: "ETIMEDOUT" });
        req.destroy(err);
        answer?.destroy(err);
      };
      deadline?.addEventListener("abort", expire, { once: true });
      req.on("error", (err) => {
        deadline?.removeEventListener("abort", expire);
        reject(transportError(method, url, err));
      });
      // A long socket path's directory descriptor is needed only to connect.
      if (socket !== undefined) {
        req.once("socket", (s) => {
          if (!s.connecting) return socket.release();
          s.once("connect", () => socket.release()).once("close", () => socket.release());
        });
      }
      req.end(body);
    });
  }
}

/** newAgent is the connection pool of one identity: HTTPS with its trust and certificate, or plain HTTP. */
function newAgent(c: RestCredentials): HttpAgent {
  if (!c.server.startsWith("https:")) return new HttpAgent({ keepAlive: true, maxSockets: 16 });
  return new HttpsAgent({
    keepAlive: true,
    maxSockets: 16,
    ...(c.ca !== undefined ? { ca: c.ca } : {}),
    ...(c.clientCert !== undefined ? { cert: c.clientCert, key: c.clientKey } : {}),
    rejectUnauthorized: c.insecureSkipTlsVerify !== true,
  });
}

/** goMethod spells an HTTP method as Go's url.Error does ("Get", "Patch"). */
function goMethod(method: string): string {
  return method.charAt(0) + method.slice(1).toLowerCase();
}

/** transportError words a failed connection as Go's net/http does: `Get "URL": dial tcp …: connect: connection refused`; the cause is the system's error. */
function transportError(method: string, url: URL, err: Error): Error {
  const code = (err as { code?: string }).code;
  const address = `${url.hostname}:${url.port || (url.protocol === "https:" ? "443" : "80")}`;
  const detail = code === "ECONNREFUSED" || code === "EHOSTUNREACH" || code === "ENETUNREACH" || code === "ETIMEDOUT" ? goDialErrorText(err, address) : err.message;
  return new Error(`${goMethod(method)} "${url.href}": ${detail}`, { cause: err });
}

/** statusError turns a non-2xx answer into an ApiStatusError with the server's own message. */
function statusError(code: number, body: Buffer, retryAfter: string | string[] | undefined): ApiStatusError {
  let status: ApiStatus | undefined;
  const text = body.toString("utf8", 0, Math.min(body.length, MAX_ERROR_TEXT * 4)).slice(0, MAX_ERROR_TEXT);
  try {
    const parsed = JSON.parse(body.toString("utf8")) as unknown;
    if (parsed !== null && typeof parsed === "object") status = parsed as ApiStatus;
  } catch {
    // not JSON: kept as text
  }
  const message = status?.message ?? ((status === undefined ? text.trim() : "") || `the server responded with the status code ${code}`);
  const header = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
  const seconds = header !== undefined && /^\d+$/.test(header) && (code === 429 || code >= 500) ? Math.min(Number(header), 60) : undefined;
  return new ApiStatusError(code, status?.reason ?? "", message, seconds, status, text);
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
