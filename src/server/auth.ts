// Who may reach the status server: without a bearer token it only listens on a loopback
// address; with one, every request must carry "Authorization: Bearer <token>", compared in a
// time that does not depend on the presented value, so the token cannot be guessed byte by byte.
// Listen addresses are parsed here too ("127.0.0.1:10255", "[::1]:0", "localhost:8080").
import { createHash, timingSafeEqual } from "node:crypto";
import { isIPv4, isIPv6 } from "node:net";

/** ListenAddress is a parsed "host:port"; host has no IPv6 brackets and port may be 0 (any free port). */
export interface ListenAddress {
  host: string;
  port: number;
}

/**
 * parseListenAddress splits "host:port" the way Go's net.SplitHostPort does: an IPv6 literal
 * must be bracketed ("[::1]:0"), the port is a decimal 0..65535. Throws an Error on bad input.
 * An empty host (":10255") is kept as "" and means every interface.
 */
export function parseListenAddress(listen: string): ListenAddress {
  let host: string;
  let portText: string;
  if (listen.startsWith("[")) {
    const close = listen.indexOf("]");
    if (close < 0) throw new Error(`invalid listen address "${listen}": missing ']' in address`);
    host = listen.slice(1, close);
    if (listen[close + 1] !== ":") throw new Error(`invalid listen address "${listen}": missing port after ']'`);
    portText = listen.slice(close + 2);
    if (!isIPv6(host)) throw new Error(`invalid listen address "${listen}": "${host}" is not an IPv6 address`);
  } else {
    const colon = listen.lastIndexOf(":");
    if (colon < 0) throw new Error(`invalid listen address "${listen}": missing port in address`);
    host = listen.slice(0, colon);
    portText = listen.slice(colon + 1);
    if (host.includes(":")) throw new Error(`invalid listen address "${listen}": too many colons (bracket IPv6 addresses: "[::1]:10255")`);
  }
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) {
    throw new Error(`invalid listen address "${listen}": port "${portText}" is not a number in 0..65535`);
  }
  return { host, port: Number(portText) };
}

/**
 * isLoopbackHost reports whether binding to host only accepts local connections: "localhost",
 * 127.0.0.0/8, ::1 and IPv4-mapped loopback (::ffff:127.x.y.z). An empty host, a wildcard address
 * or any other name is not loopback.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  if (h === "localhost") return true;
  if (isIPv4(h)) return h.split(".")[0] === "127";
  // A zoned address ("fe80::1%eth0") is link-local, never loopback.
  if (!isIPv6(h) || h.includes("%")) return false;
  // The WHATWG URL parser canonicalises IPv6 literals (RFC 5952), so "0:0:0:0:0:0:0:1" becomes
  // "::1" and a mapped "::ffff:127.0.0.1" becomes "::ffff:7f00:1".
  const canonical = new URL(`http://[${h}]/`).hostname.slice(1, -1);
  return canonical === "::1" || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(canonical);
}

/** BearerAuthenticator checks Authorization headers against one configured token. */
export class BearerAuthenticator {
  private readonly expected: Buffer;

  constructor(token: string) {
    if (!/^\S+$/.test(token)) throw new Error("the status server token must not be empty or contain whitespace");
    this.expected = digest(token);
  }

  /**
   * authenticate reports whether the header is "Bearer <token>" (scheme case-insensitive, as
   * RFC 7235 says). Both sides are hashed first so that timingSafeEqual compares equal-length
   * buffers and the token's length does not leak either.
   */
  authenticate(header: string | undefined): boolean {
    const match = /^Bearer +(\S+) *$/i.exec(header ?? "");
    const presented = digest(match?.[1] ?? "");
    return timingSafeEqual(presented, this.expected) && match !== null;
  }
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}
