// `probelet apply -f FILE...`: creates the pods of multi-document YAML/JSON manifests through the
// agent, like kubectl apply. Pods are immutable, so a pod whose spec (or labels, annotations)
// changed is deleted, awaited until gone, and created again ("configured").
import { defaultPod } from "../api/defaults.js";
import { ANNOTATION_MANIFEST, ANNOTATION_MANIFEST_WATCHED, isMirrorPod, MIRROR_ANNOTATIONS } from "../api/mirror-pod.js";
import { formatFieldErrorBody, formatInvalidObject } from "../api/field-errors.js";
import type { Pod } from "../api/types.js";
import { lintPod } from "../api/probe-lint.js";
import { defaultAndValidatePod } from "../api/validation.js";
import { systemClock, type Clock } from "../util/clock.js";
import { UsageError } from "./args.js";
import { manifestFiles, readManifests } from "./input-file.js";
import {
  CLIENT_FLAGS_HELP, CLIENT_OPTIONS, clientFromFlags, parseCommandArgs, reportClientError, ServerStatusError, type StatusClient,
} from "./agent-client.js";
import { waitUntilGone, WAIT_SLACK_MS } from "./delete-command.js";
import type { CommandContext } from "./probe-command.js";

/** APPLY_HELP is the text of `probelet apply --help`. */
export const APPLY_HELP = `Usage:
  probelet apply -f FILE... [-n NS]

Creates the pods of each manifest (multi-document YAML or JSON; Pod, List or PodList) in the agent:
  pod/NAME created      the pod did not exist
  pod/NAME unchanged    it exists with the same spec, labels and annotations
  pod/NAME configured   it existed with a different one: pods are immutable, so the old pod is
                        deleted gracefully, awaited until gone (at most its grace period + 30 s)
                        and created again (an invalid new manifest is refused before the delete)

A static pod (one the agent runs from its own manifest, -f or --manifests) applies as unchanged
from that manifest and is never replaced: an apply that would change it fails, naming its file.

Flags:
  -f, --filename FILE       a manifest; "-" reads stdin (repeatable)
${CLIENT_FLAGS_HELP}
`;

const OPTIONS = { ...CLIENT_OPTIONS, filename: { type: "string", short: "f", multiple: true } } as const;

/** runApplyCommand runs `probelet apply ARGS…`: exit 0 when every pod applied, 1 otherwise, 2 for bad manifests. */
export async function runApplyCommand(argv: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, OPTIONS);
  if (values.help) {
    ctx.stdout(APPLY_HELP);
    return 0;
  }
  // Every manifest is read and decoded before anything is sent: bad input (an empty file too) changes nothing.
  const manifests = await readManifests(manifestFiles(values.filename, positionals), () => ctx.readStdin());
  const explicitNamespace = values.namespace;
  for (const { pod } of manifests) {
    const own = pod.metadata.namespace;
    if (explicitNamespace !== undefined && own && own !== explicitNamespace) {
      throw new UsageError(`the namespace from the provided object "${own}" does not match the namespace "${explicitNamespace}". You must pass '--namespace=${own}' to perform this operation.`);
    }
    pod.metadata.namespace = own || explicitNamespace || "default";
  }
  // The probe linter's findings, as kubectl shows an API server's warnings; the agent runs these pods as they are.
  for (const { pod } of manifests) {
    const checked = defaultAndValidatePod(pod);
    if (checked.ok) for (const warning of lintPod(checked.pod)) ctx.stderr(`Warning: pod/${pod.metadata.name ?? ""}: ${warning}\n`);
  }
  const client = clientFromFlags(values, ctx.signal);
  const clock = ctx.clock ?? systemClock;
  let code = 0;
  try {
    for (const manifest of manifests) {
      try {
        const outcome = await applyPod(client, manifest.pod, clock, ctx.signal);
        ctx.stdout(`pod/${manifest.pod.metadata.name ?? ""} ${outcome}\n`);
      } catch (err) {
        if (!(err instanceof ServerStatusError) && !(err instanceof DeletionTimeout) && !(err instanceof StaticPodRefusal)) throw err;
        ctx.stderr(`${withSource(err, manifest.source).message}\n`);
        code = 1;
      }
    }
    return code;
  } catch (err) {
    return reportClientError(err, ctx.stderr, ctx.signal);
  }
}

/** DeletionTimeout is an old pod that did not go away in time to be replaced. */
class DeletionTimeout extends Error {
  override readonly name = "DeletionTimeout";
}

