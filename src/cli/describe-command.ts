// `probelet describe pod [NAME...]`: fetches each pod, its events and its probe history from the
// agent and prints kubectl's describe layout (describe-pod.ts). Without a NAME every pod of the
// namespace is described.
import { systemClock } from "../util/clock.js";
import { UsageError } from "./args.js";
import { CLIENT_FLAGS_HELP, CLIENT_OPTIONS, clientFromFlags, forEachPod, parseCommandArgs, reportClientError } from "./agent-client.js";
import { describePod } from "../describe/describe-pod.js";
import type { CommandContext } from "./probe-command.js";

/** DESCRIBE_HELP is the text of `probelet describe --help`. */
export const DESCRIBE_HELP = `Usage:
  probelet describe pod [NAME...] [-n NS]

Shows a pod as kubectl describe does: containers with their state, restart count and probes
(e.g. "Liveness: http-get http://:8080/healthz delay=0s timeout=1s period=10s #success=1 #failure=3"),
conditions, the pod's last probes (result, "failure 2 of 3", latency, output) and its events.
Without a NAME, every pod of the namespace.

Flags:
${CLIENT_FLAGS_HELP}
`;

/** runDescribeCommand runs `probelet describe ARGS…` and resolves with the exit code. */
export async function runDescribeCommand(argv: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, CLIENT_OPTIONS);
  if (values.help) {
    ctx.stdout(DESCRIBE_HELP);
    return 0;
  }
  const [type, ...rest] = positionals;
  if (type === undefined) throw new UsageError("you must specify the type of resource to describe: pod");
  // kubectl also accepts TYPE/NAME ("pod/web").
  const [kind, inlineName] = type.includes("/") ? [type.slice(0, type.indexOf("/")), type.slice(type.indexOf("/") + 1)] : [type, undefined];
  if (!["pods", "pod", "po"].includes(kind)) throw new UsageError(`the server doesn't have a resource type "${kind}"`);
  const names = inlineName !== undefined ? [inlineName, ...rest] : rest;
  const namespace = values.namespace ?? "default";
  const client = clientFromFlags(values, ctx.signal);
  const clock = ctx.clock ?? systemClock;
  let pods = names;
  if (pods.length === 0) {
    try {
      pods = (await client.listPods(namespace)).map((p) => p.metadata.name ?? "");
    } catch (err) {
      return reportClientError(err, ctx.stderr, ctx.signal);
    }
    if (pods.length === 0) {
      ctx.stderr(`No resources found in ${namespace} namespace.\n`);
      return 0;
    }
  }
  let first = true;
  return forEachPod(pods, ctx, async (name) => {
    const pod = await client.getPod(namespace, name);
    const events = await client.listPodEvents(namespace, pod);
    const probeRuns = await client.probeHistoryRuns(namespace, name);
    ctx.stdout((first ? "" : "\n\n") + describePod(pod, events, { now: clock.now(), probeRuns }));
    first = false;
    return true;
  });
}
