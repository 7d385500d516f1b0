// `probelet explain pod NAME...`: fetches a pod, its events and its probe history from the agent
// and says in words why it is not Ready and why its containers restarted (explain-pod.ts).
import { systemClock } from "../util/clock.js";
import { UsageError } from "./args.js";
import { CLIENT_FLAGS_HELP, CLIENT_OPTIONS, clientFromFlags, forEachPod, parseCommandArgs } from "./agent-client.js";
import { explainPod } from "../describe/explain-pod.js";
import type { CommandContext } from "./probe-command.js";

/** EXPLAIN_HELP is the text of `probelet explain --help`. */
export const EXPLAIN_HELP = `Usage:
  probelet explain pod NAME... [-n NS]

Says in words why a pod is not Ready (a container waiting, a startup or readiness probe that fails,
with its last output and "failure 2 of 3") and why each container restarted (which probe failed
how many times, a failed postStart hook, out of memory, or its own exit), from the pod's status,
its events and the agent's probe history. Unlike kubectl explain, it explains pods, not fields.

Flags:
${CLIENT_FLAGS_HELP}
`;

const POD_TYPES = ["pods", "pod", "po"];

/** runExplainCommand runs `probelet explain ARGS…` and resolves with the exit code. */
export async function runExplainCommand(argv: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, CLIENT_OPTIONS);
  if (values.help) {
    ctx.stdout(EXPLAIN_HELP);
    return 0;
  }
  const names = podNames(positionals);
  const namespace = values.namespace ?? "default";
  const client = clientFromFlags(values, ctx.signal);
  const clock = ctx.clock ?? systemClock;
  let first = true;
  return forEachPod(names, ctx, async (name) => {
    const pod = await client.getPod(namespace, name);
    const events = await client.listPodEvents(namespace, pod);
    const history = await client.probeHistory(namespace, name);
    ctx.stdout((first ? "" : "\n") + explainPod({ pod, events, history, now: clock.now() }));
    first = false;
    return true;
  });
}

/** podNames reads `pod NAME...`, `pod/NAME...` or a bare `NAME...`. */
function podNames(positionals: readonly string[]): string[] {
  const [first, ...rest] = positionals;
  if (first === undefined) throw new UsageError("you must name a pod to explain: probelet explain pod NAME");
  let names: string[];
  if (first.includes("/")) {
    const kind = first.slice(0, first.indexOf("/"));
    if (!POD_TYPES.includes(kind)) throw new UsageError(`the server doesn't have a resource type "${kind}"`);
    names = [first.slice(first.indexOf("/") + 1), ...rest];
  } else names = POD_TYPES.includes(first) ? rest : [first, ...rest];
  if (names.length === 0 || names.includes("")) throw new UsageError("you must name a pod to explain: probelet explain pod NAME");
  return names;
}
