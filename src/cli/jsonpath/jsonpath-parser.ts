// kubectl's JSONPath template dialect, parsed as client-go's jsonpath parser does
// (k8s.io/client-go/util/jsonpath/parser.go): text outside `{…}` is printed as is; inside an
// action come fields (`.a.b`, `['a.b']`), `[n]`, slices `[s:e:step]`, `[*]`, unions `[a,b]`,
// filters `[?(@.x=="y")]`, recursive descent `..`, quoted strings, numbers, booleans and the
// `range`/`end` keywords. Errors carry the parser's texts (e.g. `unterminated array`).

/** ArrayParam is one of a slice's start, end and step (parser.go ParamsEntry). */
export interface ArrayParam {
  known: boolean;
  value: number;
  /** The end of a single index `[i]`, which is i + 1 once i is made positive. */
  derived: boolean;
}

/** Step is one node of an action, evaluated left to right against the current values. */
export type Step =
  | { kind: "text"; text: string }
  | { kind: "field"; name: string }
  | { kind: "wildcard" }
  | { kind: "recursive" }
  | { kind: "array"; params: [ArrayParam, ArrayParam, ArrayParam] }
  | { kind: "union"; branches: Step[][] }
  | { kind: "filter"; left: Step[]; right: Step[]; operator: string }
  | { kind: "number"; value: number }
  | { kind: "bool"; value: boolean }
  | { kind: "identifier"; name: string };

/** TemplatePart is literal text or one `{…}` action. */
export type TemplatePart = { kind: "text"; text: string } | { kind: "action"; steps: Step[] };

/** MAX_TEMPLATE_LENGTH bounds a template's text. */
export const MAX_TEMPLATE_LENGTH = 64 * 1024;

/** JsonPathSyntaxError is a template the parser refuses; its message is the parser's. */
export class JsonPathSyntaxError extends Error {
  override readonly name = "JsonPathSyntaxError";
}

const SLICE = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/;
const DICT_KEY = /^'([^']*)'$/;
const FILTER = /^([^!<>=]+)([!<>=]+)(.+?)$/s;

/** parseJsonPath parses a template into its parts; it throws JsonPathSyntaxError. */
export function parseJsonPath(text: string): TemplatePart[] {
  if (text.length > MAX_TEMPLATE_LENGTH) throw new JsonPathSyntaxError(`template is longer than ${MAX_TEMPLATE_LENGTH} characters`);
  return new Parser(text).parseTemplate();
}

/** parseAction parses the inside of one action (client-go parseAction: the text wrapped in braces). */
function parseAction(text: string): Step[] {
  const parts = new Parser(`{${text}}`).parseTemplate();
  const first = parts[0];
  return first?.kind === "action" ? first.steps : [];
}

class Parser {
  private pos = 0;

  constructor(private readonly input: string) {}

  parseTemplate(): TemplatePart[] {
    const parts: TemplatePart[] = [];
    while (this.pos < this.input.length) {
      const open = this.input.indexOf("{", this.pos);
      const end = open < 0 ? this.input.length : open;
      if (end > this.pos) parts.push({ kind: "text", text: this.input.slice(this.pos, end) });
      if (open < 0) break;
      this.pos = open + 1;
      parts.push({ kind: "action", steps: this.parseInsideAction() });
    }
    return parts;
  }

  /** parseInsideAction reads steps up to and including the closing brace. */
  private parseInsideAction(): Step[] {
    const steps: Step[] = [];
    for (;;) {
      const rest = this.input.slice(this.pos, this.pos + 3);
      if (rest.startsWith("}")) {
        this.pos++;
        return steps;
      }
      if (rest === "[?(") {
        steps.push(this.parseFilter());
        continue;
      }
      if (rest.startsWith("..")) {
        if (steps.at(-1)?.kind === "recursive") throw new JsonPathSyntaxError("invalid multiple recursive descent");
        this.pos += 2;
        steps.push({ kind: "recursive" });
        if (isAlphaNumeric(this.peek())) steps.push(this.parseField());
        continue;
      }
      const r = this.peek();
      if (r === "" || r === "\r" || r === "\n") throw new JsonPathSyntaxError("unclosed action");
      if (r === " " || r === "@" || r === "$") this.pos++;
      else if (r === "[") steps.push(...this.parseArray());
      else if (r === '"' || r === "'") steps.push(this.parseQuote(r));
      else if (r === ".") {
        this.pos++;
        steps.push(this.parseField());
      } else if (r === "+" || r === "-" || /\d/.test(r)) steps.push(this.parseNumber());
      else if (isAlphaNumeric(r)) steps.push(this.parseIdentifier());
      else throw new JsonPathSyntaxError(`unrecognized character in action: ${goRune(r)}`);
    }
  }

  private peek(): string {
    const code = this.input.codePointAt(this.pos);
    return code === undefined ? "" : String.fromCodePoint(code);
  }

  private parseIdentifier(): Step {
    const start = this.pos;
    while (this.pos < this.input.length && !isTerminator(this.peek())) this.pos += this.peek().length;
    const value = this.input.slice(start, this.pos);
    if (value === "true" || value === "false") return { kind: "bool", value: value === "true" };
    return { kind: "identifier", name: value };
  }

