// Validation of container restartPolicyRules (ContainerRestartRules, beta and on by default
// since Kubernetes 1.35), following the API server's validateContainerRestartPolicy and
// validateInitContainerRestartPolicy of 1.37 (pkg/apis/core/validation/validation.go): field paths
// and detail strings as it reports them. The restartPolicy value itself is checked with the other
// container fields in validation.ts.
import { childPath as child, forbidden, indexPath as index, notSupported, required, tooMany, type FieldError } from "./field-errors.js";
import type { Container, ContainerRestartRule, Pod } from "./types.js";

/** MAX_RESTART_RULES is the most restartPolicyRules a container may list. */
export const MAX_RESTART_RULES = 20;
/** MAX_RULE_EXIT_CODES is the most exit codes one rule may list. */
export const MAX_RULE_EXIT_CODES = 255;

/** RESTART_ALL_CONTAINERS is the rule action that restarts the whole pod in place (KEP-5532). */
export const RESTART_ALL_CONTAINERS = "RestartAllContainers";

// sets.List order: sorted.
const RULE_ACTIONS = ["Restart"];
const RULE_ACTIONS_WITH_RESTART_ALL = ["Restart", RESTART_ALL_CONTAINERS];
const RULE_OPERATORS = ["In", "NotIn"];

function validateRule(rule: ContainerRestartRule, path: string, actions: readonly string[]): FieldError[] {
  const errs: FieldError[] = [];
  if (!actions.includes(rule.action)) errs.push(notSupported(child(path, "action"), rule.action, actions));
  const exitCodes = rule.exitCodes;
  if (exitCodes === undefined) return [...errs, required(child(path, "exitCodes"), "must be specified")];
  const exitPath = child(path, "exitCodes");
  if (!RULE_OPERATORS.includes(exitCodes.operator)) errs.push(notSupported(child(exitPath, "operator"), exitCodes.operator, RULE_OPERATORS));
  const values = exitCodes.values ?? [];
  if (values.length > MAX_RULE_EXIT_CODES) errs.push(tooMany(child(exitPath, "values"), values.length, MAX_RULE_EXIT_CODES));
  return errs;
}

/**
 * validateContainerRestartRules checks one container's restartPolicyRules at `path` (e.g.
 * `spec.containers[0]`): rules need the container's own restartPolicy ("must specify
 * restartPolicy when restart rules are used"), at most 20 rules (field.TooMany, kubernetes#137136),
 * each with action Restart (or RestartAllContainers, `restartAllContainers`) and an exitCodes
 * condition whose operator is In or NotIn and which lists at most 255 values.
 */
export function validateContainerRestartRules(container: Container, path: string, restartAllContainers = true): FieldError[] {
  const rules = container.restartPolicyRules ?? [];
  if (rules.length === 0) return [];
  const errs: FieldError[] = [];
  if (container.restartPolicy === undefined) errs.push(required(child(path, "restartPolicy"), "must specify restartPolicy when restart rules are used"));
  const rulesPath = child(path, "restartPolicyRules");
  if (rules.length > MAX_RESTART_RULES) errs.push(tooMany(rulesPath, rules.length, MAX_RESTART_RULES));
  const actions = restartAllContainers ? RULE_ACTIONS_WITH_RESTART_ALL : RULE_ACTIONS;
  rules.forEach((rule, i) => errs.push(...validateRule(rule, index(rulesPath, i), actions)));
  return errs;
}

/**
 * validatePodRestartRules checks the restartPolicyRules of every regular and init container. A
 * sidecar (init container with restartPolicy Always) may have rules only with
 * RestartAllContainersOnContainerExits (`restartAllContainers`, on by default in 1.37); without
 * it they are forbidden (validateInitContainerRestartPolicy).
 */
export function validatePodRestartRules(pod: Pod, restartAllContainers = true): FieldError[] {
  return [
    ...pod.spec.containers.flatMap((c, i) => validateContainerRestartRules(c, index("spec.containers", i), restartAllContainers)),
    ...(pod.spec.initContainers ?? []).flatMap((c, i) => {
      const path = index("spec.initContainers", i);
      if (c.restartPolicy === "Always" && !restartAllContainers && (c.restartPolicyRules ?? []).length > 0) {
        return [forbidden(child(path, "restartPolicyRules"), "restartPolicyRules are not allowed for init containers with restart policy Always")];
      }
      return validateContainerRestartRules(c, path, restartAllContainers);
    }),
  ];
}

/** usesRestartAllContainers reports whether any container has a RestartAllContainers rule (pkg/api/pod restartAllContainersActionInUse). */
export function usesRestartAllContainers(pod: Pod): boolean {
  return [...(pod.spec.initContainers ?? []), ...pod.spec.containers].some((c) => (c.restartPolicyRules ?? []).some((r) => r.action === RESTART_ALL_CONTAINERS));
}
