// A Logger that writes nothing and remembers when chosen messages were logged, per pod and
// probe type. The start-to-probe bench uses it to show which workers found no pod status on
// their first step (the worker's debug line "No status for pod"), which decides whether their
// first probe waits a whole period.
import type { LogFields, Logger, LogLevel } from "../../src/util/logger.js";

/** TallyEntry is one remembered log line. */
export interface TallyEntry {
  at: number;
  msg: string;
  pod: string;
  probeType: string;
}

/** TallyLogger records the lines whose message is in `messages`, at every level. */
export class TallyLogger implements Logger {
  readonly entries: TallyEntry[] = [];

  constructor(private readonly messages: ReadonlySet<string>) {}

  /** first returns when `msg` was first logged for a pod's probe type, if it was. */
  first(msg: string, pod: string, probeType: string): number | undefined {
    return this.entries.find((e) => e.msg === msg && e.pod === pod && e.probeType === probeType)?.at;
  }

  trace(msg: string, fields?: LogFields): void {
    this.note(msg, fields);
  }
  debug(msg: string, fields?: LogFields): void {
    this.note(msg, fields);
  }
  info(msg: string, fields?: LogFields): void {
    this.note(msg, fields);
  }
  warn(msg: string, fields?: LogFields): void {
    this.note(msg, fields);
  }
  error(msg: string, fields?: LogFields): void {
    this.note(msg, fields);
  }
  child(_subsystem: string): Logger {
    return this;
  }
  isEnabled(_level: LogLevel): boolean {
    return true;
  }

  private note(msg: string, fields: LogFields | undefined): void {
    if (!this.messages.has(msg)) return;
    this.entries.push({ at: performance.now(), msg, pod: String(fields?.["pod"] ?? ""), probeType: String(fields?.["probeType"] ?? "") });
  }
}
