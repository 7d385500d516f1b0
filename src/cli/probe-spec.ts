// From `probelet probe` flags (and an optional -f file) to a defaulted, validated core/v1 Probe
// plus the "pod IP" the handlers target (probed in a synthetic container: synthetic-container.ts).
// Defaulting comes before validation, as the API server does it (spec §A.2); invalid input becomes
// an InvalidInputError listing field-path errors.
import { formatOfFile } from "../api/bounded-parse.js";
import { decodeProbe } from "../api/decode.js";
import { defaultProbe } from "../api/defaults.js";
import { formatFieldErrors } from "../api/field-errors.js";
import type { HTTPHeader, Probe } from "../api/types.js";
import { validateProbe } from "../api/validation.js";
import type { ProbeType } from "../prober/probe-type.js";
import { UsageError, type ProbeFlags } from "./args.js";

/** InvalidInputError is a probe that fails decoding or validation; the CLI exits with code 2. */
export class InvalidInputError extends Error {
  override readonly name = "InvalidInputError";

  /** @param details one line per problem, e.g. `successThreshold: Invalid value: 2: must be 1`. */
  constructor(
    message: string,
    readonly details: readonly string[],
  ) {
    super(message);
  }
}

/** ProbeTarget is what a command probes: the probe spec and the synthetic pod's IP. */
export interface ProbeTarget {
  probe: Probe;
  podIP: string;
}

/** ProbeSpecFlags are the flags that shape the Probe (a subset of ProbeFlags). */
export type ProbeSpecFlags = Pick<
  ProbeFlags,
  | "httpGet" | "tcp" | "grpc" | "service" | "exec" | "host" | "headers"
  | "timeoutSeconds" | "periodSeconds" | "initialDelaySeconds" | "successThreshold" | "failureThreshold"
>;

/** DEFAULT_POD_IP is the pod IP when neither --host nor a handler flag names one. */
export const DEFAULT_POD_IP = "127.0.0.1";

/**
 * decodeProbeFile decodes a -f file's text (a core/v1 Probe; strict JSON for a `.json` file, YAML
 * otherwise) or throws InvalidInputError.
 */
export function decodeProbeFile(text: string, source: string): Probe {
  const decoded = decodeProbe(text, source, { format: formatOfFile(source) });
  if (!decoded.ok) throw new InvalidInputError(`cannot decode ${source}:`, decoded.errors);
  return decoded.value;
}

/**
 * applyProbeFlags fills a Probe from the flags, on top of `base` (the -f file, if any). A handler
 * flag replaces the base's handler; --service and --header modify the resulting grpc/httpGet
 * handler; the numeric flags override their fields. The pod IP is --host, else the host of the
 * handler flag, else DEFAULT_POD_IP. Throws UsageError for malformed flag values. Pure.
 */
export function applyProbeFlags(base: Probe | undefined, flags: ProbeSpecFlags): ProbeTarget {
  const probe: Probe = structuredClone(base ?? {});
  let podIP: string | undefined;
  const replaceHandler = (handler: Pick<Probe, "exec" | "httpGet" | "tcpSocket" | "grpc">): void => {
    delete probe.exec;
    delete probe.httpGet;
    delete probe.tcpSocket;
    delete probe.grpc;
    Object.assign(probe, handler);
  };
  if (flags.httpGet !== undefined) {
    const url = parseHttpGetUrl(flags.httpGet);
    podIP = url.host;
    replaceHandler({ httpGet: { path: url.path, port: url.port, scheme: url.scheme } });
  } else if (flags.tcp !== undefined) {
    const { host, port } = parseHostPort(flags.tcp, "--tcp");
    podIP = host;
    replaceHandler({ tcpSocket: { port } });
  } else if (flags.grpc !== undefined) {
    const { host, port } = parseHostPort(flags.grpc, "--grpc");
    podIP = host;
    replaceHandler({ grpc: { port } });
  } else if (flags.exec !== undefined) {
    replaceHandler({ exec: { command: [...flags.exec] } });
  }

  if (flags.service !== undefined) {
    if (!probe.grpc) throw new UsageError("--service needs a grpc probe (--grpc, or a grpc handler in -f)");
    probe.grpc.service = flags.service;
  }
  if (flags.headers.length > 0) {
    if (!probe.httpGet) throw new UsageError("--header needs an httpGet probe (--http-get, or an httpGet handler in -f)");
    probe.httpGet.httpHeaders = [...(probe.httpGet.httpHeaders ?? []), ...flags.headers.map(parseHeader)];
  }
  for (const key of ["timeoutSeconds", "periodSeconds", "initialDelaySeconds", "successThreshold", "failureThreshold"] as const) {
    const value = flags[key];
    if (value !== undefined) probe[key] = value;
  }
  if (flags.host !== undefined) podIP = unbracket(flags.host);
  return { probe, podIP: podIP ?? DEFAULT_POD_IP };
}

