// Label selectors as the API server parses and applies them (apimachinery labels/selector.go):
//   <selector>    ::= <requirement> | <requirement> "," <selector>
//   <requirement> ::= [!] KEY [ ("in" | "notin") "(" VALUES ")" | ("=" | "==" | "!=" | ">" | "<") VALUE ]
// Keys are qualified names, values label values (63 characters at most); comma means AND.
// Errors carry the parser's exact messages, e.g. `unable to parse requirement: found '', expected: in, notin, =, ==, !=, gt, lt`.
import { lexLabelSelector, type LabelToken, type ScannedItem } from "./label-lexer.js";
import {
  aggregate, BINARY_OPERATORS, compareBytes, labelKeyError, requirementErrors, requirementMatches, requirementString,
  type LabelOperator, type LabelRequirement,
} from "./label-requirement.js";
import { SelectorError } from "./selector-error.js";

/** MAX_SELECTOR_LENGTH bounds the text a selector may have (the URL limit makes longer ones impossible anyway). */
export const MAX_SELECTOR_LENGTH = 64 * 1024;

/** LabelSelector is a parsed selector: all requirements must match (labels.Selector). */
export class LabelSelector {
  /** requirements, sorted by key as the parser sorts them. */
  readonly requirements: readonly LabelRequirement[];
  /** matchesNothing is true only for the selector of a nil metav1.LabelSelector (labels.Nothing). */
  private readonly matchesNothing: boolean;

  constructor(requirements: readonly LabelRequirement[], matchesNothing = false) {
    this.requirements = [...requirements].sort((a, b) => compareBytes(a.key, b.key));
    this.matchesNothing = matchesNothing;
  }

  /** everything is the selector that matches all objects (an empty `labelSelector`). */
  static everything(): LabelSelector {
    return new LabelSelector([]);
  }

  /** nothing is the selector that matches no object (a nil metav1.LabelSelector). */
  static nothing(): LabelSelector {
    return new LabelSelector([], true);
  }

  /** empty is true when the selector does not restrict anything. */
  get empty(): boolean {
    return !this.matchesNothing && this.requirements.length === 0;
  }

  /** matches tells whether an object with these labels is selected; missing labels are no labels. */
  matches(labels: Readonly<Record<string, string>> | undefined): boolean {
    if (this.matchesNothing) return false;
    return this.requirements.every((r) => requirementMatches(r, labels ?? {}));
  }

  /** toString is the canonical form: requirements sorted by key, values sorted, joined by ",". */
  toString(): string {
    return this.requirements.map(requirementString).join(",");
  }
}

type Context = "keyAndOperator" | "values";

/** Parser walks the scanned items; in the values context the keywords in/notin are identifiers. */
class Parser {
  private position = 0;
  constructor(private readonly items: readonly ScannedItem[]) {}

  lookahead(context: Context): ScannedItem {
    return asContext(this.items[this.position]!, context);
  }

