// Field selectors as the API server parses and applies them (apimachinery fields/selector.go):
// terms `field=value`, `field==value` or `field!=value` joined by "," (AND). In values, "\",
// "," and "=" are escaped with a backslash; the field name has no escapes and ends at the first
// operator. A missing field compares as "".
import { compareBytes } from "./label-requirement.js";
import { MAX_SELECTOR_LENGTH } from "./label-selector.js";
import { SelectorError } from "./selector-error.js";

/** FieldRequirement is one term: `==` is stored as `=`, as apimachinery's hasTerm does. */
export interface FieldRequirement {
  readonly field: string;
  readonly operator: "=" | "!=";
  readonly value: string;
}

/** FieldSelector is a parsed field selector: every requirement must hold. */
export class FieldSelector {
  constructor(readonly requirements: readonly FieldRequirement[]) {}

  /** empty is true when the selector does not restrict anything. */
  get empty(): boolean {
    return this.requirements.length === 0;
  }

  /** matches tests an object's selectable fields (see selectable-fields.ts). */
  matches(fields: Readonly<Record<string, string>>): boolean {
    return this.requirements.every((r) => {
      const actual = Object.hasOwn(fields, r.field) ? fields[r.field]! : "";
      return r.operator === "=" ? actual === r.value : actual !== r.value;
    });
  }

  /** requiresExactMatch is the value an `=` term demands of a field, for index lookups (e.g. metadata.name). */
  requiresExactMatch(field: string): string | undefined {
    return this.requirements.find((r) => r.field === field && r.operator === "=")?.value;
  }

  /** toString is the canonical form, values escaped again. */
  toString(): string {
    return this.requirements.map((r) => `${r.field}${r.operator}${escapeFieldValue(r.value)}`).join(",");
  }
}

/** escapeFieldValue escapes "\", "," and "=" in a value (fields.EscapeValue). */
export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (ch) => `\\${ch}`);
}

/** unescapeFieldValue undoes escapeFieldValue; a stray "\", "," or "=" is an error (fields.UnescapeValue). */
export function unescapeFieldValue(text: string): string {
  let out = "";
  let inSlash = false;
  for (const ch of text) {
    if (inSlash) {
      if (ch !== "\\" && ch !== "," && ch !== "=") throw new SelectorError(`invalid field selector: invalid escape sequence: \\${ch}`);
      out += ch;
      inSlash = false;
    } else if (ch === "\\") {
      inSlash = true;
    } else if (ch === "," || ch === "=") {
      // Go prints the rune with %v: its code point as a number.
      throw new SelectorError(`invalid field selector: unescaped character in value: ${ch.codePointAt(0)}`);
    } else {
      out += ch;
    }
  }
  if (inSlash) throw new SelectorError("invalid field selector: invalid escape sequence: \\");
  return out;
}

/** splitTerms splits on commas that are not escaped, keeping escapes in the terms. */
function splitTerms(text: string): string[] {
  if (text === "") return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inSlash) inSlash = false;
    else if (ch === "\\") inSlash = true;
    else if (ch === ",") {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms;
}

const TERM_OPERATORS = ["!=", "==", "="] as const;

function splitTerm(term: string): { field: string; operator: (typeof TERM_OPERATORS)[number]; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    const operator = TERM_OPERATORS.find((op) => term.startsWith(op, i));
    if (operator !== undefined) return { field: term.slice(0, i), operator, rhs: term.slice(i + operator.length) };
  }
  return undefined;
}

/** parseFieldSelector parses a `fieldSelector` query value; "" selects everything. Throws SelectorError. */
export function parseFieldSelector(text: string): FieldSelector {
  if (text.length > MAX_SELECTOR_LENGTH) throw new SelectorError(`field selector is longer than ${MAX_SELECTOR_LENGTH} characters`);
  const requirements: FieldRequirement[] = [];
  for (const part of splitTerms(text).sort(compareBytes)) {
    if (part === "") continue;
    const term = splitTerm(part);
    if (term === undefined) throw new SelectorError(`invalid selector: '${text}'; can't understand '${part}'`);
    requirements.push({ field: term.field, operator: term.operator === "!=" ? "!=" : "=", value: unescapeFieldValue(term.rhs) });
  }
  return new FieldSelector(requirements);
}
