// The DNS server Go's resolver names in a failed lookup ("lookup NAME on 10.0.0.10:53: no
// such host"): the first nameserver of /etc/resolv.conf, read as Go's pure resolver reads it
// (net/dnsconfig_unix.go dnsReadConfig), 127.0.0.1:53 when there is none. The kubelet is built
// without cgo, so its probes use that resolver.
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { isIP } from "node:net";
import { joinHostPort } from "./address.js";

/** SYSTEM_RESOLV_CONF is where Go's resolver reads its configuration. */
export const SYSTEM_RESOLV_CONF = "/etc/resolv.conf";

/** GO_DEFAULT_NAMESERVER is the first of Go's defaultNS, used when resolv.conf names no server. */
export const GO_DEFAULT_NAMESERVER = "127.0.0.1:53";

const MAX_RESOLV_CONF_BYTES = 64 * 1024; // resolv.conf files are tiny; a bigger one is read in part
const RECHECK_MS = 5000; // Go re-reads resolv.conf at most every 5 s (resolverConfig.tryUpdate)

/**
 * firstNameserver returns the first server Go takes from resolv.conf text, as "ip:53"
 * (IPv6 bracketed), or GO_DEFAULT_NAMESERVER when the text names none. Comment lines start with
 * ";" or "#"; a nameserver that is not an IP address is skipped, as Go skips it.
 */
export function firstNameserver(text: string | undefined): string {
  if (text === undefined) return GO_DEFAULT_NAMESERVER;
  for (const line of text.split("\n")) {
    if (line.startsWith(";") || line.startsWith("#")) continue;
    const fields = line.split(/[ \t\r\f\v]+/).filter((field) => field !== "");
    if (fields[0] !== "nameserver" || fields.length < 2) continue;
    // Go keeps the first three servers that parse as IP addresses; the first of them is named.
    if (isIP(fields[1]!) !== 0) return joinHostPort(fields[1]!, 53);
  }
  return GO_DEFAULT_NAMESERVER;
}

/** readResolvConf reads up to 64 KiB of a resolv.conf file, or undefined when it cannot be read. */
export function readResolvConf(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return undefined;
  }
  try {
    if (!fstatSync(fd).isFile()) return undefined;
    const buf = Buffer.alloc(MAX_RESOLV_CONF_BYTES);
    const bytes = readSync(fd, buf, 0, buf.length, 0);
    return buf.toString("utf8", 0, bytes);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * ResolverAddressReader tells the DNS server to name in lookup errors. It reads `path` on the
 * first call and again at most every 5 s, as Go does; error paths only, so probes that resolve
 * never read the file.
 */
export class ResolverAddressReader {
  private cached: string | undefined;
  private checkedAt = -Infinity;

  constructor(
    private readonly path: string = SYSTEM_RESOLV_CONF,
    private readonly monotonic: () => number = () => performance.now(),
  ) {}

  /** address returns "ip:53" of the first nameserver, or 127.0.0.1:53 without one. */
  address(): string {
    const now = this.monotonic();
    if (this.cached === undefined || now - this.checkedAt >= RECHECK_MS) {
      this.cached = firstNameserver(readResolvConf(this.path));
      this.checkedAt = now;
    }
    return this.cached;
  }
}

/** systemResolver reads /etc/resolv.conf for the probe handlers' lookup errors. */
export const systemResolver = new ResolverAddressReader();
