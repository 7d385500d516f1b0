// The httpGet handler (kubelet pkg/probe/http/http.go: DoHTTPProbe, RedirectChecker) as a small
// HTTP/1.1 client on a raw socket, with the transport the kubelet configures: one fresh
// connection per request (keep-alives off, `Connection: close`), no proxy, no compression, TLS
// without verification, one deadline over connect + TLS + headers + body, and Go net/http's
// redirect rules. The request bytes come prebuilt (http-target.ts), responses are parsed by
// http-response-parser.ts, and plain sockets read into one shared buffer (no per-read buffers).
import { systemClock } from "../util/clock.js";
import { closeProbeSocket, DEFAULT_CLOSE_MODE, type CloseMode } from "./connection.js";
import { CappedBody } from "./http-body.js";
import { BODY_TIMEOUT, goErrorText, goFirstRecordError, goQuote, HEADERS_TIMEOUT } from "./http-errors.js";
import { parseUrlReference, renderUrl, resolveReference, splitHostPort, type HttpProbeRequest, type UrlParts } from "./http-request.js";
import { HttpResponseParser, type ParseStatus, type ResponseSink } from "./http-response-parser.js";
import { NativeHttpConnection } from "./http-native.js";
import { dialProbeSocket, ProbeSocket, ServerHeadTap, startTls, type ProbeStream, type SocketOwner } from "./http-socket.js";
import { buildTarget, prepareHttpRequest, targetParts, type HttpTarget, type PreparedHttpRequest } from "./http-target.js";
import { nativeDialIp } from "./native-engine.js";
import { nativeEngine } from "./probe-engine.js";
import type { HandlerOptions, ProbeOutcome } from "./probe-result.js";
import type { HttpExpectation } from "../api/probe-extensions.js";

/** HttpProbeOptions configure one httpGet probe. */
export interface HttpProbeOptions extends HandlerOptions {
  /** followNonLocalRedirects follows redirects to other hostnames too (the kubelet uses false). */
  followNonLocalRedirects: boolean;
  /** closeMode selects how probe sockets are closed (default "graceful"). */
  closeMode?: CloseMode;
  /** An opt-in probe extension's success rule (accepted statuses, body pattern); absent: the kubelet's. */
  expect?: HttpExpectation;
}

const MAX_REQUESTS = 10; // Go's default CheckRedirect: an error once 10 requests have been sent
const FIN_WAIT_MS = 1000; // how long a graceful close waits for the server's FIN
const MAX_TIMER_MS = 2 ** 31 - 1;
const REDIRECT_CODES = new Set([301, 302, 303, 307, 308]);

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

/**
 * HttpProbe runs one probe: a chain of at most 10 exchanges, one connection each. The deadline
 * is the connection's own timer (socket.setTimeout), brought back to the time left after every
 * read, so it bounds connect, TLS, headers and body alike; destroying the socket clears it.
 * Events of a connection the probe already left are ignored (they carry their socket).
 */
