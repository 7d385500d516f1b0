// Validation of container restartPolicyRules (ContainerRestartRules, beta and on by default in
// Kubernetes 1.35), following the API server's validateContainerRestartPolicy
// (pkg/apis/core/validation/validation.go): field paths and detail strings as it reports them.
// The restartPolicy value itself is checked with the other container fields in validation.ts.
import { childPath as child, indexPath as index, notSupported, required, tooLong, type FieldError } from "./field-errors.js";
import type { Container, ContainerRestartRule, Pod } from "./types.js";

/** MAX_RESTART_RULES is the most restartPolicyRules a container may list. */
export const MAX_RESTART_RULES = 20;
/** MAX_RULE_EXIT_CODES is the most exit codes one rule may list. */
export const MAX_RULE_EXIT_CODES = 255;

// With RestartAllContainersOnContainerExits off (its 1.35 default), Restart is the only action.
const RULE_ACTIONS = ["Restart"];
const RULE_OPERATORS = ["In", "NotIn"];

function validateRule(rule: ContainerRestartRule, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!RULE_ACTIONS.includes(rule.action)) errs.push(notSupported(child(path, "action"), rule.action, RULE_ACTIONS));
  const exitCodes = rule.exitCodes;
  if (exitCodes === undefined) return [...errs, required(child(path, "exitCodes"), "must be specified")];
  const exitPath = child(path, "exitCodes");
  if (!RULE_OPERATORS.includes(exitCodes.operator)) errs.push(notSupported(child(exitPath, "operator"), exitCodes.operator, RULE_OPERATORS));
  if ((exitCodes.values ?? []).length > MAX_RULE_EXIT_CODES) errs.push(tooLong(child(exitPath, "values"), MAX_RULE_EXIT_CODES));
  return errs;
}

/**
 * validateContainerRestartRules checks one container's restartPolicyRules at `path` (e.g.
 * `spec.containers[0]`): rules need the container's own restartPolicy ("must specify
 * restartPolicy when restart rules are used"), at most 20 rules, each with action Restart and an
 * exitCodes condition whose operator is In or NotIn and which lists at most 255 values.
 */
export function validateContainerRestartRules(container: Container, path: string): FieldError[] {
  const rules = container.restartPolicyRules ?? [];
  if (rules.length === 0) return [];
  const errs: FieldError[] = [];
  if (container.restartPolicy === undefined) errs.push(required(child(path, "restartPolicy"), "must specify restartPolicy when restart rules are used"));
  const rulesPath = child(path, "restartPolicyRules");
  if (rules.length > MAX_RESTART_RULES) errs.push(tooLong(rulesPath, MAX_RESTART_RULES));
  rules.forEach((rule, i) => errs.push(...validateRule(rule, index(rulesPath, i))));
  return errs;
}

/** validatePodRestartRules checks the restartPolicyRules of every regular and init container. */
export function validatePodRestartRules(pod: Pod): FieldError[] {
  return [
    ...pod.spec.containers.flatMap((c, i) => validateContainerRestartRules(c, index("spec.containers", i))),
    ...(pod.spec.initContainers ?? []).flatMap((c, i) => validateContainerRestartRules(c, index("spec.initContainers", i))),
  ];
}
