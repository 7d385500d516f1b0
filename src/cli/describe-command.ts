// `probelet describe pod [NAME...]`: fetches each pod and its events from the agent and prints
// kubectl's describe layout (describe-pod.ts). Without a NAME every pod of the namespace is described.
import { systemClock } from "../util/clock.js";
import { UsageError } from "./args.js";
import { CLIENT_FLAGS_HELP, CLIENT_OPTIONS, clientFromFlags, parseCommandArgs, reportClientError, ServerStatusError } from "./client.js";
import { describePod } from "./describe-pod.js";
import type { CommandContext } from "./probe-command.js";

/** DESCRIBE_HELP is the text of `probelet describe --help`. */
export const DESCRIBE_HELP = `Usage:
  probelet describe pod [NAME...] [-n NS]

Shows a pod as kubectl describe does: containers with their state, restart count and probes
(e.g. "Liveness: http-get http://:8080/healthz delay=0s timeout=1s period=10s #success=1 #failure=3"),
conditions and the pod's events. Without a NAME, every pod of the namespace.

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
  let code = 0;
  try {
    const pods = names.length > 0 ? names : (await client.listPods(namespace)).map((p) => p.metadata.name ?? "");
    if (pods.length === 0) {
      ctx.stderr(`No resources found in ${namespace} namespace.\n`);
      return 0;
    }
    let first = true;
    for (const name of pods) {
      try {
        const pod = await client.getPod(namespace, name);
        // kubectl searches the events by the pod's name, namespace and UID (a same-named older pod's are not shown).
        const selector = [`involvedObject.name=${name}`, `involvedObject.namespace=${namespace}`, ...(pod.metadata.uid ? [`involvedObject.uid=${pod.metadata.uid}`] : [])];
        const events = await client.listEvents(namespace, selector.join(","));
        ctx.stdout((first ? "" : "\n\n") + describePod(pod, events, { now: clock.now() }));
        first = false;
      } catch (err) {
        if (!(err instanceof ServerStatusError)) throw err;
        ctx.stderr(`${err.message}\n`);
        code = 1;
      }
    }
    return code;
  } catch (err) {
    return reportClientError(err, ctx.stderr, ctx.signal);
  }
}
