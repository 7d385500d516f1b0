// The requests of an httpGet probe resolved once: where to connect and the exact bytes to send
// (Go net/http Request.write for an HTTP/1.1 GET through a keep-alive-less Transport). The
// first request of a probe is cached per HttpProbeRequest object, so a probe that runs every
// period parses its URL, validates its headers and serialises its request only once.
import { isIP } from "node:net";
import { domainToASCII } from "node:url";
import { dialHost, joinHostPort } from "./address.js";
import { goInvalidPortText } from "./go-errors.js";
import { goQuote } from "./http-errors.js";
import { hasControlByte, parseUrlReference, splitHostPort, type HttpHeaderField, type HttpProbeRequest, type UrlParts } from "./http-request.js";
import type { ProbeOutcome } from "./probe-result.js";

/** HttpTarget is one request of a probe's redirect chain, ready to be sent. */
export interface HttpTarget {
  /** url is the request URL as Go prints it in errors (`Get "<url>": …`). */
  readonly url: string;
  /**
   * parts of `url`, kept for redirect targets only: a probe's first target lives as long as its
   * worker, so its URL is parsed again in the rare case that a redirect needs it (targetParts).
   */
  readonly parts: UrlParts | undefined;
  /** error is why the request cannot be sent (Go's text after `Get "<url>": `), or "". */
  readonly error: string;
  readonly tls: boolean;
  /** dialAddr is the address as Go prints it in dial errors ("10.0.0.5:80", ":80"). */
  readonly dialAddr: string;
  /** connectHost and connectPort are what the socket dials (an empty host is the local host). */
  readonly connectHost: string;
  readonly connectPort: number;
  /** servername is the TLS SNI name: the hostname, or "" for an IP literal (as Go). */
  readonly servername: string;
  /** head is the serialised request: request line, header lines, blank line. */
  readonly head: Buffer;
}