class HttpProbe implements ResponseSink, SocketOwner {
  private readonly deadline: number;
  private readonly mode: CloseMode;
  private readonly parser = new HttpResponseParser(this);
  private prepared: PreparedHttpRequest | undefined;
  private settled = false;
  private sent = 0;
  private stripSensitive = false;
  private current: HttpTarget | undefined;
  private raw: ProbeSocket | NativeHttpConnection | undefined;
  private tap: ServerHeadTap | undefined; // https: carries TLS over raw, keeps the server's first bytes
  private stream: ProbeStream | undefined; // raw, or the TLS socket over it
  private phase: "headers" | "body" | "closing" = "headers";
  private status = 0;
  private readonly body = new CappedBody();
  private finSeen = false;
  private next: HttpTarget | undefined; // the redirect to follow once this response is drained
  private pending: ProbeOutcome | undefined; // the final outcome, while waiting for the FIN
  private finWaitEnd = 0;
  private onAbort: (() => void) | undefined;

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
    if (signal?.aborted) return this.finish(this.failure("context canceled", this.request.url));
    if (signal) {
      this.onAbort = () => this.expire("context canceled", "");
      signal.addEventListener("abort", this.onAbort, { once: true });
    }
    const prepared = (this.prepared = prepareHttpRequest(this.request));
    if (prepared.first === undefined) return this.finish({ ...prepared.failure! });
    this.send(prepared.first);
  }

  /** send opens a new connection and writes one request on it (Go Transport, DisableKeepAlives). */
  private send(target: HttpTarget): void {
    this.current = target;
    this.next = undefined;
    this.phase = "headers";
    this.parser.reset();
    this.body.reset();
    this.finSeen = false;
    this.sent++;
    const left = this.timeLeft();
    if (left <= 0) return this.expire(HEADERS_TIMEOUT, "");
    if (target.error !== "") return this.finish(this.failure(target.error));
    // Plain HTTP to an IP goes to the native engine when it is in use (TLS and names stay here).
    const native = target.tls ? undefined : nativeEngine();
    const ip = native === undefined ? undefined : nativeDialIp(target.connectHost);
    if (ip !== undefined) {
      this.tap = undefined;
      this.raw = this.stream = new NativeHttpConnection(native!, ip, target.connectPort, this).open(target.head, left, this.mode);
      return;
    }
    try {
      const raw = (this.raw = dialProbeSocket(target, this, this.options.lookup));
      this.tap = target.tls ? new ServerHeadTap(raw) : undefined;
      this.stream = this.tap ? startTls(this.tap, target, this) : raw;
      this.stream.setTimeout(left);
      if (!target.tls) raw.write(target.head); // TLS writes it after the handshake
    } catch (err) {
      this.finish(this.failure(goErrorText(err, target.dialAddr)));
    }
  }

  /** onRead parses what the connection read into buf[0, bytes). */
  onRead(socket: ProbeStream, buf: Buffer, bytes: number): void {
    if (socket !== this.stream || this.settled) return;
    // Bytes after the response are dropped; they must not stretch the FIN wait (reads restart the timer).
    if (this.phase === "closing") socket.setTimeout(Math.max(1, Math.ceil(this.finWaitEnd - systemClock.monotonic())));
    else this.afterParse(this.parser.feed(buf, 0, bytes));
  }

  /** onEnd: the server's FIN. It completes a body read to the end, or the graceful close. */
  onEnd(socket: ProbeStream): void {
    if (socket !== this.stream || this.settled) return;
    this.finSeen = true;
    if (this.phase === "closing") return this.closeAndProceed();
    this.afterParse(this.parser.eof());
  }

  onError(socket: ProbeStream, err: Error): void {
    if ((socket !== this.stream && socket !== this.raw) || this.settled) return;
    const addr = this.current!.dialAddr;
    const source = this.raw?.source;
    // A handshake that met a non-TLS answer is worded by what the server sent, as Go words it.
    const head = socket === this.stream ? this.tap?.receivedHead() : undefined;
    const notTls = head && goFirstRecordError(head);
    this.closeSockets();
    if (notTls) return this.finish(this.failure(notTls));
    if (this.phase === "headers") return this.finish(this.failure(goErrorText(err, addr, false, source)));
    // Go ignores errors while draining a redirect's body; on the final body they error the probe.
    if (this.phase === "body" && !this.next) return this.finish(errored(goErrorText(err, addr, true, source)));
    this.closeAndProceed();
  }

  /** onTimeout: the connection's timer ran out, at the deadline or at the end of a FIN wait. */
  onTimeout(socket: ProbeStream): void {
    if (socket !== this.stream || this.settled) return;
    const left = this.timeLeft();
    if (this.phase === "closing") return left > 0 || !this.next ? this.closeAndProceed() : this.expire(HEADERS_TIMEOUT, "");
    if (left > 0) socket.setTimeout(left);
    else this.expire(HEADERS_TIMEOUT, BODY_TIMEOUT);
  }

  onResponseHead(status: number, location: string | undefined): boolean {
    this.status = status;
    if (status === 101) {
      this.finish(statusOutcome(status, "", this.options.expect)); // 101: final, like any status
      return false;
    }
    if (REDIRECT_CODES.has(status) && location) {
      const ref = parseUrlReference(location);
      if (typeof ref === "string") {
        this.finish(this.failure(`failed to parse Location header ${goQuote(location)}: parse ${goQuote(location)}: ${ref}`));
        return false;
      }
      const parts = resolveReference(targetParts(this.current!), ref);
      const hostname = splitHostPort(parts.authority ?? "")[0];
      // kubelet RedirectChecker: a redirect off the original hostname (port ignored) is not
      // followed and the 3xx is the answer; otherwise Go's cap applies.
      if (this.options.followNonLocalRedirects || hostname === this.prepared!.hostname) {
        if (this.sent >= MAX_REQUESTS) {
          this.finish(this.failure("stopped after 10 redirects", location));
          return false;
        }
        this.next = this.nextTarget(parts, ref.scheme === "", hostname);
      }
    }
    this.phase = "body";
    return true;
  }

  /** onResponseBody keeps the first 10240 bytes (kubelet ReadAtMost) and stops there. */
  onResponseBody(buf: Buffer, start: number, end: number): boolean {
    return this.body.add(buf, start, end, this.next === undefined);
  }

  /**
   * nextTarget builds a redirect request as Go's Client does: the Host override survives only a
   * relative Location, Referer is the previous URL (unless https→http or set by the user), and
   * credentials are dropped for good once the chain leaves the original domain.
   */
  private nextTarget(parts: UrlParts, relative: boolean, hostname: string): HttpTarget {
    const prepared = this.prepared!;
    const first = prepared.authority;
    if (parts.authority !== first && !isDomainOrSubdomain(hostname, prepared.hostname)) this.stripSensitive = true;
    const { host, headers } = this.request;
    const current = this.current!;
    const downgrade = current.tls && parts.scheme === "http";
    const keepHost = host !== "" && host !== first && relative ? host : "";
    const referer = prepared.userReferer || downgrade ? "" : current.url;
    return buildTarget(renderUrl(parts), parts, keepHost, headers, referer, this.stripSensitive);
  }

  private afterParse(status: ParseStatus): void {
    if (this.settled) return;
    if (status === "more") {
      this.body.detach(); // the read buffer is about to be reused
      this.stream!.setTimeout(Math.max(1, this.timeLeft())); // reading restarted the idle timer
    } else if (status === "complete") {
      this.onComplete();
    } else if (status === "stopped") {
      // kubelet ReadAtMost: reaching the cap is not an error; stop reading and close.
      this.closeAndProceed(this.next ? undefined : statusOutcome(this.status, this.body.text(), this.options.expect));
    } else if (this.phase === "headers") {
      this.finish(this.failure(this.parser.error));
    } else if (!this.next) {
      this.finish(errored(this.parser.error));
    } else {
      this.closeAndProceed(); // Go ignores a redirect body's errors
    }
  }

  /** onComplete: the response is whole. Gracefully, wait for the server's FIN before closing. */
  private onComplete(): void {
    this.phase = "closing";
    this.pending = this.next ? undefined : statusOutcome(this.status, this.body.text(), this.options.expect);
    if (this.mode === "graceful" && !this.finSeen && !this.stream!.destroyed) {
      const wait = Math.max(1, Math.min(FIN_WAIT_MS, this.timeLeft()));
      this.finWaitEnd = systemClock.monotonic() + wait;
      this.stream!.setTimeout(wait);
    } else {
      this.closeAndProceed();
    }
  }

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

  private closeSockets(): void {
    const { raw, stream } = this;
    this.raw = this.stream = this.tap = undefined;
    if (raw !== undefined) {
      raw.owner = undefined;
      if (raw instanceof ProbeSocket) {
        if (!raw.destroyed) closeProbeSocket(raw, this.mode);
      } else {
        raw.close(this.mode);
      }
    }
    if (stream !== undefined && !stream.destroyed) stream.destroy();
  }

  private finish(outcome: ProbeOutcome): void {
    if (this.settled) return;
    this.settled = true;
    this.closeSockets();
    if (this.onAbort) this.options.signal?.removeEventListener("abort", this.onAbort);
    this.resolve(outcome);
  }
}