/** StaticPodRefusal is a manifest that would replace a static pod (a pod the agent runs from its own manifest). */
class StaticPodRefusal extends Error {
  override readonly name = "StaticPodRefusal";
}

/** staticPodRefusal says why a static pod is not replaced, naming its file and what to do instead. */
function staticPodRefusal(mirror: Pod): string {
  const annotations = mirror.metadata.annotations ?? {};
  const name = JSON.stringify(mirror.metadata.name ?? "");
  const file = annotations[ANNOTATION_MANIFEST];
  if (file === undefined || file === "-") return `error: pod ${name} is a static pod of the agent, run from ${file === "-" ? "standard input" : "its node's manifests"}: it cannot be replaced through the API`;
  const how = annotations[ANNOTATION_MANIFEST_WATCHED] === "true" ? "edit that file: the agent reads it again at once" : "edit that file and start the agent again";
  return `error: pod ${name} runs from ${file} as a static pod and cannot be replaced through the API; ${how}`;
}

/** withoutMirrorAnnotations is a mirror pod as its manifest wrote it: without the annotations the agent added. */
function withoutMirrorAnnotations(mirror: Pod): Pod {
  const annotations = Object.fromEntries(Object.entries(mirror.metadata.annotations ?? {}).filter(([key]) => !MIRROR_ANNOTATIONS.includes(key)));
  const { annotations: _all, ...metadata } = mirror.metadata;
  return { ...mirror, metadata: Object.keys(annotations).length > 0 ? { ...metadata, annotations } : metadata };
}

/** applyPod creates, keeps or replaces one pod and says which it did. */
async function applyPod(client: StatusClient, pod: Pod, clock: Clock, signal: AbortSignal): Promise<"created" | "unchanged" | "configured"> {
  const namespace = pod.metadata.namespace ?? "default";
  const name = pod.metadata.name ?? "";
  const existing = await client.findPod(namespace, name);
  if (existing === undefined) {
    await client.createPod(namespace, pod);
    return "created";
  }
  if (isMirrorPod(existing)) {
    // A static pod runs as its manifest says: the file it comes from applies as unchanged, anything else is refused.
    if (sameDesiredState(withoutMirrorAnnotations(existing), pod)) return "unchanged";
    throw new StaticPodRefusal(staticPodRefusal(existing));
  }
  const terminating = existing.metadata.deletionTimestamp !== undefined;
  if (!terminating && sameDesiredState(existing, pod)) return "unchanged";
  // Never delete a running pod for a manifest the agent would refuse: validate it here first.
  const checked = defaultAndValidatePod(pod);
  if (!checked.ok) {
    const causes = checked.errors.map((e) => ({ reason: `FieldValue${e.type}`, field: e.field, message: formatFieldErrorBody(e) }));
    throw new ServerStatusError({ kind: "Status", reason: "Invalid", code: 422, message: formatInvalidObject("Pod", name, checked.errors), details: { name, kind: "Pod", causes } });
  }
  const deleted = terminating ? existing : await client.deletePod(namespace, name);
  const grace = deleted.metadata.deletionGracePeriodSeconds ?? deleted.spec.terminationGracePeriodSeconds ?? 30;
  if (!(await waitUntilGone(client, namespace, name, existing.metadata.uid, grace * 1000 + WAIT_SLACK_MS, clock, signal))) {
    if (signal.aborted) throw new DOMException("interrupted", "AbortError");
    throw new DeletionTimeout(`error: timed out waiting for pod "${name}" to be deleted before creating it again`);
  }
  await client.createPod(namespace, pod);
  return terminating ? "created" : "configured";
}

/** sameDesiredState compares what a manifest sets (defaulted spec, labels, annotations), ignoring key order. */
export function sameDesiredState(current: Pod, wanted: Pod): boolean {
  // The server binds a pod to its node: a manifest without spec.nodeName takes the stored one.
  const nodeName = wanted.spec.nodeName ?? current.spec.nodeName;
  const desired = (pod: Pod): string =>
    canonical({ spec: { ...defaultPod(pod).spec, nodeName }, labels: pod.metadata.labels ?? {}, annotations: pod.metadata.annotations ?? {} });
  return desired(current) === desired(wanted);
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

/** withSource adds kubectl's `error when creating "FILE": ` to a Status message (Invalid keeps its own head). */
function withSource(err: ServerStatusError | DeletionTimeout | StaticPodRefusal, source: string): Error {
  if (!(err instanceof ServerStatusError) || err.status.reason === "Invalid") return err;
  return new ServerStatusError({ ...err.status, message: `error when creating "${source}": ${err.status.message ?? ""}` });
}