  private parseNumber(): Step {
    const start = this.pos;
    if (this.peek() === "+" || this.peek() === "-") this.pos++;
    while (/[\d.]/.test(this.peek())) this.pos++;
    const value = this.input.slice(start, this.pos);
    if (/^[+-]?\d+$/.test(value)) return { kind: "number", value: Number.parseInt(value, 10) };
    if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(value)) return { kind: "number", value: Number.parseFloat(value) };
    throw new JsonPathSyntaxError(`cannot parse number ${value}`);
  }

  private parseArray(): Step[] {
    const close = this.input.indexOf("]", this.pos);
    const newline = this.input.indexOf("\n", this.pos);
    if (close < 0 || (newline >= 0 && newline < close)) throw new JsonPathSyntaxError("unterminated array");
    let text = this.input.slice(this.pos + 1, close);
    this.pos = close + 1;
    if (text === "*") text = ":";
    const members = text.split(",");
    if (members.length > 1) return [{ kind: "union", branches: members.map((m) => parseAction(`[${m.trim()}]`)) }];
    const key = DICT_KEY.exec(text);
    if (key !== null) return parseAction(`.${key[1] ?? ""}`);
    const slice = SLICE.exec(text);
    if (slice === null) throw new JsonPathSyntaxError(`invalid array index ${text}`);
    const params: [ArrayParam, ArrayParam, ArrayParam] = [
      { known: false, value: 0, derived: false }, { known: false, value: 0, derived: false }, { known: false, value: 0, derived: false },
    ];
    for (let i = 0; i < 3; i++) {
      const group = slice[i + 1] ?? "";
      const number = i > 0 ? group.slice(1) : group;
      if (group !== "" && !(i > 0 && number === "")) {
        if (!/^-?\d+$/.test(number)) throw new JsonPathSyntaxError(`array index ${number} is not a number`);
        params[i] = { known: true, value: Number.parseInt(number, 10), derived: false };
      } else if (group === "" && i === 1) {
        params[1] = { known: true, value: params[0].value + 1, derived: true };
      }
    }
    return [{ kind: "array", params }];
  }

  private parseFilter(): Step {
    this.pos += 3;
    const start = this.pos;
    let begin = false;
    let end = false;
    let pair = "";
    for (;;) {
      const r = this.input[this.pos++];
      if (r === undefined || r === "\n") throw new JsonPathSyntaxError("unterminated filter");
      if (r === '"' || r === "'") {
        if (!begin) {
          begin = true;
          pair = r;
        } else if (this.input[this.pos - 2] !== "\\" && r === pair) end = true;
      } else if (r === ")" && begin === end) break;
    }
    if (this.input[this.pos++] !== "]") throw new JsonPathSyntaxError("unclosed array expect ]");
    const text = this.input.slice(start, this.pos - 2);
    const comparison = FILTER.exec(text);
    if (comparison === null) return { kind: "filter", left: parseAction(text), right: [], operator: "exists" };
    return { kind: "filter", left: parseAction(comparison[1] ?? ""), right: parseAction(comparison[3] ?? ""), operator: comparison[2] ?? "" };
  }

  private parseQuote(quote: string): Step {
    const start = this.pos;
    this.pos++;
    for (;;) {
      const r = this.input[this.pos++];
      if (r === undefined || r === "\n") throw new JsonPathSyntaxError("unterminated quoted string");
      if (r === quote && this.input[this.pos - 2] !== "\\") break;
    }
    const quoted = this.input.slice(start, this.pos);
    const text = unquote(quoted);
    if (text === undefined) throw new JsonPathSyntaxError(`unquote string ${quoted} error invalid syntax`);
    return { kind: "text", text };
  }

  /** parseField reads a field name up to an unescaped terminator; a backslash escapes (e.g. `kubernetes\.io/hostname`). */
  private parseField(): Step {
    let name = "";
    while (this.pos < this.input.length) {
      const r = this.peek();
      if (r === "\\") {
        this.pos++;
        const escaped = this.peek();
        name += escaped;
        this.pos += escaped.length;
        continue;
      }
      if (isTerminator(r)) break;
      name += r;
      this.pos += r.length;
    }
    return name === "*" ? { kind: "wildcard" } : { kind: "field", name };
  }
}

function isTerminator(r: string): boolean {
  return r === "" || " \t\r\n.,[]$@{}".includes(r);
}

function isAlphaNumeric(r: string): boolean {
  return r !== "" && /^[\p{L}\p{Nd}_]$/u.test(r);
}

/** goRune renders a character as Go's %#U does: U+0025 '%'. */
function goRune(r: string): string {
  const code = r.codePointAt(0) ?? 0;
  return `U+${code.toString(16).toUpperCase().padStart(4, "0")} '${r}'`;
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = { a: "\x07", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v", "\\": "\\", "'": "'", '"': '"' };

/** unquote undoes Go's quoting of a double- or single-quoted string (client-go UnquoteExtend); undefined when it is not valid. */
function unquote(quoted: string): string | undefined {
  const quote = quoted[0];
  if (quoted.length < 2 || quoted.at(-1) !== quote) return undefined;
  const body = quoted.slice(1, -1);
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i] ?? "";
    if (c === quote) return undefined;
    if (c !== "\\") {
      out += c;
      continue;
    }
    const e = body[++i] ?? "";
    if (Object.hasOwn(SIMPLE_ESCAPES, e)) {
      if ((e === "'" || e === '"') && e !== quote) return undefined;
      out += SIMPLE_ESCAPES[e];
      continue;
    }
    const digits = e === "x" ? 2 : e === "u" ? 4 : e === "U" ? 8 : 0;
    if (digits > 0) {
      const hex = body.slice(i + 1, i + 1 + digits);
      if (!new RegExp(`^[0-9a-fA-F]{${digits}}$`).test(hex)) return undefined;
      const code = Number.parseInt(hex, 16);
      if (code > 0x10ffff) return undefined;
      out += String.fromCodePoint(code);
      i += digits;
      continue;
    }
    const octal = body.slice(i, i + 3);
    if (!/^[0-7]{3}$/.test(octal)) return undefined;
    out += String.fromCharCode(Number.parseInt(octal, 8));
    i += 2;
  }
  return out;
}
