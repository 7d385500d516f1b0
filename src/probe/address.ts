// Host/port joining as Go's net.JoinHostPort does it (IPv6 literals are bracketed).
import { isIPv6 } from "node:net";

/** joinHostPort renders "host:port", bracketing IPv6 literals ("[fd00::1]:8080"). */
export function joinHostPort(host: string, port: number): string {
  // join makes one flat string; "10.0.0.5:" + "8080" as a template is a cons string of two
  // (a prepared HTTP target keeps this for its life).
  return isIPv6(host) ? [`[${host}]`, port].join(":") : [host, port].join(":");
}

/**
 * dialHost maps the host part of a probe address to what the socket layer dials: Go dials
 * an empty host ("" → ":port") as the local system, so we use the IPv4 loopback.
 */
export function dialHost(host: string): string {
  return host === "" ? "127.0.0.1" : host;
}