  consume(context: Context): ScannedItem {
    const item = this.lookahead(context);
    if (this.position < this.items.length - 1) this.position++;
    return item;
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const { token, literal } = this.lookahead("values");
      if (token === "end") return requirements;
      if (token !== "identifier" && token !== "doesNotExist") throw new SelectorError(`found '${literal}', expected: !, identifier, or 'end of string'`);
      requirements.push(this.parseRequirement());
      const next = this.consume("values");
      if (next.token === "end") return requirements;
      if (next.token !== "comma") throw new SelectorError(`found '${next.literal}', expected: ',' or 'end of string'`);
      const after = this.lookahead("values");
      if (after.token !== "identifier" && after.token !== "doesNotExist") throw new SelectorError(`found '${after.literal}', expected: identifier after ','`);
    }
  }

  private parseRequirement(): LabelRequirement {
    try {
      const { key, operator } = this.parseKeyAndInferOperator();
      if (operator === "exists" || operator === "!") return newRequirement(key, operator, []);
      const binary = this.parseOperator();
      const values = binary === "in" || binary === "notin" ? this.parseValues() : this.parseExactValue();
      return newRequirement(key, binary, [...new Set(values)].sort(compareBytes));
    } catch (err) {
      if (err instanceof SelectorError) throw new SelectorError(`unable to parse requirement: ${err.message}`);
      throw err;
    }
  }

  private parseKeyAndInferOperator(): { key: string; operator: LabelOperator | undefined } {
    let item = this.consume("values");
    let operator: LabelOperator | undefined;
    if (item.token === "doesNotExist") {
      operator = "!";
      item = this.consume("values");
    }
    if (item.token !== "identifier") throw new SelectorError(`found '${item.literal}', expected: identifier`);
    const keyError = labelKeyError(item.literal, "<nil>");
    if (keyError !== undefined) throw new SelectorError(keyError);
    const next = this.lookahead("values").token;
    if ((next === "end" || next === "comma") && operator !== "!") operator = "exists";
    return { key: item.literal, operator };
  }

  private parseOperator(): LabelOperator {
    const { token, literal } = this.consume("keyAndOperator");
    const operator = TOKEN_OPERATORS[token];
    if (operator === undefined) throw new SelectorError(`found '${literal}', expected: ${BINARY_OPERATORS.join(", ")}`);
    return operator;
  }

  private parseValues(): string[] {
    const open = this.consume("values");
    if (open.token !== "openPar") throw new SelectorError(`found '${open.literal}' expected: '('`);
    const first = this.lookahead("values");
    if (first.token === "closedPar") {
      this.consume("values");
      return [""];
    }
    if (first.token !== "identifier" && first.token !== "comma") throw new SelectorError(`found '${first.literal}', expected: ',', ')' or identifier`);
    const values = this.parseIdentifiersList();
    this.consume("values");
    return values;
  }

  /** parseIdentifiersList reads `a,b,,c` up to (not including) ")"; empty entries are the value "". */
  private parseIdentifiersList(): string[] {
    const values: string[] = [];
    for (;;) {
      const item = this.consume("values");
      if (item.token === "identifier") {
        values.push(item.literal);
        const next = this.lookahead("values");
        if (next.token === "closedPar") return values;
        if (next.token !== "comma") throw new SelectorError(`found '${next.literal}', expected: ',' or ')'`);
      } else if (item.token === "comma") {
        if (values.length === 0) values.push("");
        const next = this.lookahead("values").token;
        if (next === "closedPar") {
          values.push("");
          return values;
        }
        if (next === "comma") values.push("");
      } else {
        throw new SelectorError(`found '${item.literal}', expected: ',', or identifier`);
      }
    }
  }

  private parseExactValue(): string[] {
    const next = this.lookahead("values").token;
    if (next === "end" || next === "comma") return [""];
    const item = this.consume("values");
    if (item.token !== "identifier") throw new SelectorError(`found '${item.literal}', expected: identifier`);
    return [item.literal];
  }
}

const TOKEN_OPERATORS: Partial<Record<LabelToken, LabelOperator>> = {
  in: "in", equals: "=", doubleEquals: "==", greaterThan: "gt", lessThan: "lt", notIn: "notin", notEquals: "!=",
};

function asContext(item: ScannedItem, context: Context): ScannedItem {
  return context === "values" && (item.token === "in" || item.token === "notIn") ? { token: "identifier", literal: item.literal } : item;
}

/** newRequirement validates and builds a requirement (labels.NewRequirement); `null` values are a nil slice. */
export function newRequirement(key: string, operator: LabelOperator, values: readonly string[] | null): LabelRequirement {
  const errs = requirementErrors(key, operator, values);
  if (errs.length > 0) throw new SelectorError(aggregate(errs));
  return { key, operator, values: [...(values ?? [])] };
}

/** parseLabelSelector parses a `labelSelector` query value; "" selects everything. Throws SelectorError. */
export function parseLabelSelector(text: string): LabelSelector {
  if (text.length > MAX_SELECTOR_LENGTH) throw new SelectorError(`label selector is longer than ${MAX_SELECTOR_LENGTH} characters`);
  return new LabelSelector(new Parser(lexLabelSelector(text)).parse());
}
