// httpGet request construction (kubelet pkg/probe/http/request.go NewRequestForHTTPGetAction):
// URL formatting with Go net/url semantics, header canonicalisation and the kubelet's
// User-Agent / Accept / Host rules. The URL helpers also serve redirect resolution in http.ts.
import type { Container, HTTPGetAction, HTTPHeader } from "../api/types.js";
import { resolveContainerPort, resolveProbeHost } from "./port.js";
import { joinHostPort } from "./address.js";
import { PROBE_USER_AGENT } from "./user-agent.js";

/** HttpHeaderField is one header line as sent: canonical name and (trimmed) value. */
export type HttpHeaderField = readonly [name: string, value: string];

/** HttpProbeRequest is a fully resolved httpGet probe target, reusable across probes. */
export interface HttpProbeRequest {
  /** url is the probe URL as Go renders it, e.g. "http://10.0.0.5:8080/healthz". */
  readonly url: string;
  /** host is the request Host from a user "Host" header; "" means "derive it from the URL". */
  readonly host: string;
  /** headers are the header lines sent with every request, in wire order, Host excluded. */
  readonly headers: readonly HttpHeaderField[];
}

/** ProbeHeaders is buildProbeHeaders' result: the Host override and the header lines. */
export interface ProbeHeaders {
  readonly host: string;
  readonly headers: readonly HttpHeaderField[];
}

/**
 * UrlParts is the subset of Go's url.URL that probes need: scheme lower-cased ("" if relative);
 * opaque for "scheme:rest" references; authority is host[:port] without userinfo, unescaped
 * (undefined without "//"); path and fragment in escaped form; query raw (undefined without "?").
 */
export interface UrlParts {
  scheme: string;
  opaque: string;
  authority: string | undefined;
  path: string;
  query: string | undefined;
  fragment: string;
}