/**
 * resolveProbe applies the flags, then API defaulting, then validation for the probe type; it
 * throws InvalidInputError with one `<field>: <error>` line per problem (paths relative to the probe).
 */
export function resolveProbe(base: Probe | undefined, flags: ProbeSpecFlags, probeType: ProbeType): ProbeTarget {
  const { probe, podIP } = applyProbeFlags(base, flags);
  const defaulted = defaultProbe(probe);
  const errors = validateProbe(defaulted, "", probeType);
  if (errors.length > 0) throw new InvalidInputError("probe is invalid:", formatFieldErrors(errors));
  return { probe: defaulted, podIP };
}

/** HttpGetUrl is what --http-get contributes: scheme, host (the pod IP), port and path+query. */
export interface HttpGetUrl {
  scheme: "HTTP" | "HTTPS";
  host: string;
  port: number;
  path: string;
}

/** parseHttpGetUrl splits an http(s) URL; the default port is 80 or 443, the fragment is dropped. */
export function parseHttpGetUrl(value: string): HttpGetUrl {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`invalid --http-get URL "${value}": expected http://HOST[:PORT][/PATH]`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`invalid --http-get URL "${value}": the scheme must be http or https`);
  }
  if (url.username !== "" || url.password !== "") {
    throw new UsageError(`invalid --http-get URL "${value}": credentials in the URL are not supported (use --header)`);
  }
  const https = url.protocol === "https:";
  return {
    scheme: https ? "HTTPS" : "HTTP",
    host: unbracket(url.hostname),
    port: url.port === "" ? (https ? 443 : 80) : Number(url.port),
    path: url.pathname + url.search,
  };
}

/**
 * parseHostPort splits HOST:PORT ("[::1]:8080" for IPv6; an empty host means the local host, as
 * Go dials ":port"). The port must be decimal; its range is left to API validation.
 */
export function parseHostPort(value: string, flag: string): { host: string; port: number } {
  const bracketed = /^\[([^\]]*)\]:([^:]*)$/.exec(value);
  const colon = value.lastIndexOf(":");
  const host = bracketed ? bracketed[1]! : value.slice(0, Math.max(colon, 0));
  const port = bracketed ? bracketed[2]! : value.slice(colon + 1);
  if (!bracketed && (colon < 0 || host.includes(":"))) {
    const hint = host.includes(":") ? " (put IPv6 addresses in brackets: [::1]:8080)" : "";
    throw new UsageError(`invalid ${flag} value "${value}": expected HOST:PORT${hint}`);
  }
  if (!/^\d+$/.test(port)) throw new UsageError(`invalid ${flag} value "${value}": the port must be a number`);
  return { host, port: Number(port) };
}

/** parseHeader splits `Name: value`; surrounding spaces are trimmed and an empty value is kept. */
export function parseHeader(value: string): HTTPHeader {
  const colon = value.indexOf(":");
  if (colon < 0) throw new UsageError(`invalid --header "${value}": expected 'Name: value'`);
  return { name: value.slice(0, colon).trim(), value: value.slice(colon + 1).trim() };
}

/** unbracket removes the brackets around an IPv6 literal ("[::1]" → "::1"). */
export function unbracket(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}
