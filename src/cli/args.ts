// Command-line parsing for `probelet probe` (node:util parseArgs): the flags, the command after
// `--` for --exec, and usage errors that the CLI reports with exit code 2.
import { parseArgs } from "node:util";
import type { ProbeType } from "../prober/probe-type.js";

/** UsageError is a malformed command line; the CLI prints it and exits with code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** OutputFormat selects human text or one JSON object per line. */
export type OutputFormat = "text" | "json";

/** ProbeFlags are the parsed flags of `probelet probe`, before they become a core/v1 Probe. */
export interface ProbeFlags {
  /** -f: a YAML/JSON Probe file; "-" reads stdin. */
  file?: string;
  httpGet?: string;
  tcp?: string;
  grpc?: string;
  service?: string;
  /** The argv after `--` when --exec is given. */
  exec?: string[];
  host?: string;
  timeoutSeconds?: number;
  periodSeconds?: number;
  initialDelaySeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
  /** Raw `Name: value` strings, in order. */
  headers: string[];
  probeType: ProbeType;
  watch: boolean;
  /** --count: stop watching after this many probes. */
  count?: number;
  output: OutputFormat;
  help: boolean;
}

/** PROBE_HELP is the text of `probelet probe --help`. */
export const PROBE_HELP = `Usage:
  probelet probe (-f FILE | --http-get URL | --tcp HOST:PORT | --grpc HOST:PORT [--service S] | --exec -- CMD [ARG...])
                 [--host IP] [--timeout SECONDS] [--header 'Name: value']... [--type liveness|readiness|startup]
                 [--period SECONDS] [--initial-delay SECONDS] [--success-threshold N] [--failure-threshold N]
                 [--watch [--count N]] [-o json]

Runs a probe with the kubelet's semantics: once (default), or like a kubelet worker with --watch.

Handler (one of; a handler flag replaces the handler of a -f file):
  -f, --filename FILE       a core/v1 Probe in YAML or JSON ("-" reads stdin); other flags override its fields
      --http-get URL        httpGet probe; the URL's host is the pod IP, its port/path/query fill the probe
      --tcp HOST:PORT       tcpSocket probe against HOST (the pod IP)
      --grpc HOST:PORT      grpc health probe against HOST (the pod IP)
      --service NAME        grpc.service to ask about
      --exec -- CMD [ARG...]  exec probe, run on this host (argv, no shell)

Probe fields:
      --host IP             the pod IP used by httpGet, tcpSocket and grpc (IPv6 may be bracketed)
      --timeout SECONDS     timeoutSeconds (default 1)
      --period SECONDS      periodSeconds (default 10)
      --initial-delay SECONDS  initialDelaySeconds (default 0)
      --success-threshold N successThreshold (default 1)
      --failure-threshold N failureThreshold (default 3)
      --header 'Name: value'  an httpGet header (repeatable)
      --type TYPE           liveness, readiness (default) or startup

Running:
      --watch               probe every period like a kubelet worker until SIGINT/SIGTERM
      --count N             with --watch: stop after N probes
  -o, --output FORMAT       text (default) or json (one object per probe)
  -h, --help                show this help

Exit codes: 0 success or warning (watch: last cached result Success), 1 failure or unknown,
2 usage or validation error.
`;

const OPTIONS = {
  filename: { type: "string", short: "f" },
  "http-get": { type: "string" },
  tcp: { type: "string" },
  grpc: { type: "string" },
  service: { type: "string" },
  exec: { type: "boolean" },
  host: { type: "string" },
  timeout: { type: "string" },
  period: { type: "string" },
  "initial-delay": { type: "string" },
  "success-threshold": { type: "string" },
  "failure-threshold": { type: "string" },
  header: { type: "string", multiple: true },
  type: { type: "string" },
  watch: { type: "boolean" },
  count: { type: "string" },
  output: { type: "string", short: "o" },
  help: { type: "boolean", short: "h" },
} as const;

const PROBE_TYPES: readonly ProbeType[] = ["liveness", "readiness", "startup"];
const INT32_MAX = 2 ** 31 - 1;