/**
 * statusOutcome maps the final status like DoHTTPProbe. With the probe extension, accepted
 * statuses replace the 2xx/3xx rule, and a body that does not match the pattern fails.
 */
function statusOutcome(status: number, body: string, expect: HttpExpectation | undefined): ProbeOutcome {
  let outcome: ProbeOutcome;
  if (expect?.acceptStatus) {
    const accepted = expect.acceptStatus.some((r) => status >= r.from && status <= r.to);
    outcome = accepted ? { result: "success", output: body } : { result: "failure", output: `${STATUS_FAILURE_PREFIX}${status}` };
  } else if (status >= 200 && status < 300) {
    outcome = { result: "success", output: body };
  } else if (status >= 300 && status < 400) {
    outcome = { result: "warning", output: `Probe terminated redirects, Response body: ${body}` };
  } else {
    outcome = { result: "failure", output: `${STATUS_FAILURE_PREFIX}${status}` };
  }
  if (expect?.bodyPattern && outcome.result !== "failure" && !expect.bodyPattern.test(body)) {
    return { result: "failure", output: `HTTP probe failed: the body does not match ${String(expect.bodyPattern)}` };
  }
  return outcome;
}

const STATUS_FAILURE_PREFIX = "HTTP probe failed with statuscode: ";

/**
 * isHttpStatusFailure tells a failure caused by the response's status code apart from a request
 * that got no response. Lifecycle hooks need it: the kubelet's hook runner fails only on the
 * latter (handlers.go runHTTPHandler ignores the status).
 */
export function isHttpStatusFailure(outcome: ProbeOutcome): boolean {
  return outcome.result === "failure" && outcome.error === undefined && outcome.output.startsWith(STATUS_FAILURE_PREFIX);
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
