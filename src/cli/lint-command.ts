// `probelet lint -f FILE...`: the probe linter (src/api/probe-lint.ts) over Pod manifests, before
// they are deployed. Manifests are decoded strictly, defaulted and validated as the agent does.
import { formatFieldErrors } from "../api/field-errors.js";
import { lintPod } from "../api/probe-lint.js";
import { defaultAndValidatePod } from "../api/validation.js";
import { parseCommandArgs } from "./client.js";
import { manifestFiles, readManifests } from "./input-file.js";
import type { CommandContext } from "./probe-command.js";
import { lintSecurityContext } from "./lint-security-context.js";
import { InvalidInputError } from "./probe-spec.js";

/** LINT_HELP is the text of `probelet lint --help`. */
export const LINT_HELP = `Usage:
  probelet lint -f FILE...

Warns about probe configurations that are valid but risky, one line per finding:
  - timeoutSeconds not below periodSeconds (a timed-out probe delays the next one);
  - a liveness failureThreshold of 1 (one slow answer restarts the container);
  - a liveness probe that checks the same as the readiness probe;
  - a liveness initialDelaySeconds of 30 s or more without a startupProbe;
  - a securityContext field (runAsUser, runAsGroup, supplementalGroups, privileged,
    capabilities) that the process runtime applies only when the agent runs as root, when
    lint does not run as root.
The agent runs such pods as they are; \`probelet run\` and \`probelet apply\` print the same probe
warnings, and a process-runtime agent holds back a container whose securityContext it cannot apply.

Exit status: 0 no findings, 1 findings, 2 a manifest that does not decode or validate.

Flags:
  -f, --filename FILE   a manifest (multi-document YAML or JSON; Pod, List or PodList); "-" reads stdin (repeatable)
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
  const manifests = await readManifests(manifestFiles(values.filename, positionals), () => ctx.readStdin());
  const findings: string[] = [];
  for (const { pod, source } of manifests) {
    const checked = defaultAndValidatePod(pod);
    if (!checked.ok) throw new InvalidInputError(`${source}: Pod "${pod.metadata.name ?? ""}" is invalid:`, formatFieldErrors(checked.errors));
    findings.push(...[...lintPod(checked.pod), ...lintSecurityContext(checked.pod)].map((w) => `${source}: pod/${pod.metadata.name ?? ""}: ${w}`));
  }
  for (const finding of findings) ctx.stdout(`${finding}\n`);
  const pods = manifests.length;
  if (findings.length === 0) ctx.stdout(`${pods} pod${pods === 1 ? "" : "s"} checked, no findings\n`);
  return findings.length === 0 ? 0 : 1;
}
