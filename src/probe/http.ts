// The httpGet handler (kubelet pkg/probe/http/http.go: DoHTTPProbe, RedirectChecker) on Node's
// http module, with the transport the kubelet configures: one fresh connection per request
// (keep-alives off, `Connection: close`), no proxy, no compression, TLS without verification,
// one deadline over connect + TLS + headers + body, and Go net/http's redirect rules.
import { request as httpRequest, type IncomingMessage } from "node:http";
import { connect as netConnect, isIP, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { systemClock } from "../util/clock.js";
import { dialHost, joinHostPort } from "./address.js";
import { closeProbeSocket, DEFAULT_CLOSE_MODE, type CloseMode } from "./connection.js";
import { goDialErrorText, goErrnoText, goInvalidPortText, goOpErrorText } from "./go-errors.js";
import { hasControlByte, parseUrlReference, renderUrl, resolveReference, splitHostPort, type HttpProbeRequest, type UrlParts } from "./http-request.js";
import { MAX_OUTPUT_BYTES, type HandlerOptions, type ProbeOutcome } from "./result.js";

/** HttpProbeOptions configure one httpGet probe. */
export interface HttpProbeOptions extends HandlerOptions {
  /** followNonLocalRedirects follows redirects to other hostnames too (the kubelet uses false). */
  followNonLocalRedirects: boolean;
  /** closeMode selects how probe sockets are closed (default "graceful"). */
  closeMode?: CloseMode;
}

const MAX_REQUESTS = 10; // Go's default CheckRedirect: an error once 10 requests have been sent
const MAX_RESPONSE_HEADER_BYTES = 10 << 20; // Go Transport's default MaxResponseHeaderBytes
const FIN_WAIT_MS = 1000; // how long a graceful close waits for the server's FIN
const MAX_TIMER_MS = 2 ** 31 - 1;
const REDIRECT_CODES = new Set([301, 302, 303, 307, 308]);
// Go strips these on a redirect to a host that is neither the original nor a subdomain of it.
const SENSITIVE = new Set(["Authorization", "Www-Authenticate", "Cookie", "Cookie2", "Proxy-Authorization", "Proxy-Authenticate"]);
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const CLOSE_TOKEN = /(^|,)\s*close\s*(,|$)/i;
const HEADERS_TIMEOUT = "context deadline exceeded (Client.Timeout exceeded while awaiting headers)";
const BODY_TIMEOUT = "context deadline exceeded (Client.Timeout or context cancellation while reading body)";

/**
 * probeHttp performs one HTTP GET probe. 2xx → success with the body (first 10240 bytes) as
 * output; 3xx (a redirect that was not followed) → warning `Probe terminated redirects,
 * Response body: <body>`; anything else → failure `HTTP probe failed with statuscode: <code>`
 * (never with the body, k8s #99425). Transport errors and timeouts are failures worded like
 * Go's client errors; a body read error is an errored probe (failure, "", error). It never
 * rejects, and every socket and timer it used is closed before it settles.
 */
export function probeHttp(request: HttpProbeRequest, options: HttpProbeOptions): Promise<ProbeOutcome> {
  return new Promise((resolve) => new HttpProbe(request, options, resolve).start());
}

/** Hop is one request of a redirect chain: its URL, Host override and Referer. */
interface Hop { url: string; parts: UrlParts; host: string; referer: string }

/**
 * HttpProbe runs one probe: a chain of at most 10 exchanges, one connection each. The deadline
 * is the connection's own timer (socket.setTimeout), brought back to the time left after every
 * read, so it bounds connect, TLS, headers and body alike; destroying the socket clears it.
 */
class HttpProbe {
  private readonly deadline: number;
  private readonly mode: CloseMode;
  private settled = false;
  private sent = 0;
  private firstAuthority = "";
  private firstHostname = "";
  private stripSensitive = false;
  private hop = 0; // tells events of the current exchange from those of earlier ones
  private current: Hop | undefined;
  private dialAddr = "";
  private raw: Socket | undefined;
  private stream: Socket | undefined; // raw, or the TLS socket over it
  private phase: "headers" | "body" | "closing" = "headers";
  private status = 0;
  private chunks: Buffer[] = [];
  private bodyBytes = 0;
  private finSeen = false;
  private next: Hop | undefined; // the redirect to follow once this response is drained
  private pending: ProbeOutcome | undefined; // the final outcome, while waiting for the FIN

  constructor(
    private readonly request: HttpProbeRequest,
    private readonly options: HttpProbeOptions,
    private readonly resolve: (outcome: ProbeOutcome) => void,
  ) {
    this.mode = options.closeMode ?? DEFAULT_CLOSE_MODE;
    this.deadline = systemClock.monotonic() + options.timeoutMs;
  }

  start(): void {
    const { signal } = this.options;
    if (signal?.aborted) return this.finish(this.failure("context canceled"));
    signal?.addEventListener("abort", this.onAbort, { once: true });
    const parts = parseUrlReference(this.request.url);
    if (typeof parts === "string") return this.finish({ result: "failure", output: `parse ${goQuote(this.request.url)}: ${parts}` });
    for (const [name, value] of this.request.headers) {
      if (!TOKEN.test(name)) return this.finish(this.failure(`net/http: invalid header field name ${goQuote(name)}`));
      if (hasControlByte(value, true)) return this.finish(this.failure(`net/http: invalid header field value for ${goQuote(name)}`));
    }
    this.firstAuthority = parts.authority ?? "";
    this.firstHostname = splitHostPort(this.firstAuthority)[0];
    this.send({ url: this.request.url, parts, host: this.request.host, referer: "" });
  }

  /** send opens a new connection and issues one GET on it (Go Transport, DisableKeepAlives). */
  private send(target: Hop): void {
    const hop = ++this.hop;
    this.current = target;
    this.next = undefined;
    this.phase = "headers";
    this.chunks = [];
    this.bodyBytes = 0;
    this.finSeen = false;
    this.sent++;
    const { parts } = target;
    const left = this.timeLeft();
    if (left <= 0) return this.expire(HEADERS_TIMEOUT, "");
    if (parts.scheme !== "http" && parts.scheme !== "https") {
      return this.finish(this.failure(`unsupported protocol scheme ${goQuote(parts.scheme)}`));
    }
    const authority = parts.authority ?? "";
    if (parts.opaque !== "" || authority === "") return this.finish(this.failure("http: no Host in request URL"));
    const [hostname, portText] = splitHostPort(authority);
    const port = portText === "" ? (parts.scheme === "https" ? 443 : 80) : Number(portText);
    if (port > 65535) return this.finish(this.failure(goInvalidPortText(port)));
    this.dialAddr = joinHostPort(hostname, port); // as Go prints it (":80" for an empty host)
    try {
      const raw = (this.raw = netConnect({ host: dialHost(hostname), port }));
      const tlsOptions = { socket: raw, servername: isIP(hostname) ? "" : hostname, rejectUnauthorized: false, ALPNProtocols: ["http/1.1"] };
      const stream = (this.stream = parts.scheme === "https" ? tlsConnect(tlsOptions) : raw);
      // Node half-closes as soon as it has parsed a Connection: close response. We close in
      // onEnd instead, after the server's FIN, so the TIME-WAIT stays on the server (k8s #89898).
      stream.destroySoon = holdOpen;
      const onError = (err: Error): void => this.onError(hop, err);
      raw.on("error", onError);
      if (stream !== raw) stream.on("error", onError);
      stream.on("end", () => this.onFin(hop));
      stream.on("timeout", () => this.onTimeout(hop));
      stream.setTimeout(left);
      const req = httpRequest({
        method: "GET",
        path: (parts.path || "/") + (parts.query === undefined ? "" : `?${parts.query}`),
        headers: this.wireHeaders(target.host || authority, target.referer),
        setHost: false,
        maxHeaderSize: MAX_RESPONSE_HEADER_BYTES,
        createConnection: () => stream,
      });
      req.shouldKeepAlive = false;
      req.on("error", onError);
      req.on("response", (res: IncomingMessage) => this.onResponse(hop, res));
      req.on("upgrade", (res: IncomingMessage) => this.onResponse(hop, res, true));
      req.end();
    } catch (err) {
      this.finish(this.failure(goErrorText(err, this.dialAddr)));
    }
  }

  /** wireHeaders lists the header lines as Go writes them: Host first, then the request's lines. */
  private wireHeaders(host: string, referer: string): string[] {
    const zone = host.startsWith("[") ? host.indexOf("%") : -1; // Go drops an IPv6 zone from Host
    const out = ["Host", zone < 0 ? host : host.slice(0, zone) + host.slice(host.indexOf("]"))];
    let close = false;
    for (const [name, value] of this.request.headers) {
      if (this.stripSensitive && SENSITIVE.has(name)) continue;
      if (name === "Connection" && CLOSE_TOKEN.test(value)) close = true;
      out.push(name, value);
    }
    if (referer !== "") out.push("Referer", referer);
    if (!close) out.push("Connection", "close");
    return out;
  }

  private onResponse(hop: number, res: IncomingMessage, upgraded = false): void {
    if (hop !== this.hop || this.settled) return;
    this.status = res.statusCode ?? 0;
    if (upgraded) return this.finish(statusOutcome(this.status, "")); // 101: final, like any status
    const location = res.headers.location;
    if (REDIRECT_CODES.has(this.status) && location) {
      const ref = parseUrlReference(location);
      if (typeof ref === "string") {
        return this.finish(this.failure(`failed to parse Location header ${goQuote(location)}: parse ${goQuote(location)}: ${ref}`));
      }
      const parts = resolveReference(this.current!.parts, ref);
      const hostname = splitHostPort(parts.authority ?? "")[0];
      // kubelet RedirectChecker: a redirect off the original hostname (port ignored) is not
      // followed and the 3xx is the answer; otherwise Go's cap applies.
      if (this.options.followNonLocalRedirects || hostname === this.firstHostname) {
        if (this.sent >= MAX_REQUESTS) return this.finish(this.failure("stopped after 10 redirects", location));
        this.next = this.nextHop(parts, ref.scheme === "", hostname);
      }
    }
    this.phase = "body";
    res.on("data", (chunk: Buffer) => this.onData(hop, chunk));
    res.on("end", () => this.onEnd(hop));
    res.on("error", (err) => this.onError(hop, err));
  }

  /**
   * nextHop builds a redirect request as Go's Client does: the Host override survives only a
   * relative Location, Referer is the previous URL (unless https→http or set by the user), and
   * credentials are dropped for good once the chain leaves the original domain.
   */
  private nextHop(parts: UrlParts, relative: boolean, hostname: string): Hop {
    const first = this.firstAuthority;
    if (parts.authority !== first && !isDomainOrSubdomain(hostname, this.firstHostname)) this.stripSensitive = true;
    const { host, headers } = this.request;
    const userReferer = headers.some(([name]) => name === "Referer");
    const downgrade = this.current!.parts.scheme === "https" && parts.scheme === "http";
    return {
      url: renderUrl(parts),
      parts,
      host: host !== "" && host !== first && relative ? host : "",
      referer: userReferer || downgrade ? "" : this.current!.url,
    };
  }

  private onData(hop: number, chunk: Buffer): void {
    if (hop !== this.hop || this.settled || this.phase !== "body") return;
    const room = MAX_OUTPUT_BYTES - this.bodyBytes;
    this.chunks.push(chunk.length < room ? chunk : chunk.subarray(0, room));
    this.bodyBytes += Math.min(chunk.length, room);
    if (this.bodyBytes < MAX_OUTPUT_BYTES) {
      this.stream!.setTimeout(Math.max(1, this.timeLeft())); // reading restarted the idle timer
      return;
    }
    // kubelet ReadAtMost: reaching the cap is not an error; stop reading and close.
    this.closeAndProceed(this.next ? undefined : statusOutcome(this.status, this.body()));
  }

  /** onEnd: the response is complete. Gracefully, wait for the server's FIN before closing. */
  private onEnd(hop: number): void {
    if (hop !== this.hop || this.settled || this.phase !== "body") return;
    this.phase = "closing";
    this.pending = this.next ? undefined : statusOutcome(this.status, this.body());
    if (this.mode === "graceful" && !this.finSeen && !this.stream!.destroyed) {
      this.stream!.setTimeout(Math.max(1, Math.min(FIN_WAIT_MS, this.timeLeft())));
      this.stream!.resume();
    } else {
      this.closeAndProceed();
    }
  }

  private onFin(hop: number): void {
    if (hop !== this.hop || this.settled) return;
    this.finSeen = true;
    if (this.phase === "closing") this.closeAndProceed();
  }

  private onError(hop: number, err: Error): void {
    if (hop !== this.hop || this.settled) return;
    this.closeSockets();
    if (this.phase === "headers") return this.finish(this.failure(goErrorText(err, this.dialAddr)));
    // Go ignores errors while draining a redirect's body; on the final body they error the probe.
    if (this.phase === "body" && !this.next) return this.finish(errored(goErrorText(err, this.dialAddr, true)));
    this.closeAndProceed();
  }

  /** onTimeout: the connection's timer ran out, at the deadline or at the end of a FIN wait. */
  private onTimeout(hop: number): void {
    if (hop !== this.hop || this.settled) return;
    const left = this.timeLeft();
    if (this.phase === "closing") return left > 0 || !this.next ? this.closeAndProceed() : this.expire(HEADERS_TIMEOUT, "");
    if (left > 0) this.stream!.setTimeout(left);
    else this.expire(HEADERS_TIMEOUT, BODY_TIMEOUT);
  }

  private readonly onAbort = (): void => this.expire("context canceled", "");

  /** expire ends the probe at its deadline (or on abort), worded by how far it got. */
  private expire(headersText: string, bodyText: string): void {
    if (this.settled) return;
    if (this.phase === "closing" && !this.next) return this.finish(this.pending!);
    if (this.phase === "body" && !this.next && bodyText !== "") return this.finish(errored(bodyText));
    this.finish(this.failure(headersText, this.next?.url));
  }

  /** closeAndProceed closes the connection, then follows the pending redirect or settles. */
  private closeAndProceed(outcome = this.pending): void {
    this.closeSockets();
    if (this.next) this.send(this.next);
    else this.finish(outcome!);
  }

  private timeLeft(): number {
    return Math.min(MAX_TIMER_MS, Math.ceil(this.deadline - systemClock.monotonic()));
  }

  private failure(text: string, url = this.current?.url ?? this.request.url): ProbeOutcome {
    return { result: "failure", output: `Get ${goQuote(url)}: ${text}` };
  }

  private body(): string {
    if (this.chunks.length === 1) return this.chunks[0]!.toString("utf8");
    return Buffer.concat(this.chunks, this.bodyBytes).toString("utf8");
  }

  private closeSockets(): void {
    const { raw, stream } = this;
    if (raw && !raw.destroyed) closeProbeSocket(raw, this.mode);
    if (stream && !stream.destroyed) stream.destroy();
  }

  private finish(outcome: ProbeOutcome): void {
    if (this.settled) return;
    this.settled = true;
    this.closeSockets();
    this.options.signal?.removeEventListener("abort", this.onAbort);
    this.resolve(outcome);
  }
}

/** statusOutcome maps the final status like DoHTTPProbe. */
function statusOutcome(status: number, body: string): ProbeOutcome {
  if (status >= 200 && status < 300) return { result: "success", output: body };
  if (status >= 300 && status < 400) return { result: "warning", output: `Probe terminated redirects, Response body: ${body}` };
  return { result: "failure", output: `HTTP probe failed with statuscode: ${status}` };
}

/** errored is the "could not probe" outcome of a body read error (kubelet: failure, "", err). */
function errored(text: string): ProbeOutcome {
  return { result: "failure", output: "", error: new Error(text) };
}

/** isDomainOrSubdomain is Go's test that lets credentials follow "foo.com" → "sub.foo.com". */
function isDomainOrSubdomain(sub: string, parent: string): boolean {
  if (sub === parent) return true;
  if (sub.includes(":") || sub.includes("%")) return false;
  return sub.endsWith(parent) && sub.charAt(sub.length - parent.length - 1) === ".";
}

/** holdOpen stands in for a probe socket's destroySoon: done writing, but no FIN yet. */
function holdOpen(this: Socket): void {
  (this as { writable: boolean }).writable = false;
}

/** goErrorText words a Node transport error like Go's net/http (informative, not contractual). */
function goErrorText(err: unknown, addr: string, inBody = false): string {
  const e = (err ?? {}) as NodeJS.ErrnoException;
  const code = e.code ?? "";
  if (err instanceof AggregateError || e.syscall === "connect" || e.syscall === "getaddrinfo") return goDialErrorText(err, addr);
  if (e.syscall === "read" || e.syscall === "write") return goOpErrorText(e.syscall, "tcp", addr, `${e.syscall}: ${goErrnoText(code) ?? code}`);
  if (code === "ECONNRESET") return inBody ? "unexpected EOF" : "EOF"; // "socket hang up" / "aborted"
  if (code === "HPE_HEADER_OVERFLOW") return `net/http: server response headers exceeded ${MAX_RESPONSE_HEADER_BYTES} bytes; aborted`;
  if (code.startsWith("HPE_")) return "net/http: HTTP/1.x transport connection broken: malformed HTTP response";
  return err instanceof Error ? err.message : String(err);
}

/** goQuote approximates Go's %q for the URLs and names quoted in errors. */
function goQuote(text: string): string {
  return JSON.stringify(text);
}