// Header keys Go writes itself or never copies from req.Header (net/http reqWriteExcludeHeader).
const EXCLUDED_HEADERS = new Set(["Host", "User-Agent", "Content-Length", "Transfer-Encoding", "Trailer"]);
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const BAD_ESCAPE = /%(?![0-9A-Fa-f]{2})/;
// Bytes Go leaves unescaped in a path (url.validEncoded with encodePath), and in a fragment.
const PATH_OK = /^[A-Za-z0-9\-._~!$&'()*+,;=:@[\]%/]*$/;
const FRAGMENT_OK = /^[A-Za-z0-9\-._~!$&'()*+,;=:@[\]%/?]*$/;
const HOST_OK = /^[A-Za-z0-9\-._~!$&'()*+,;=:[\]<>"]*$/;
const DIGITS = /^[0-9]*$/;

/**
 * canonicalHeaderKey canonicalises a header name like Go's textproto.CanonicalMIMEHeaderKey:
 * upper-case the first letter and each letter after "-", lower-case the rest
 * ("FOO-bAR" → "Foo-Bar"). Names with a non-token byte are returned unchanged.
 */
export function canonicalHeaderKey(name: string): string {
  if (!TOKEN.test(name)) return name;
  let out = "";
  let upper = true;
  for (const ch of name) {
    out += upper ? ch.toUpperCase() : ch.toLowerCase();
    upper = ch === "-";
  }
  return out;
}

/** toHeaderMap groups headers by canonical name, values in order (kubelet v1HeaderToHTTPHeader). */
export function toHeaderMap(list: readonly HTTPHeader[] | undefined): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const { name, value } of list ?? []) {
    const key = canonicalHeaderKey(name);
    const values = map.get(key);
    if (values) values.push(value);
    else map.set(key, [value]);
  }
  return map;
}

/**
 * buildProbeHeaders applies the kubelet's header rules (request.go newProbeRequest) and Go's
 * request writer: User-Agent defaults to `userAgent` and an empty one sends none (only the
 * first value is used); Accept defaults to "*∕*" and an empty first value removes it; other
 * empty headers are sent empty; the first Host value becomes the request Host and is not sent
 * as a header. Lines come User-Agent first, then by sorted name, values trimmed as Go does.
 */
export function buildProbeHeaders(userHeaders: readonly HTTPHeader[] | undefined, userAgent: string): ProbeHeaders {
  if (userHeaders === undefined || userHeaders.length === 0) return defaultProbeHeaders(userAgent);
  return buildHeaders(userHeaders, userAgent);
}

/**
 * Without user headers every probe sends the same lines, so they are built once per user agent
 * and shared (frozen): three arrays fewer per httpGet worker. Bounded: a caller that varies its
 * user agent gets fresh lines past the first few.
 */
const sharedDefaultHeaders = new Map<string, ProbeHeaders>();
const MAX_SHARED_USER_AGENTS = 8;

function defaultProbeHeaders(userAgent: string): ProbeHeaders {
  let built = sharedDefaultHeaders.get(userAgent);
  if (built !== undefined) return built;
  const { host, headers } = buildHeaders(undefined, userAgent);
  built = Object.freeze({ host, headers: Object.freeze(headers.map((field) => Object.freeze(field))) });
  if (sharedDefaultHeaders.size < MAX_SHARED_USER_AGENTS) sharedDefaultHeaders.set(userAgent, built);
  return built;
}

function buildHeaders(userHeaders: readonly HTTPHeader[] | undefined, userAgent: string): { host: string; headers: HttpHeaderField[] } {
  const map = toHeaderMap(userHeaders);
  const ua = map.get("User-Agent")?.[0] ?? userAgent;
  const accept = map.get("Accept");
  if (accept === undefined) map.set("Accept", ["*/*"]);
  else if (accept[0] === "") map.delete("Accept");
  const headers: HttpHeaderField[] = [];
  if (ua !== "") headers.push(["User-Agent", trimAscii(ua)]);
  for (const key of [...map.keys()].sort()) {
    if (EXCLUDED_HEADERS.has(key)) continue;
    for (const value of map.get(key) ?? []) headers.push([key, trimAscii(value)]);
  }
  return { host: map.get("Host")?.[0] ?? "", headers };
}

/**
 * formatURL renders the probe URL like kubelet formatURL: `path` is parsed as a URL reference
 * (so "?query" and "#fragment" survive), then scheme and host:port are forced. A path that does
 * not parse is used verbatim (escaped). ("http","localhost",93,"?foo") → "http://localhost:93?foo".
 */
export function formatURL(scheme: string, host: string, port: number, path: string): string {
  const ref = parseUrlReference(path);
  const parts: UrlParts =
    typeof ref === "string"
      ? { scheme, opaque: "", authority: undefined, path: escapeBytes(path, PATH_OK), query: undefined, fragment: "" }
      : ref;
  return renderUrl({ ...parts, scheme, authority: joinHostPort(host, port) });
}

/**
 * newHttpProbeRequest resolves an httpGet action into a request: scheme lower-cased (default
 * "http"), host from the action or the pod IP, port resolved against the container. Throws
 * (with the kubelet's text) only when the port cannot be resolved.
 */
export function newHttpProbeRequest(
  action: HTTPGetAction,
  container: Container,
  podIP: string,
  userAgent: string = PROBE_USER_AGENT,
): HttpProbeRequest {
  const scheme = (action.scheme ?? "").toLowerCase() || "http";
  const host = resolveProbeHost(action.host, podIP);
  const port = resolveContainerPort(action.port, container);
  const headers = buildProbeHeaders(action.httpHeaders, userAgent);
  return { url: formatURL(scheme, host, port, action.path ?? ""), host: headers.host, headers: headers.headers };
}

/**
 * parseUrlReference parses like Go's url.Parse (the parts probes use) and returns the parts,
 * or Go's error reason (e.g. `invalid URL escape "%zz"`) when Go would reject the string.
 */
export function parseUrlReference(raw: string): UrlParts | string {
  if (hasControlByte(raw)) return "net/url: invalid control character in URL";
  const hash = raw.indexOf("#");
  let rest = hash < 0 ? raw : raw.slice(0, hash);
  const fragment = hash < 0 ? "" : normalizeEscapes(raw.slice(hash + 1), FRAGMENT_OK);
  if (fragment === undefined) return badEscape(raw.slice(hash + 1));
  if (rest.startsWith(":")) return "missing protocol scheme";
  const scheme = SCHEME.exec(rest)?.[0] ?? "";
  rest = rest.slice(scheme.length);
  let query: string | undefined;
  const q = rest.indexOf("?");
  if (q >= 0) {
    query = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  const parts: UrlParts = { scheme: scheme.slice(0, -1).toLowerCase(), opaque: "", authority: undefined, path: "", query, fragment };
  if (!rest.startsWith("/")) {
    if (parts.scheme !== "") return { ...parts, opaque: rest };
    if (rest.split("/", 1)[0]!.includes(":")) return "first path segment in URL cannot contain colon";
  }
  if ((parts.scheme !== "" || !rest.startsWith("///")) && rest.startsWith("//")) {
    const slash = rest.indexOf("/", 2);
    const authority = rest.slice(2, slash < 0 ? rest.length : slash);
    const host = authority.slice(authority.lastIndexOf("@") + 1);
    const hostError = checkHost(host);
    if (hostError) return hostError;
    parts.authority = host.includes("%") ? unescapeBytes(host).toString("utf8") : host;
    rest = slash < 0 ? "" : rest.slice(slash);
  }
  const path = normalizeEscapes(rest, PATH_OK);
  if (path === undefined) return badEscape(rest);
  parts.path = path;
  return parts;
}

/** renderUrl is Go's URL.String for UrlParts. */
export function renderUrl(u: UrlParts): string {
  let out = u.scheme === "" ? "" : `${u.scheme}:`;
  if (u.opaque !== "") {
    out += u.opaque;
  } else {
    const host = u.authority ?? "";
    if ((u.scheme !== "" || host !== "") && (host !== "" || u.path !== "")) out += `//${escapeBytes(host, HOST_OK)}`;
    out += u.path !== "" && !u.path.startsWith("/") && host !== "" ? `/${u.path}` : u.path;
  }
  if (u.query !== undefined) out += `?${u.query}`;
  if (u.fragment !== "") out += `#${u.fragment}`;
  return out;
}

/**
 * resolveReference resolves a (Location) reference against a base URL like Go's
 * URL.ResolveReference, including RFC 3986 dot-segment removal.
 */
export function resolveReference(base: UrlParts, ref: UrlParts): UrlParts {
  const scheme = ref.scheme || base.scheme;
  if (ref.scheme !== "" || ref.authority) {
    return { ...ref, scheme, path: ref.opaque === "" ? removeDotSegments(ref.path, "") : ref.path };
  }
  if (ref.opaque !== "") return { ...ref, scheme };
  const keepQuery = ref.path === "" && ref.query === undefined;
  return {
    scheme,
    opaque: "",
    authority: base.authority,
    path: removeDotSegments(base.path, ref.path),
    query: keepQuery ? base.query : ref.query,
    fragment: keepQuery && ref.fragment === "" ? base.fragment : ref.fragment,
  };
}

/** splitHostPort splits an authority like Go's URL.Hostname/Port (brackets removed). */
export function splitHostPort(authority: string): [hostname: string, port: string] {
  const colon = authority.lastIndexOf(":");
  const split = colon >= 0 && DIGITS.test(authority.slice(colon + 1));
  const host = split ? authority.slice(0, colon) : authority;
  return [host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host, split ? authority.slice(colon + 1) : ""];
}

/** removeDotSegments merges a base path and a reference path and drops "." and ".." (Go resolvePath). */
function removeDotSegments(base: string, ref: string): string {
  const full = ref === "" ? base : ref.startsWith("/") ? ref : base.slice(0, base.lastIndexOf("/") + 1) + ref;
  if (full === "") return "";
  if (!full.includes(".")) return full.startsWith("/") ? full : `/${full}`;
  const segments = full.split("/");
  const out: string[] = [];
  for (const segment of segments) {
    if (segment === "..") out.pop();
    else if (segment !== ".") out.push(segment);
  }
  const last = segments[segments.length - 1];
  const path = out.join("/") + (last === "." || last === ".." ? "/" : "");
  return path.startsWith("/") ? path : `/${path}`;
}

/** checkHost validates a host[:port] like Go's parseHost (port digits only, valid escapes). */
function checkHost(host: string): string | undefined {
  let colonPort = "";
  if (host.startsWith("[")) {
    const close = host.lastIndexOf("]");
    if (close < 0) return "missing ']' in host";
    colonPort = host.slice(close + 1);
  } else {
    const colon = host.lastIndexOf(":");
    if (colon >= 0) colonPort = host.slice(colon);
  }
  if (colonPort !== "" && !(colonPort.startsWith(":") && DIGITS.test(colonPort.slice(1)))) {
    return `invalid port ${JSON.stringify(colonPort)} after host`;
  }
  return BAD_ESCAPE.test(host) ? badEscape(host) : undefined;
}

/** normalizeEscapes keeps `s` if Go would (valid escapes, allowed bytes), else re-escapes its bytes. */
function normalizeEscapes(s: string, allowed: RegExp): string | undefined {
  if (BAD_ESCAPE.test(s)) return undefined;
  return allowed.test(s) ? s : escapeBytes(unescapeBytes(s), allowed);
}

/** unescapeBytes decodes %XX sequences of `s` into the UTF-8 bytes they stand for. */
function unescapeBytes(s: string): Buffer {
  const src = Buffer.from(s, "utf8");
  const out: number[] = [];
  for (let i = 0; i < src.length; i++) {
    const hex = src[i] === 0x25 ? src.toString("latin1", i + 1, i + 3) : "";
    const escaped = /^[0-9A-Fa-f]{2}$/.test(hex);
    out.push(escaped ? parseInt(hex, 16) : src[i]!);
    if (escaped) i += 2;
  }
  return Buffer.from(out);
}

/** escapeBytes percent-encodes every byte `allowed` does not accept; "%" itself is always encoded. */
function escapeBytes(s: string | Buffer, allowed: RegExp): string {
  if (typeof s === "string" && allowed.test(s) && !s.includes("%")) return s;
  let out = "";
  for (const byte of typeof s === "string" ? Buffer.from(s, "utf8") : s) {
    const ch = String.fromCharCode(byte);
    out += byte < 0x80 && ch !== "%" && allowed.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** hasControlByte reports a CTL byte (optionally allowing tab), which Go refuses in headers. */
export function hasControlByte(text: string, allowTab = false): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 0x20 && !(allowTab && c === 0x09)) || c === 0x7f) return true;
  }
  return false;
}

/** trimAscii trims ASCII white space only, like Go's textproto.TrimString. */
function trimAscii(s: string): string {
  return s.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, "");
}

function badEscape(s: string): string {
  const at = s.search(BAD_ESCAPE);
  return `invalid URL escape ${JSON.stringify(s.slice(at, at + 3))}`;
}