/** PreparedHttpRequest is what probes of one HttpProbeRequest share. */
export interface PreparedHttpRequest {
  /** failure is the outcome of a request that cannot be made at all (bad URL or header). */
  readonly failure: ProbeOutcome | undefined;
  /** first is the probe's first request (undefined with a failure). */
  readonly first: HttpTarget | undefined;
  /** authority and hostname of the first URL: redirect checks compare against them. */
  readonly authority: string;
  readonly hostname: string;
  /** userReferer is set when the user sends their own Referer (Go then adds none). */
  readonly userReferer: boolean;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const CLOSE_TOKEN = /(^|,)\s*close\s*(,|$)/i;
// golang.org/x/net/http/httpguts validHostByte; other bytes make Go send an empty Host.
const VALID_HOST = /^[0-9A-Za-z!$%&'()*+,\-.:;=[\]_~]*$/;
const ASCII = /^\p{ASCII}*$/u;
// Go strips these on a redirect to a host that is neither the original nor a subdomain of it.
const SENSITIVE = new Set(["Authorization", "Www-Authenticate", "Cookie", "Cookie2", "Proxy-Authorization", "Proxy-Authenticate"]);
const NO_HEAD = Buffer.alloc(0);

const cache = new WeakMap<HttpProbeRequest, PreparedHttpRequest>();

/**
 * prepareHttpRequest returns the shared, immutable preparation of `request`: computed on the
 * first probe of that object (URL parse, header validation, request bytes), then reused.
 * Callers must treat HttpProbeRequest objects as immutable, as the type says.
 */
export function prepareHttpRequest(request: HttpProbeRequest): PreparedHttpRequest {
  let prepared = cache.get(request);
  if (prepared === undefined) {
    prepared = prepare(request);
    cache.set(request, prepared);
  }
  return prepared;
}

function prepare(request: HttpProbeRequest): PreparedHttpRequest {
  const { url, headers } = request;
  const userReferer = headers.some(([name]) => name === "Referer");
  const parts = parseUrlReference(url);
  const failed = (output: string): PreparedHttpRequest => ({ failure: { result: "failure", output }, first: undefined, authority: "", hostname: "", userReferer });
  if (typeof parts === "string") return failed(`parse ${goQuote(url)}: ${parts}`);
  // Go Transport.roundTrip validates every header before it dials.
  for (const [name, value] of headers) {
    if (!TOKEN.test(name)) return failed(`Get ${goQuote(url)}: net/http: invalid header field name ${goQuote(name)}`);
    if (hasControlByte(value, true)) return failed(`Get ${goQuote(url)}: net/http: invalid header field value for ${goQuote(name)}`);
  }
  const authority = parts.authority ?? "";
  return {
    failure: undefined,
    first: buildTarget(url, parts, request.host, headers, "", false, false),
    authority,
    hostname: splitHostPort(authority)[0],
    userReferer,
  };
}

/**
 * buildTarget resolves one request: `host` overrides the Host header ("" = the URL's
 * authority), `referer` ("" = none) is sent in sorted position, and `stripSensitive` drops
 * credentials once a redirect chain left the original domain (Go Client.makeHeadersCopier).
 * `keepParts` false leaves `parts` out of the target (a probe's first request).
 */
export function buildTarget(
  url: string,
  parts: UrlParts,
  host: string,
  headers: readonly HttpHeaderField[],
  referer: string,
  stripSensitive: boolean,
  keepParts = true,
): HttpTarget {
  const tls = parts.scheme === "https";
  const kept = keepParts ? parts : undefined;
  const unsendable = (error: string): HttpTarget => ({ url, parts: kept, error, tls, dialAddr: "", connectHost: "", connectPort: 0, servername: "", head: NO_HEAD });
  if (parts.scheme !== "http" && !tls) return unsendable(`unsupported protocol scheme ${goQuote(parts.scheme)}`);
  const authority = parts.authority ?? "";
  if (parts.opaque !== "" || authority === "") return unsendable("http: no Host in request URL");
  const [hostname, portText] = splitHostPort(authority);
  const port = portText === "" ? (tls ? 443 : 80) : Number(portText);
  if (port > 65535) return unsendable(goInvalidPortText(port));
  return {
    url,
    parts: kept,
    error: "",
    tls,
    dialAddr: joinHostPort(hostname, port), // as Go prints it (":80" for an empty host)
    connectHost: dialHost(hostname),
    connectPort: port,
    servername: isIP(hostname) ? "" : hostname,
    head: serializeRequest(parts, host || authority, headers, referer, stripSensitive),
  };
}

/** targetParts returns the parts of a target's URL, parsing a first target's URL again. */
export function targetParts(target: HttpTarget): UrlParts {
  if (target.parts !== undefined) return target.parts;
  const parts = parseUrlReference(target.url);
  // A first target exists only for a URL that parsed (prepare), and parsing is deterministic.
  if (typeof parts === "string") throw new Error(`probe URL ${target.url} no longer parses: ${parts}`);
  return parts;
}

/**
 * serializeRequest writes the request as Go's Request.write does for the kubelet's client:
 * `GET <request-uri> HTTP/1.1`, Host, then the header lines in the given order (User-Agent
 * first, the rest sorted by name, Referer in its sorted place), then the Transport's
 * `Connection: close` (keep-alives are off) unless the user already asked for close.
 */
export function serializeRequest(
  parts: UrlParts,
  host: string,
  headers: readonly HttpHeaderField[],
  referer: string,
  stripSensitive: boolean,
): Buffer {
  const target = (parts.path || "/") + (parts.query === undefined ? "" : `?${parts.query}`);
  let text = `GET ${target} HTTP/1.1\r\nHost: ${hostHeader(host)}\r\n`;
  let close = false;
  let refererDue = referer !== "";
  for (const [name, value] of headers) {
    if (stripSensitive && SENSITIVE.has(name)) continue;
    if (refererDue && name !== "User-Agent" && name > "Referer") {
      text += `Referer: ${referer}\r\n`;
      refererDue = false;
    }
    if (name === "Connection" && CLOSE_TOKEN.test(value)) close = true;
    text += `${name}: ${value}\r\n`;
  }
  if (refererDue) text += `Referer: ${referer}\r\n`;
  if (!close) text += "Connection: close\r\n";
  return Buffer.from(`${text}\r\n`, "utf8");
}

/**
 * hostHeader is the Host value Go sends: non-ASCII names in Punycode, an IPv6 zone removed
 * ("[fe80::1%eth0]:80" → "[fe80::1]:80"), and "" when a byte is not valid in a Host (Go ≥ 1.21
 * sends an empty Host rather than a smuggled one).
 */
export function hostHeader(host: string): string {
  let value = host;
  if (!ASCII.test(value)) value = punycodeHostPort(value);
  if (!VALID_HOST.test(value)) return "";
  if (!value.startsWith("[")) return value;
  const close = value.lastIndexOf("]");
  const zone = close < 0 ? -1 : value.lastIndexOf("%", close);
  return zone < 0 ? value : value.slice(0, zone) + value.slice(close);
}

function punycodeHostPort(value: string): string {
  const colon = value.lastIndexOf(":");
  const hasPort = colon > 0 && /^[0-9]*$/.test(value.slice(colon + 1)) && !value.slice(0, colon).includes(":");
  const name = domainToASCII(hasPort ? value.slice(0, colon) : value);
  if (name === "") return "\u0000"; // not representable: invalid, so sent empty
  return hasPort ? `${name}${value.slice(colon)}` : name;
}
