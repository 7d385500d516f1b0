// Node socket errors rendered as the Go net package renders them, because kubelet probe
// outputs carry Go's texts verbatim (kubelet pkg/probe/tcp/tcp.go returns err.Error() as
// the output; net/http wraps the same errors). Exactness here is informative except
// where the spec (§B.3, §J) quotes a text.
import { joinHostPort } from "./address.js";
import { systemResolver } from "./resolver-address.js";

/** GO_IO_TIMEOUT is Go's text for a deadline hit inside the net package (os.ErrDeadlineExceeded). */
export const GO_IO_TIMEOUT = "i/o timeout";

/** GO_OPERATION_CANCELED is Go's text for a dial aborted by its context (net.errCanceled). */
export const GO_OPERATION_CANCELED = "operation was canceled";

// Go's syscall.Errno texts on Linux (lower-case strerror).
const ERRNO_TEXT: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset by peer",
  ECONNABORTED: "software caused connection abort",
  ETIMEDOUT: "connection timed out",
  EHOSTUNREACH: "no route to host",
  EHOSTDOWN: "host is down",
  ENETUNREACH: "network is unreachable",
  ENETDOWN: "network is down",
  EADDRNOTAVAIL: "cannot assign requested address",
  EADDRINUSE: "address already in use",
  EAFNOSUPPORT: "address family not supported by protocol",
  EPIPE: "broken pipe",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EINVAL: "invalid argument",
  EMFILE: "too many open files",
  ENFILE: "too many open files in system",
  ENOBUFS: "no buffer space available",
};

/** NodeNetError is the subset of Node's system-error fields the renderers look at. */
export interface NodeNetError {
  code?: string;
  syscall?: string;
  address?: string;
  port?: number;
  hostname?: string;
  message?: string;
}

/** goErrnoText returns Go's text for a Node errno code ("ECONNREFUSED" → "connection refused"). */
export function goErrnoText(code: string): string | undefined {
  return ERRNO_TEXT[code];
}

/**
 * goOpErrorText composes Go's *net.OpError text: "<op> <net> [<source>-><addr>]: <err>",
 * e.g. "dial tcp 127.0.0.1:8080: connect: connection refused" or, without an address,
 * "dial tcp: address -1: invalid port".
 */
export function goOpErrorText(op: string, network: string, addr: string | undefined, err: string, source?: string): string {
  let text = `${op} ${network}`;
  if (addr !== undefined) text += source === undefined ? ` ${addr}` : ` ${source}->${addr}`;
  return `${text}: ${err}`;
}

/** goInvalidPortText is Go's dial error for a port outside 0–65535: "dial tcp: address -1: invalid port". */
export function goInvalidPortText(port: number, network = "tcp"): string {
  return goOpErrorText("dial", network, undefined, `address ${String(port)}: invalid port`);
}

/**
 * goDialErrorText renders a failed dial as Go's net.Dial error text; a failed name lookup names
 * the DNS server as Go's resolver does ("dial tcp: lookup NAME on 10.0.0.10:53: no such host").
 * `address` is the "host:port" being dialled (Go prints it as given for IP literals and
 * ":port" for an empty host); a resolved peer address on the error takes its place for
 * hostnames, as Go reports the address it actually tried.
 */
export function goDialErrorText(error: unknown, address: string, network = "tcp", resolver: ResolverAddress = systemResolver): string {
  const err = unwrapAggregate(error);
  const code = err.code ?? "";
  if (code === "ENOTFOUND" || code === "EAI_NONAME" || code === "EAI_NODATA") {
    return goOpErrorText("dial", network, undefined, goLookupErrorText(err.hostname ?? hostOf(address), resolver.address(), "no such host"));
  }
  if (code === "EAI_AGAIN") {
    return goOpErrorText("dial", network, undefined, goLookupErrorText(err.hostname ?? hostOf(address), resolver.address(), "server misbehaving"));
  }
  if (code === "ABORT_ERR") return goOpErrorText("dial", network, address, GO_OPERATION_CANCELED);
  const errno = goErrnoText(code);
  if (errno !== undefined) {
    const syscall = err.syscall ?? "connect";
    return goOpErrorText("dial", network, resolvedAddress(err, address), `${syscall}: ${errno}`);
  }
  return goOpErrorText("dial", network, address, err.message ?? String(error));
}

/** ResolverAddress names the DNS server of lookup errors (resolver-address.ts reads resolv.conf). */
export interface ResolverAddress {
  address(): string;
}

/**
 * goLookupErrorText is Go's *net.DNSError text (net/net.go DNSError.Error):
 * "lookup <name> on <server>: <err>", without " on <server>" when no server was asked. The
 * name is the one looked up, not a search-suffixed one (dnsclient_unix.go goLookupIPCNAME).
 */
export function goLookupErrorText(name: string, server: string, err: string): string {
  return server === "" ? `lookup ${name}: ${err}` : `lookup ${name} on ${server}: ${err}`;
}

/** unwrapAggregate picks the first attempt's error out of Node's happy-eyeballs AggregateError (Go reports the first too). */
function unwrapAggregate(error: unknown): NodeNetError {
  if (error instanceof AggregateError && error.errors.length > 0) {
    const first: unknown = error.errors[0];
    if (typeof first === "object" && first !== null) return first as NodeNetError;
  }
  if (typeof error === "object" && error !== null) return error as NodeNetError;
  return { message: String(error) };
}

/** resolvedAddress keeps ":port" and IP-literal addresses, and prefers the peer address Node tried for hostnames. */
function resolvedAddress(err: NodeNetError, address: string): string {
  if (address.startsWith(":")) return address;
  if (err.address === undefined || err.port === undefined) return address;
  return joinHostPort(err.address, err.port);
}

/** hostOf strips the port from "host:port" / "[v6]:port". */
function hostOf(address: string): string {
  const colon = address.lastIndexOf(":");
  const host = colon < 0 ? address : address.slice(0, colon);
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}
