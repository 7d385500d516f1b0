// metav1.LabelSelector (matchLabels + matchExpressions) as a LabelSelector, the way
// apimachinery's LabelSelectorAsSelector converts it: a missing selector matches nothing, an
// empty one everything, and every requirement passes NewRequirement's validation.
import { goQuote } from "../../api/field-errors.js";
import type { LabelOperator, LabelRequirement } from "./label-requirement.js";
import { LabelSelector, newRequirement } from "./label-selector.js";
import { SelectorError } from "./selector-error.js";

/** LabelSelectorRequirement is one metav1.LabelSelectorRequirement. */
export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

/** LabelSelectorSpec is metav1.LabelSelector. */
export interface LabelSelectorSpec {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

const SPEC_OPERATORS: Readonly<Record<string, LabelOperator>> = { In: "in", NotIn: "notin", Exists: "exists", DoesNotExist: "!" };

/** labelSelectorFromSpec converts a metav1.LabelSelector; null or undefined selects nothing. Throws SelectorError. */
export function labelSelectorFromSpec(spec: LabelSelectorSpec | null | undefined): LabelSelector {
  if (spec === null || spec === undefined) return LabelSelector.nothing();
  const requirements: LabelRequirement[] = [];
  for (const [key, value] of Object.entries(spec.matchLabels ?? {})) requirements.push(newRequirement(key, "=", [value]));
  for (const expr of spec.matchExpressions ?? []) {
    const operator = Object.hasOwn(SPEC_OPERATORS, expr.operator) ? SPEC_OPERATORS[expr.operator] : undefined;
    if (operator === undefined) throw new SelectorError(`${goQuote(expr.operator)} is not a valid label selector operator`);
    const values = expr.values !== undefined && expr.values.length > 0 ? expr.values : null;
    requirements.push(newRequirement(expr.key, operator, values));
  }
  return new LabelSelector(requirements);
}
