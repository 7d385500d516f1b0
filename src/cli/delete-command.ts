// `probelet delete pod NAME...`: graceful deletion through the agent, like kubectl delete: prints
// `pod "NAME" deleted` and, with --wait (the default), waits until the pod is gone.
import type { Clock } from "../util/clock.js";
import { systemClock } from "../util/clock.js";
import { parseInteger, UsageError } from "./args.js";
import {
  CLIENT_FLAGS_HELP, CLIENT_OPTIONS, clientFromFlags, forEachPod, parseCommandArgs, type StatusClient,
} from "./client.js";
import type { CommandContext } from "./probe-command.js";

/** DELETE_HELP is the text of `probelet delete --help`. */
export const DELETE_HELP = `Usage:
  probelet delete pod NAME... [--grace-period N] [--force] [--wait=true|false] [-n NS]

Deletes pods gracefully: the agent runs preStop hooks, sends SIGTERM and, after the grace period,
SIGKILL. With --wait (the default) the command returns once the pod is gone, waiting at most the
grace period plus 30 seconds.

Flags:
      --grace-period N      seconds the pod has to stop (-1, the default, uses the pod's own;
                            0 is turned into 1 unless --force is given)
      --force               with --grace-period 0: delete at once, without waiting for the pod
      --wait                wait until the pod is gone (default true; --wait=false returns at once)
${CLIENT_FLAGS_HELP}
`;

const OPTIONS = {
  ...CLIENT_OPTIONS,
  "grace-period": { type: "string" },
  force: { type: "boolean" },
  wait: { type: "boolean" },
} as const;

/** WAIT_SLACK_MS is how much longer than the grace period a wait for deletion may last (kubectl-like bound). */
export const WAIT_SLACK_MS = 30_000;

/** POLL_INTERVAL_MS is how often a wait asks the agent whether the pod is still there. */
export const POLL_INTERVAL_MS = 200;

const FORCE_WARNING =
  "Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated. " +
  "The resource may continue to run on the cluster indefinitely.\n";

/** runDeleteCommand runs `probelet delete ARGS…` and resolves with the exit code (1 if any pod failed). */
export async function runDeleteCommand(argv: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, OPTIONS);
  if (values.help) {
    ctx.stdout(DELETE_HELP);
    return 0;
  }
  const [type, ...names] = positionals;
  if (type === undefined || !["pods", "pod", "po"].includes(type)) {
    throw new UsageError(type === undefined ? "you must specify the type of resource to delete: pod" : `the server doesn't have a resource type "${type}"`);
  }
  if (names.length === 0) throw new UsageError("resource(s) were provided, but no name was specified");
  let grace = values["grace-period"] === undefined ? -1 : parseInteger("--grace-period", values["grace-period"]);
  const force = values.force ?? false;
  // kubectl delete: --grace-period=0 without --force becomes 1, so nothing is killed without a SIGTERM.
  if (grace === 0 && !force) grace = 1;
  const immediate = force && grace === 0;
  if (immediate) ctx.stderr(FORCE_WARNING);
  const wait = (values.wait ?? true) && !immediate;
  const namespace = values.namespace ?? "default";
  const client = clientFromFlags(values, ctx.signal);
  const clock = ctx.clock ?? systemClock;
  return forEachPod(names, ctx, async (name) => {
    const pod = await client.deletePod(namespace, name, grace >= 0 ? grace : undefined);
    ctx.stdout(`pod "${name}" ${immediate ? "force deleted" : "deleted"}\n`);
    if (!wait) return true;
    const seconds = pod.metadata.deletionGracePeriodSeconds ?? (grace >= 0 ? grace : (pod.spec.terminationGracePeriodSeconds ?? 30));
    if (await waitUntilGone(client, namespace, name, pod.metadata.uid, seconds * 1000 + WAIT_SLACK_MS, clock, ctx.signal)) return true;
    // Interrupted: forEachPod ends the command with 130.
    if (ctx.signal.aborted) throw new Error("interrupted");
    ctx.stderr(`error: timed out waiting for the condition on pods/${name}\n`);
    return false;
  });
}

/**
 * waitUntilGone polls until the pod is gone (NotFound, or the name now belongs to a pod with
 * another UID). It resolves false when timeoutMs passes or the signal aborts first.
 */
export async function waitUntilGone(
  client: StatusClient, namespace: string, name: string, uid: string | undefined, timeoutMs: number, clock: Clock, signal: AbortSignal,
): Promise<boolean> {
  const deadline = clock.monotonic() + timeoutMs;
  for (;;) {
    const pod = await client.findPod(namespace, name);
    if (pod === undefined || (uid !== undefined && pod.metadata.uid !== uid)) return true;
    const left = deadline - clock.monotonic();
    if (left <= 0 || signal.aborted) return false;
    await clock.sleep(Math.min(POLL_INTERVAL_MS, left), signal);
  }
}
