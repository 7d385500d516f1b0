// `probelet logs NAME`: a container's log from the agent, as kubectl logs prints it; with -f it
// keeps streaming until Ctrl-C or until the agent ends the stream.
import { parseInteger, UsageError } from "./args.js";
import { CLIENT_FLAGS_HELP, CLIENT_OPTIONS, clientFromFlags, parseCommandArgs, reportClientError, type LogOptions } from "./client.js";
import type { CommandContext } from "./probe-command.js";

/** LOGS_HELP is the text of `probelet logs --help`. */
export const LOGS_HELP = `Usage:
  probelet logs NAME [-c CONTAINER] [-p] [-f] [--tail N] [--timestamps] [-n NS]

Prints a container's log. The container may be left out when the pod has only one.

Flags:
  -c, --container NAME      the container
  -p, --previous            the log of the previous (restarted) instance of the container
  -f, --follow              keep streaming new lines until Ctrl-C
      --tail N              only the last N lines (-1, the default, prints all)
      --timestamps          prefix each line with its RFC 3339 timestamp
${CLIENT_FLAGS_HELP}
`;

const OPTIONS = {
  ...CLIENT_OPTIONS,
  container: { type: "string", short: "c" },
  previous: { type: "boolean", short: "p" },
  follow: { type: "boolean", short: "f" },
  tail: { type: "string" },
  timestamps: { type: "boolean" },
} as const;

/** runLogsCommand runs `probelet logs ARGS…` and resolves with the exit code (0 also when Ctrl-C ends -f). */
export async function runLogsCommand(argv: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, OPTIONS);
  if (values.help) {
    ctx.stdout(LOGS_HELP);
    return 0;
  }
  const [target, ...extra] = positionals;
  if (target === undefined) throw new UsageError("a pod name is required: probelet logs NAME");
  if (extra.length > 0) throw new UsageError(`logs takes one pod, got ${positionals.join(", ")}`);
  const name = target.startsWith("pod/") ? target.slice(4) : target.startsWith("pods/") ? target.slice(5) : target;
  const options: LogOptions = {
    previous: values.previous ?? false,
    follow: values.follow ?? false,
    timestamps: values.timestamps ?? false,
  };
  if (values.container !== undefined) options.container = values.container;
  if (values.tail !== undefined) {
    const tail = parseInteger("--tail", values.tail);
    if (tail < -1) throw new UsageError(`invalid value "${values.tail}" for --tail: must be -1 (all lines) or more`);
    if (tail >= 0) options.tailLines = tail;
  }
  const client = clientFromFlags(values, ctx.signal);
  try {
    for await (const text of client.streamLogs(values.namespace ?? "default", name, options)) ctx.stdout(text);
    return 0;
  } catch (err) {
    // Ctrl-C is how -f normally ends.
    if (ctx.signal.aborted && options.follow) return 0;
    return reportClientError(err, ctx.stderr, ctx.signal);
  }
}
