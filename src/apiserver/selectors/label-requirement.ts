// One requirement of a label selector (apimachinery labels.Requirement): a key, an operator
// and values, with NewRequirement's validation, Matches and String.
import { goQuote } from "../../api/field-errors.js";
import { isQualifiedName, isValidLabelValue } from "../../api/validation-object-meta.js";

/** LabelOperator is a selection.Operator, spelled as apimachinery spells it. */
export type LabelOperator = "in" | "notin" | "=" | "==" | "!=" | "exists" | "!" | "gt" | "lt";

/** BINARY_OPERATORS lists the operators that take values, in the order the parser's error names them. */
export const BINARY_OPERATORS: readonly LabelOperator[] = ["in", "notin", "=", "==", "!=", "gt", "lt"];

/** LabelRequirement is one validated requirement; values keep the order they were given in. */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  readonly values: readonly string[];
}

/** goStringSlice renders a []string as Go's %#v does (`[]string{"a", "b"}`, or `[]string(nil)` for none). */
function goStringSlice(values: readonly string[] | null): string {
  if (values === null) return "[]string(nil)";
  return `[]string{${values.map(goQuote).join(", ")}}`;
}

function invalid(path: string, renderedValue: string, detail: string): string {
  return `${path}: Invalid value: ${renderedValue}: ${detail}`;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** parseInt64 reads a base-10 int64 as Go's strconv.ParseInt(s, 10, 64) does, or undefined. */
export function parseInt64(text: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(text)) return undefined;
  const value = BigInt(text);
  return value < INT64_MIN || value > INT64_MAX ? undefined : value;
}

/** labelKeyError is the parser's key check (validateLabelKey), or undefined for a valid key. */
export function labelKeyError(key: string, path: string): string | undefined {
  const errs = isQualifiedName(key);
  return errs.length === 0 ? undefined : invalid(path, goQuote(key), errs.join("; "));
}

/**
 * requirementErrors is NewRequirement's validation (labels/selector.go), in its order: the
 * key, the operator's value count, then every value as a label value. `null` values stand for
 * a nil slice. Repeated messages are dropped, as ErrorList.ToAggregate does.
 */
export function requirementErrors(key: string, operator: LabelOperator, values: readonly string[] | null): string[] {
  const errs: string[] = [];
  const keyError = labelKeyError(key, "key");
  if (keyError !== undefined) errs.push(keyError);
  const list = values ?? [];
  switch (operator) {
    case "in":
    case "notin":
      if (list.length === 0) errs.push(invalid("values", goStringSlice(values), "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case "=":
    case "==":
    case "!=":
      if (list.length !== 1) errs.push(invalid("values", goStringSlice(values), "exact-match compatibility requires one single value"));
      break;
    case "exists":
    case "!":
      if (list.length !== 0) errs.push(invalid("values", goStringSlice(values), "values set must be empty for exists and does not exist"));
      break;
    case "gt":
    case "lt":
      if (list.length !== 1) errs.push(invalid("values", goStringSlice(values), "for 'Gt', 'Lt' operators, exactly one value is required"));
      list.forEach((v, i) => {
        if (parseInt64(v) === undefined) errs.push(invalid(`values[${i}]`, goQuote(v), "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      break;
  }
  list.forEach((v, i) => {
    const valueErrs = isValidLabelValue(v);
    if (valueErrs.length > 0) errs.push(invalid(`values[${i}][${key}]`, goQuote(v), valueErrs.join("; ")));
  });
  return [...new Set(errs)];
}

/** aggregate joins messages as apimachinery's Aggregate does: one alone, several as `[a, b]`. */
export function aggregate(messages: readonly string[]): string {
  return messages.length === 1 ? messages[0]! : `[${messages.join(", ")}]`;
}

/** requirementMatches is Requirement.Matches: notin and != also match objects without the key; gt/lt compare int64 values. */
export function requirementMatches(r: LabelRequirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, r.key);
  const value = has ? labels[r.key]! : undefined;
  switch (r.operator) {
    case "in":
    case "=":
    case "==":
      return value !== undefined && r.values.includes(value);
    case "notin":
    case "!=":
      return value === undefined || !r.values.includes(value);
    case "exists":
      return has;
    case "!":
      return !has;
    case "gt":
    case "lt": {
      const actual = value === undefined ? undefined : parseInt64(value);
      const bound = r.values.length === 1 ? parseInt64(r.values[0]!) : undefined;
      if (actual === undefined || bound === undefined) return false;
      return r.operator === "gt" ? actual > bound : actual < bound;
    }
  }
}

const OPERATOR_TEXT: Record<LabelOperator, string> = {
  "=": "=", "==": "==", "!=": "!=", in: " in ", notin: " notin ", gt: ">", lt: "<", exists: "", "!": "",
};

/** requirementString is Requirement.String: `!k`, `k`, `k=v`, `k in (a,b)` with values sorted. */
export function requirementString(r: LabelRequirement): string {
  if (r.operator === "exists") return r.key;
  if (r.operator === "!") return `!${r.key}`;
  const values = [...r.values].sort(compareBytes).join(",");
  const set = r.operator === "in" || r.operator === "notin";
  return `${r.key}${OPERATOR_TEXT[r.operator]}${set ? `(${values})` : values}`;
}

/** compareBytes orders strings as Go's sort.Strings does (by UTF-8 bytes). */
export function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}
