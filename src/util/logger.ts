// A small structured logger: JSON lines to stderr (or lines in another format, to another
// stream: the live view of `probelet run`), levels, and named subsystems that can be enabled with
// PROBELET_TRACE=worker,prober (grpc-js style tracers). Keys follow the kubelet's vocabulary
// (probeType, pod, podUID, containerName).

/** LogLevel orders log severities. */
export type LogLevel = "trace" | "debug" | "info" | "warn" | "error";

const LEVEL_ORDER: Record<LogLevel, number> = { trace: 0, debug: 1, info: 2, warn: 3, error: 4 };

/** LogFields are structured key/values attached to a log line. */
export type LogFields = Record<string, unknown>;

/** Logger is the injected logging interface. */
export interface Logger {
  trace(msg: string, fields?: LogFields): void;
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** child returns a logger for a named subsystem (e.g. "worker"). */
  child(subsystem: string): Logger;
  /** isEnabled guards expensive messages. */
  isEnabled(level: LogLevel): boolean;
}

/** LogRecord is one log line before it is written: time (RFC 3339), level, subsystem, message, fields. */
export interface LogRecord {
  ts: string;
  level: LogLevel;
  sub: string | undefined;
  msg: string;
  fields: LogFields;
}

/** JsonLoggerOptions configure createLogger. */
export interface JsonLoggerOptions {
  /** How a record becomes a line, newline included (default: one JSON object). */
  format?: (record: LogRecord) => string;
  /** Minimum level written (default "info"). */
  level?: LogLevel;
  /** Subsystems traced at every level, e.g. from PROBELET_TRACE ("all" enables every one). */
  trace?: readonly string[];
  /** Where lines go (default process.stderr). */
  write?: (line: string) => void;
  /** Clock for timestamps (default Date). */
  now?: () => number;
}

class JsonLogger implements Logger {
  constructor(
    private readonly opts: Required<JsonLoggerOptions>,
    private readonly subsystem: string,
  ) {}

  isEnabled(level: LogLevel): boolean {
    const traced = this.opts.trace.includes("all") || this.opts.trace.includes(this.subsystem);
    if (traced && this.opts.trace.includes(`-${this.subsystem}`)) return LEVEL_ORDER[level] >= LEVEL_ORDER[this.opts.level];
    return traced || LEVEL_ORDER[level] >= LEVEL_ORDER[this.opts.level];
  }

  private log(level: LogLevel, msg: string, fields?: LogFields): void {
    if (!this.isEnabled(level)) return;
    this.opts.write(this.opts.format({ ts: new Date(this.opts.now()).toISOString(), level, sub: this.subsystem || undefined, msg, fields: fields ?? {} }));
  }

  trace(msg: string, fields?: LogFields): void {
    this.log("trace", msg, fields);
  }
  debug(msg: string, fields?: LogFields): void {
    this.log("debug", msg, fields);
  }
  info(msg: string, fields?: LogFields): void {
    this.log("info", msg, fields);
  }
  warn(msg: string, fields?: LogFields): void {
    this.log("warn", msg, fields);
  }
  error(msg: string, fields?: LogFields): void {
    this.log("error", msg, fields);
  }
  child(subsystem: string): Logger {
    return new JsonLogger(this.opts, this.subsystem ? `${this.subsystem}.${subsystem}` : subsystem);
  }
}

/** errorReplacer writes an Error as its message (JSON.stringify would write `{}`). */
export function errorReplacer(_key: string, value: unknown): unknown {
  return value instanceof Error ? value.message : value;
}

/** jsonLine is the default format: `{"ts":…,"level":…,"sub":…,"msg":…,…fields}`. */
function jsonLine(record: LogRecord): string {
  return JSON.stringify({ ts: record.ts, level: record.level, sub: record.sub, msg: record.msg, ...record.fields }, errorReplacer) + "\n";
}

/** createLogger builds a JSON-lines logger; PROBELET_TRACE names subsystems to trace. */
export function createLogger(options: JsonLoggerOptions = {}): Logger {
  const trace = options.trace ?? (process.env["PROBELET_TRACE"] ?? "").split(",").filter(Boolean);
  return new JsonLogger(
    {
      level: options.level ?? "info",
      format: options.format ?? jsonLine,
      trace,
      write: options.write ?? ((line) => process.stderr.write(line)),
      now: options.now ?? (() => new Date().getTime()),
    },
    "",
  );
}

/** silentLogger discards everything. */
export const silentLogger: Logger = {
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silentLogger,
  isEnabled: () => false,
};
