// `probelet logs NAME`: a container's log from the agent, as kubectl logs prints it (one
// container or all of them, optionally prefixed with their source, limited by time or bytes);
// with -f it keeps streaming until Ctrl-C or until the agent ends the stream.
import { parseInteger, UsageError } from "./args.js";
import { CLIENT_FLAGS_HELP, CLIENT_OPTIONS, clientFromFlags, parseCommandArgs, reportClientError, type LogOptions, type StatusClient } from "./agent-client.js";
import { parseGoDuration } from "./parse-go-duration.js";
import { LinePrefixer } from "./line-prefixer.js";
import type { CommandContext } from "./probe-command.js";
import { allContainers } from "../api/pod-rules.js";
import type { Pod } from "../api/types.js";

/** LOGS_HELP is the text of `probelet logs --help`. */
export const LOGS_HELP = `Usage:
  probelet logs NAME [-c CONTAINER | --all-containers] [-p] [-f] [--tail N] [--since DURATION | --since-time TIME]
                [--limit-bytes N] [--timestamps] [--prefix] [-n NS]

Prints a container's log. Without -c it is the pod's default container, as kubectl picks it: the
one the annotation kubectl.kubernetes.io/default-container names, else the first container (with a
"Defaulted container" notice on stderr when the pod has others).

Flags:
  -c, --container NAME      the container
      --all-containers      every container of the pod (init containers first)
  -p, --previous            the log of the previous (restarted) instance of the container
  -f, --follow              keep streaming new lines until Ctrl-C
      --tail N              only the last N lines (-1, the default, prints all)
      --since DURATION      only lines newer than this, e.g. 10s, 5m, 1h
      --since-time TIME     only lines at or after this RFC 3339 time
      --limit-bytes N       at most N bytes of log
      --timestamps          prefix each line with its RFC 3339 timestamp
      --prefix              prefix each line with its source: [pod/NAME/CONTAINER]
${CLIENT_FLAGS_HELP}
`;

const OPTIONS = {
  ...CLIENT_OPTIONS,
  container: { type: "string", short: "c" },
  "all-containers": { type: "boolean" },
  previous: { type: "boolean", short: "p" },
  follow: { type: "boolean", short: "f" },
  tail: { type: "string" },
  since: { type: "string" },
  "since-time": { type: "string" },
  "limit-bytes": { type: "string" },
  timestamps: { type: "boolean" },
  prefix: { type: "boolean" },
} as const;

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

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
  const options = logOptions(values);
  const allContainers = values["all-containers"] ?? false;
  if (allContainers && values.container !== undefined) throw new UsageError("--all-containers=true should not be specified with container name");
  const namespace = values.namespace ?? "default";
  const client = clientFromFlags(values, ctx.signal);
  try {
    const containers = allContainers ? await containerNames(client, namespace, name) : [values.container ?? defaultContainer(await client.getPod(namespace, name), ctx.stderr)];
    const stream = async (container: string): Promise<void> => {
      const own = { ...options, container };
      const prefixer = values.prefix ? new LinePrefixer(`[pod/${name}/${container}] `) : undefined;
      for await (const text of client.streamLogs(namespace, name, own)) ctx.stdout(prefixer === undefined ? text : prefixer.push(text));
      if (prefixer !== undefined) ctx.stdout(prefixer.flush());
    };
    // kubectl follows all containers at once; without -f their logs come one after the other.
    if (options.follow === true) await Promise.all(containers.map(stream));
    else for (const container of containers) await stream(container);
    return 0;
  } catch (err) {
    // Ctrl-C is how -f normally ends.
    if (ctx.signal.aborted && options.follow) return 0;
    return reportClientError(err, ctx.stderr, ctx.signal);
  }
}

/** logOptions turns the flags into the pods/log parameters, refusing bad values as kubectl does. */
function logOptions(values: { previous?: boolean | undefined; follow?: boolean | undefined; timestamps?: boolean | undefined; container?: string | undefined; tail?: string | undefined; since?: string | undefined; "since-time"?: string | undefined; "limit-bytes"?: string | undefined }): LogOptions {
  const options: LogOptions = { previous: values.previous ?? false, follow: values.follow ?? false, timestamps: values.timestamps ?? false };
  if (values.container !== undefined) options.container = values.container;
  if (values.tail !== undefined) {
    const tail = parseInteger("--tail", values.tail);
    if (tail < -1) throw new UsageError(`invalid value "${values.tail}" for --tail: must be -1 (all lines) or more`);
    if (tail >= 0) options.tailLines = tail;
  }
  if (values.since !== undefined && values["since-time"] !== undefined) throw new UsageError("at most one of `sinceTime` or `sinceSeconds` may be specified");
  if (values.since !== undefined) {
    const ms = parseGoDuration(values.since);
    if (ms === undefined) throw new UsageError(`invalid argument "${values.since}" for "--since" flag: time: invalid duration "${values.since}"`);
    if (ms <= 0) throw new UsageError("--since must be greater than 0");
    // kubectl rounds up to whole seconds: the API's sinceSeconds.
    options.sinceSeconds = Math.ceil(ms / 1000);
  }
  if (values["since-time"] !== undefined) {
    const text = values["since-time"];
    if (!RFC3339.test(text) || Number.isNaN(Date.parse(text))) throw new UsageError(`--since-time only accepts times matching RFC3339, e.g. 2006-01-02T15:04:05Z; got "${text}"`);
    options.sinceTime = text;
  }
  if (values["limit-bytes"] !== undefined) {
    const limit = parseInteger("--limit-bytes", values["limit-bytes"]);
    if (limit <= 0) throw new UsageError("--limit-bytes must be greater than 0");
    options.limitBytes = limit;
  }
  return options;
}

/** containerNames are a pod's init containers then its containers, as kubectl --all-containers visits them. */
async function containerNames(client: StatusClient, namespace: string, name: string): Promise<string[]> {
  const pod = await client.getPod(namespace, name);
  return allContainers(pod).map((c) => c.name);
}

/** DEFAULT_CONTAINER_ANNOTATION names a pod's default container (kubectl podcmd.DefaultContainerAnnotationName). */
export const DEFAULT_CONTAINER_ANNOTATION = "kubectl.kubernetes.io/default-container";

/**
 * defaultContainer picks the container a log without -c comes from, as kubectl 1.32's
 * logsForObject does: the annotated default container if the pod has it (else a notice that it
 * is not found), otherwise the first container, with a "Defaulted container" notice when the pod
 * has other containers (podcmd.AllContainerNames: containers, then init containers).
 */
function defaultContainer(pod: Pod, stderr: (text: string) => void): string {
  const named = pod.metadata.annotations?.[DEFAULT_CONTAINER_ANNOTATION] ?? "";
  const init = pod.spec.initContainers ?? [];
  if (named !== "") {
    if ([...pod.spec.containers, ...init].some((c) => c.name === named)) return named;
    stderr(`Default container name "${named}" not found in pod ${pod.metadata.name ?? ""}\n`);
  }
  const first = pod.spec.containers[0]?.name ?? "";
  if (pod.spec.containers.length > 1 || init.length > 0) {
    const all = [...pod.spec.containers.map((c) => c.name), ...init.map((c) => `${c.name} (init)`)];
    stderr(`Defaulted container "${first}" out of: ${all.join(", ")}\n`);
  }
  return first;
}