/** parseProbeArgs parses the arguments after `probelet probe`; it throws UsageError on bad input. */
export function parseProbeArgs(argv: readonly string[]): ProbeFlags {
  const { values, tokens } = runParseArgs(argv);
  const terminator = tokens.findIndex((t) => t.kind === "option-terminator");
  const stray = tokens.find((t, i) => t.kind === "positional" && (terminator < 0 || i < terminator));
  if (stray?.kind === "positional") throw new UsageError(`unexpected argument "${stray.value}"`);
  const command = tokens.flatMap((t) => (t.kind === "positional" ? [t.value] : []));

  const flags: ProbeFlags = {
    headers: values.header ?? [],
    probeType: parseProbeType(values.type),
    watch: values.watch ?? false,
    output: parseOutput(values.output),
    help: values.help ?? false,
  };
  if (flags.help) return flags;
  setString(flags, "file", values.filename);
  setString(flags, "httpGet", values["http-get"]);
  setString(flags, "tcp", values.tcp);
  setString(flags, "grpc", values.grpc);
  setString(flags, "service", values.service);
  setString(flags, "host", values.host);
  setInt(flags, "timeoutSeconds", "--timeout", values.timeout);
  setInt(flags, "periodSeconds", "--period", values.period);
  setInt(flags, "initialDelaySeconds", "--initial-delay", values["initial-delay"]);
  setInt(flags, "successThreshold", "--success-threshold", values["success-threshold"]);
  setInt(flags, "failureThreshold", "--failure-threshold", values["failure-threshold"]);

  if (values.exec) {
    if (terminator < 0 || command.length === 0) {
      throw new UsageError(`--exec needs the command after "--", e.g. --exec -- cat /tmp/healthy`);
    }
    flags.exec = command;
  } else if (terminator >= 0) {
    throw new UsageError(`arguments after "--" are only used with --exec`);
  }
  checkHandlers(flags);
  if (values.count !== undefined) {
    if (!flags.watch) throw new UsageError("--count needs --watch");
    const count = parseInteger("--count", values.count);
    if (count < 1) throw new UsageError(`invalid value "${values.count}" for --count: must be at least 1`);
    flags.count = count;
  }
  return flags;
}

/** runParseArgs calls parseArgs and turns its errors into UsageErrors with short messages. */
function runParseArgs(argv: readonly string[]) {
  try {
    return parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true, tokens: true });
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    const message = err instanceof Error ? err.message : String(err);
    const option = /'(-[^', ]+)/.exec(message)?.[1] ?? "";
    if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") throw new UsageError(`unknown flag: ${option}`);
    if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
      if (message.includes("argument missing")) throw new UsageError(`flag needs an argument: ${option}`);
      if (message.includes("does not take an argument")) throw new UsageError(`flag ${option} does not take a value`);
      if (message.includes("ambiguous")) throw new UsageError(`flag ${option}: a value starting with "-" must be written as ${option}=VALUE`);
    }
    throw new UsageError(message);
  }
}

/** checkHandlers requires exactly one handler source besides -f: at most one handler flag. */
function checkHandlers(flags: ProbeFlags): void {
  const given = [
    flags.httpGet !== undefined && "--http-get",
    flags.tcp !== undefined && "--tcp",
    flags.grpc !== undefined && "--grpc",
    flags.exec !== undefined && "--exec",
  ].filter((x): x is string => typeof x === "string");
  if (given.length > 1) throw new UsageError(`only one handler may be given, got ${given.join(" and ")}`);
  if (given.length === 0 && flags.file === undefined) {
    throw new UsageError("a probe is required: -f FILE, --http-get URL, --tcp HOST:PORT, --grpc HOST:PORT or --exec -- CMD");
  }
}

function parseProbeType(value: string | undefined): ProbeType {
  if (value === undefined) return "readiness";
  const found = PROBE_TYPES.find((t) => t === value);
  if (!found) throw new UsageError(`invalid value "${value}" for --type: must be one of ${PROBE_TYPES.join(", ")}`);
  return found;
}

function parseOutput(value: string | undefined): OutputFormat {
  if (value === undefined || value === "text") return "text";
  if (value === "json") return "json";
  throw new UsageError(`invalid value "${value}" for --output: must be text or json`);
}

/** parseInteger accepts a decimal int32 (negative values pass, so validation can report them). */
export function parseInteger(flag: string, value: string): number {
  if (!/^[+-]?\d+$/.test(value)) throw new UsageError(`invalid value "${value}" for ${flag}: must be an integer`);
  const n = Number(value);
  if (n > INT32_MAX || n < -INT32_MAX - 1) throw new UsageError(`invalid value "${value}" for ${flag}: out of range for a 32-bit integer`);
  return n;
}

type StringKey = "file" | "httpGet" | "tcp" | "grpc" | "service" | "host";
type IntKey = "timeoutSeconds" | "periodSeconds" | "initialDelaySeconds" | "successThreshold" | "failureThreshold";

function setString(flags: ProbeFlags, key: StringKey, value: string | undefined): void {
  if (value !== undefined) flags[key] = value;
}

function setInt(flags: ProbeFlags, key: IntKey, flag: string, value: string | undefined): void {
  if (value !== undefined) flags[key] = parseInteger(flag, value);
}
