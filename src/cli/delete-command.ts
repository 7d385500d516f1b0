// `probelet delete`: deletion through the agent, like kubectl delete — by name, by label selector
// or --all, or the objects a manifest names (-f). Prints `pod "NAME" deleted` and, with --wait
// (the default), waits until each pod is gone.
import type { Clock } from "../util/clock.js";
import { systemClock } from "../util/clock.js";
import { staticPodOrigin } from "../api/mirror-pod.js";
import { parseInteger, UsageError } from "./args.js";
import { findResource, resourcePath, type ApiResource } from "./api-resources.js";
import {
  CLIENT_FLAGS_HELP, CLIENT_OPTIONS, clientFromFlags, forEachPod, parseCommandArgs, reportClientError, selectorQuery, type StatusClient,
} from "./agent-client.js";
import { readManifestObjects } from "./manifest-object-refs.js";
import type { CommandContext } from "./probe-command.js";

/** DELETE_HELP is the text of `probelet delete --help`. */
export const DELETE_HELP = `Usage:
  probelet delete TYPE NAME... | TYPE/NAME... | TYPE -l SELECTOR | TYPE --all | -f FILE...
                  [--grace-period N] [--force] [--wait=true|false] [-n NS]

Deletes objects: pods (pod, po), configmaps (cm), secrets, namespaces (ns). Pods are deleted
gracefully: the agent runs preStop hooks, sends SIGTERM and, after the grace period, SIGKILL. With
--wait (the default) the command returns once each pod is gone, waiting at most the grace period
plus 30 seconds.

Flags:
  -f, --filename FILE       delete the objects a manifest names ("-" reads stdin; repeatable)
  -l, --selector SELECTOR   delete the objects of TYPE whose labels match (e.g. app=web)
      --all                 delete every object of TYPE in the namespace
      --grace-period N      seconds a pod has to stop (-1, the default, uses the pod's own;
                            0 is turned into 1 unless --force is given)
      --force               with --grace-period 0: delete at once, without waiting for the pod
      --wait                wait until each pod is gone (default true; --wait=false returns at once)
${CLIENT_FLAGS_HELP}
`;

const OPTIONS = {
  ...CLIENT_OPTIONS,
  filename: { type: "string", short: "f", multiple: true },
  selector: { type: "string", short: "l" },
  all: { type: "boolean" },
  "grace-period": { type: "string" },
  force: { type: "boolean" },
  wait: { type: "boolean" },
} as const;

/** WAIT_SLACK_MS is how much longer than the grace period a wait for deletion may last (kubectl-like bound). */
export const WAIT_SLACK_MS = 30_000;

/** POLL_INTERVAL_MS is how often a wait asks the agent whether the pod is still there. */
export const POLL_INTERVAL_MS = 200;

/** MAX_SELECTED_OBJECTS bounds how many objects one `delete -l`/`--all` deletes. */
export const MAX_SELECTED_OBJECTS = 10_000;

const FORCE_WARNING =
  "Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated. " +
  "The resource may continue to run on the cluster indefinitely.\n";

/** Target is one object to delete. */
interface Target {
  resource: ApiResource;
  namespace: string;
  name: string;
}

