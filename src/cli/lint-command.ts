// `probelet lint -f FILE...`: the probe linter (src/api/probe-lint.ts) over manifests before they
// are deployed. It reads what `probelet run` reads (multi-document YAML or JSON; Pods, Lists, and
// other kinds, which run skips) and also checks the pod template of every workload (Deployment,
// StatefulSet, DaemonSet, ReplicaSet, Job, CronJob), where real probes live. Pods and templates
// are decoded strictly, defaulted and validated as the API server does; paths name the field in
// its object (`spec.template.spec.containers[0]…`).
import { formatOfFile, NO_OBJECTS_MESSAGE } from "../api/bounded-parse.js";
import { decodePodsAndOthers } from "../api/decode.js";
import { formatFieldErrors } from "../api/field-errors.js";
import { podTemplateOf } from "../api/pod-templates.js";
import { lintPod } from "../api/probe-lint.js";
import type { Pod } from "../api/types.js";
import { defaultAndValidatePod } from "../api/validation.js";
import { parseCommandArgs } from "./agent-client.js";
import { manifestFiles, readInputFile } from "./input-file.js";
import type { CommandContext } from "./probe-command.js";
import { lintSecurityContext } from "./lint-security-context.js";
import { InvalidInputError } from "./probe-spec.js";

/** LINT_HELP is the text of `probelet lint --help`. */
export const LINT_HELP = `Usage:
  probelet lint -f FILE...

Warns about probe configurations that are valid but risky, in Pods and in the pod templates of
Deployments, StatefulSets, DaemonSets, ReplicaSets, Jobs and CronJobs, one line per finding:
  - timeoutSeconds not below periodSeconds (a timed-out probe delays the next one);
  - a liveness failureThreshold of 1 (one slow answer restarts the container);
  - a liveness probe that checks the same as the readiness probe;
  - a liveness initialDelaySeconds of 30 s or more without a startupProbe;
  - a securityContext field (runAsUser, runAsGroup, supplementalGroups, privileged,
    capabilities) that the process runtime applies only when the agent runs as root, when
    lint does not run as root.
The agent runs such pods as they are; \`probelet run\` and \`probelet apply\` print the same probe
warnings, and a process-runtime agent holds back a container whose securityContext it cannot apply.

Other kinds (ConfigMaps, Secrets, Services, …) are skipped, as \`probelet run\` skips or loads them.

Exit status: 0 no findings, 1 findings, 2 a manifest that does not decode or validate.

Flags:
  -f, --filename FILE   a manifest (multi-document YAML or JSON); "-" reads stdin (repeatable)
  -h, --help            show this help
`;

const OPTIONS = { filename: { type: "string", short: "f", multiple: true }, help: { type: "boolean", short: "h" } } as const;

/** runLintCommand runs `probelet lint ARGS…` and resolves with the exit code. */
export async function runLintCommand(argv: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, OPTIONS);
  if (values.help) {
    ctx.stdout(LINT_HELP);
    return 0;
  }
  const findings: string[] = [];
  const counts = { pods: 0, templates: 0, skipped: 0 };
  for (const file of manifestFiles(values.filename, positionals)) {
    const source = file === "-" ? "STDIN" : file;
    const others: Record<string, unknown>[] = [];
    const decoded = decodePodsAndOthers(await readInputFile(file, () => ctx.readStdin()), source, formatOfFile(file), (object) => others.push(object));
    if (!decoded.ok) throw new InvalidInputError(`error validating "${source}"`, decoded.errors);
    if (decoded.value.length + others.length === 0) throw new InvalidInputError(`error validating "${source}"`, [NO_OBJECTS_MESSAGE]);
    for (const pod of decoded.value) {
      counts.pods++;
      findings.push(...lintChecked(pod, source, `pod/${pod.metadata.name ?? ""}`, `Pod "${pod.metadata.name ?? ""}"`, ""));
    }
    for (const object of others) {
      const errors: string[] = [];
      const template = podTemplateOf(object, errors);
      const what = `${String(object["kind"])} "${nameOf(object)}"`;
      if (errors.length > 0) throw new InvalidInputError(`${source}: ${what} is invalid:`, errors);
      if (template === undefined) {
        counts.skipped++;
        continue;
      }
      counts.templates++;
      findings.push(...lintChecked(template.pod, source, template.owner, what, `${template.path}.`));
    }
  }
  for (const finding of findings) ctx.stdout(`${finding}\n`);
  if (findings.length === 0) ctx.stdout(`${summary(counts)}, no findings\n`);
  return findings.length === 0 ? 0 : 1;
}

/**
 * lintChecked defaults and validates a pod (or a template as a pod) and returns its findings as
 * `<source>: <owner>: <prefix><field>: …`; an invalid one throws with its errors under `prefix`.
 */
function lintChecked(pod: Pod, source: string, owner: string, what: string, prefix: string): string[] {
  const checked = defaultAndValidatePod(pod);
  if (!checked.ok) throw new InvalidInputError(`${source}: ${what} is invalid:`, formatFieldErrors(checked.errors).map((e) => prefix + e));
  return [...lintPod(checked.pod), ...lintSecurityContext(checked.pod)].map((w) => `${source}: ${owner}: ${prefix}${w}`);
}

/** nameOf is an object's metadata.name, or "". */
function nameOf(object: Record<string, unknown>): string {
  const meta = object["metadata"];
  const name = typeof meta === "object" && meta !== null ? (meta as Record<string, unknown>)["name"] : undefined;
  return typeof name === "string" ? name : "";
}

/** summary says what was checked: `2 pods checked`, `1 pod and 3 pod templates checked; 2 other objects skipped`. */
function summary({ pods, templates, skipped }: { pods: number; templates: number; skipped: number }): string {
  const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;
  const checked = templates === 0 ? `${plural(pods, "pod")} checked` : pods === 0 ? `${plural(templates, "pod template")} checked` : `${plural(pods, "pod")} and ${plural(templates, "pod template")} checked`;
  return skipped === 0 ? checked : `${checked}; ${plural(skipped, "other object")} skipped`;
}