/** runDeleteCommand runs `probelet delete ARGS…` and resolves with the exit code (1 if any object failed). */
export async function runDeleteCommand(argv: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, OPTIONS);
  if (values.help) {
    ctx.stdout(DELETE_HELP);
    return 0;
  }
  const namespace = values.namespace ?? "default";
  const files = values.filename ?? [];
  const bySelection = values.selector !== undefined || values.all === true;
  if (files.length > 0 && (positionals.length > 0 || bySelection)) throw new UsageError("-f cannot be combined with TYPE, NAME, --selector or --all");
  if (values.selector !== undefined && values.all === true) throw new UsageError("--all and --selector cannot be given together");
  let grace = values["grace-period"] === undefined ? -1 : parseInteger("--grace-period", values["grace-period"]);
  const force = values.force ?? false;
  // kubectl delete: --grace-period=0 without --force becomes 1, so nothing is killed without a SIGTERM.
  if (grace === 0 && !force) grace = 1;
  const immediate = force && grace === 0;
  const fromFiles = files.length > 0 ? await readManifestObjects(files, () => ctx.readStdin()) : undefined;
  const named = fromFiles === undefined ? namedTargets(positionals, namespace, bySelection) : undefined;
  if (immediate) ctx.stderr(FORCE_WARNING);
  const client = clientFromFlags(values, ctx.signal);
  let code = 0;
  let targets: Target[];
  if (fromFiles !== undefined) {
    targets = [];
    for (const object of fromFiles) {
      const resource = object.resource;
      if (resource === undefined || resource.plural === "events" || resource.plural === "nodes") {
        ctx.stderr(`error: unable to recognize "${object.source}": no matches for kind "${object.kind}" in version "${object.apiVersion}"\n`);
        code = 1;
        continue;
      }
      if (values.namespace !== undefined && object.namespace !== undefined && object.namespace !== values.namespace && resource.namespaced) {
        throw new UsageError(`the namespace from the provided object "${object.namespace}" does not match the namespace "${values.namespace}". You must pass '--namespace=${object.namespace}' to perform this operation.`);
      }
      targets.push({ resource, namespace: object.namespace ?? namespace, name: object.name });
    }
  } else if (named !== undefined && "selection" in named) {
    try {
      targets = await selectTargets(client, named.selection, namespace, values.selector);
    } catch (err) {
      return reportClientError(err, ctx.stderr, ctx.signal);
    }
    if (targets.length === 0) {
      ctx.stderr(named.selection.namespaced ? `No resources found in ${namespace} namespace.\n` : "No resources found\n");
      return 0;
    }
  } else targets = named?.targets ?? [];
  const wait = (values.wait ?? true) && !immediate;
  const clock = ctx.clock ?? systemClock;
  const byKey = new Map(targets.map((t, i) => [String(i), t]));
  const result = await forEachPod([...byKey.keys()], ctx, async (key) => {
    const target = byKey.get(key)!;
    const { resource, name } = target;
    if (resource.plural !== "pods") {
      await client.deleteResource(resourcePath(resource, target.namespace, name) + (grace >= 0 ? `?gracePeriodSeconds=${grace}` : ""));
      ctx.stdout(`${resource.singular} "${name}" deleted\n`);
      return true;
    }
    const pod = await client.deletePod(target.namespace, name, grace >= 0 ? grace : undefined);
    ctx.stdout(`pod "${name}" ${immediate ? "force deleted" : "deleted"}\n`);
    // A static pod's mirror is made again by the agent at once (a new UID, which ends the wait).
    const origin = staticPodOrigin(pod);
    if (origin !== undefined) ctx.stderr(`Warning: ${origin}\n`);
    if (!wait) return true;
    const seconds = pod.metadata.deletionGracePeriodSeconds ?? (grace >= 0 ? grace : (pod.spec.terminationGracePeriodSeconds ?? 30));
    if (await waitUntilGone(client, target.namespace, name, pod.metadata.uid, seconds * 1000 + WAIT_SLACK_MS, clock, ctx.signal)) return true;
    // Interrupted: forEachPod ends the command with 130.
    if (ctx.signal.aborted) throw new Error("interrupted");
    ctx.stderr(`error: timed out waiting for the condition on pods/${name}\n`);
    return false;
  });
  return result !== 0 ? result : code;
}

/**
 * namedTargets reads `TYPE NAME...`, `TYPE/NAME...` or, with a selection flag, `TYPE` alone
 * (kubectl's resource builder rules for delete).
 */
function namedTargets(positionals: readonly string[], namespace: string, bySelection: boolean): { targets: Target[] } | { selection: ApiResource } {
  const [first, ...rest] = positionals;
  if (first === undefined) throw new UsageError("you must specify the type of resource to delete: pods, configmaps, secrets or namespaces, or -f FILE");
  if (first.includes("/")) {
    if (bySelection) throw new UsageError("name cannot be provided when a selector is specified");
    return {
      targets: positionals.map((p) => {
        const slash = p.indexOf("/");
        if (slash < 0) throw new UsageError(`there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'probelet delete pod/${p}')`);
        return { resource: deletable(p.slice(0, slash)), namespace, name: p.slice(slash + 1) };
      }),
    };
  }
  const resource = deletable(first);
  if (bySelection) {
    if (rest.length > 0) throw new UsageError("name cannot be provided when a selector is specified");
    return { selection: resource };
  }
  if (rest.length === 0) throw new UsageError("resource(s) were provided, but no name was specified");
  return { targets: rest.map((name) => ({ resource, namespace, name })) };
}

function deletable(type: string): ApiResource {
  const resource = findResource(type);
  if (resource === undefined || resource.plural === "events" || resource.plural === "nodes") throw new UsageError(`the server doesn't have a resource type "${type}"`);
  return resource;
}

/** selectTargets lists the objects of a type that a label selector (or --all) picks; the server applies the selector. */
async function selectTargets(client: StatusClient, resource: ApiResource, namespace: string, labelSelector: string | undefined): Promise<Target[]> {
  const query = selectorQuery(labelSelector !== undefined ? { labelSelector } : {});
  const list = (await client.getResource(resourcePath(resource, namespace) + query)) as { items?: { metadata?: { name?: string; namespace?: string } }[] } | null;
  const items = list?.items ?? [];
  if (items.length > MAX_SELECTED_OBJECTS) throw new Error(`the selection matches ${items.length} objects, more than the ${MAX_SELECTED_OBJECTS} one delete may remove`);
  return items.map((item) => ({ resource, namespace: item.metadata?.namespace ?? namespace, name: item.metadata?.name ?? "" }));
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
