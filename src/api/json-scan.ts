// A linear, non-recursive JSON syntax check run before JSON.parse: it bounds the nesting depth
// (so a deeply nested value is a clear error instead of a stack overflow) and reports syntax
// errors with their line and column, worded like Go's encoding/json scanner, which the API
// server's JSON decoder uses (encoding/json scanner.go: "invalid character 'x' looking for
// beginning of value", "unexpected end of JSON input", "exceeded max depth").

/** JsonProblem is the first syntax, depth or size problem found, with its 1-based line and column. */
export interface JsonProblem {
  kind: "syntax" | "depth" | "values";
  message: string;
  line: number;
  column: number;
}

// What the scanner expects next, as encoding/json's scanner step functions do.
type Expect = "value" | "keyOrEnd" | "key" | "colon" | "commaOrObjectEnd" | "valueOrArrayEnd" | "commaOrArrayEnd" | "end";

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const LITERALS: Readonly<Record<string, string>> = { t: "true", f: "false", n: "null" };
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const SIMPLE_ESCAPES = new Set(['"', "\\", "/", "b", "f", "n", "r", "t"]);
const HEX4 = /^[0-9a-fA-F]{4}$/;

const CONTEXT: Readonly<Record<Expect, string>> = {
  value: "looking for beginning of value",
  keyOrEnd: "looking for beginning of object key string",
  key: "looking for beginning of object key string",
  colon: "after object key",
  commaOrObjectEnd: "after object key:value pair",
  valueOrArrayEnd: "looking for beginning of value",
  commaOrArrayEnd: "after array element",
  end: "after top-level value",
};

// quoteChar renders a character as Go's scanner quoteChar does: 'x', '\'' or '"'.
function quoteChar(ch: string): string {
  if (ch === "'") return "'\\''";
  if (ch === '"') return "'\"'";
  const json = JSON.stringify(ch);
  return `'${json.slice(1, -1)}'`;
}

/** JsonScanLimits bound what JSON.parse will be given. */
export interface JsonScanLimits {
  /** Deepest accepted nesting of arrays and objects. */
  maxDepth: number;
  /** Most values (objects, arrays, strings, numbers, literals; keys not counted). */
  maxValues: number;
}

/**
 * scanJson checks that `text` is one strict JSON value within `limits`. It returns undefined
 * when JSON.parse may safely run, or the first problem. It walks the text once with an explicit
 * container stack, so its cost is linear in the text and its memory in the depth.
 */
export function scanJson(text: string, limits: JsonScanLimits): JsonProblem | undefined {
  const containers: Array<"object" | "array"> = [];
  let expect: Expect = "value";
  let line = 1;
  let lineStart = 0;
  let i = 0;
  let values = 0;
  const at = (pos: number, message: string, kind: JsonProblem["kind"] = "syntax"): JsonProblem => ({ kind, message, line, column: pos - lineStart + 1 });
  const afterValue = (): Expect => {
    const top = containers[containers.length - 1];
    return top === undefined ? "end" : top === "object" ? "commaOrObjectEnd" : "commaOrArrayEnd";
  };
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (WHITESPACE.has(code)) {
      if (code === 0x0a) {
        line++;
        lineStart = i + 1;
      }
      i++;
      continue;
    }
    const ch = text[i] ?? "";
    const invalidHere = (): JsonProblem => at(i, `invalid character ${quoteChar(String.fromCodePoint(text.codePointAt(i) ?? 0))} ${CONTEXT[expect]}`);
    if (expect === "colon") {
      if (ch !== ":") return invalidHere();
      expect = "value";
      i++;
      continue;
    }
    if (expect === "commaOrObjectEnd" || expect === "commaOrArrayEnd") {
      const close = expect === "commaOrObjectEnd" ? "}" : "]";
      if (ch === ",") expect = expect === "commaOrObjectEnd" ? "key" : "value";
      else if (ch === close) {
        containers.pop();
        expect = afterValue();
      } else return invalidHere();
      i++;
      continue;
    }
    if (expect === "end") return invalidHere();
    if ((expect === "keyOrEnd" && ch === "}") || (expect === "valueOrArrayEnd" && ch === "]")) {
      containers.pop();
      expect = afterValue();
      i++;
      continue;
    }
    if (expect !== "keyOrEnd" && expect !== "key" && ++values > limits.maxValues) return at(i, `more than ${limits.maxValues} values`, "values");
    if (ch === '"') {
      const problem = scanString(text, i + 1);
      if (typeof problem !== "number") return at(problem.pos, problem.message);
      i = problem;
      expect = expect === "keyOrEnd" || expect === "key" ? "colon" : afterValue();
      continue;
    }
    if (expect === "keyOrEnd" || expect === "key") return invalidHere();
    if (ch === "{" || ch === "[") {
      if (containers.length >= limits.maxDepth) return at(i, `exceeded max depth of ${limits.maxDepth}`, "depth");
      containers.push(ch === "{" ? "object" : "array");
      expect = ch === "{" ? "keyOrEnd" : "valueOrArrayEnd";
      i++;
      continue;
    }
    const literal = LITERALS[ch];
    if (literal !== undefined) {
      for (let k = 1; k < literal.length; k++) {
        if (i + k >= text.length) return at(text.length, "unexpected end of JSON input");
        if (text[i + k] !== literal[k]) return at(i + k, `invalid character ${quoteChar(text[i + k] ?? "")} in literal ${literal} (expecting ${quoteChar(literal[k] ?? "")})`);
      }
      i += literal.length;
      expect = afterValue();
      continue;
    }
    NUMBER.lastIndex = i;
    if (NUMBER.exec(text) === null) return invalidHere();
    i = NUMBER.lastIndex;
    expect = afterValue();
  }
  return expect === "end" ? undefined : at(text.length, "unexpected end of JSON input");
}

// scanString reads a string literal whose opening quote is just before `start`; it returns the
// index after the closing quote, or where and why the literal is malformed.
function scanString(text: string, start: number): number | { pos: number; message: string } {
  let i = start;
  while (i < text.length) {
    const ch = text[i] ?? "";
    if (ch === '"') return i + 1;
    if (ch.charCodeAt(0) < 0x20) return { pos: i, message: `invalid character ${quoteChar(ch)} in string literal` };
    if (ch !== "\\") {
      i++;
      continue;
    }
    const escape = text[i + 1];
    if (escape === undefined) break;
    if (SIMPLE_ESCAPES.has(escape)) i += 2;
    else if (escape === "u") {
      const hex = text.slice(i + 2, i + 6);
      if (!HEX4.test(hex)) {
        const bad = [...hex].findIndex((c) => !/[0-9a-fA-F]/.test(c));
        if (bad < 0) break;
        return { pos: i + 2 + bad, message: `invalid character ${quoteChar(hex[bad] ?? "")} in \\u hexadecimal character escape` };
      }
      i += 6;
    } else return { pos: i + 1, message: `invalid character ${quoteChar(escape)} in string escape code` };
  }
  return { pos: text.length, message: "unexpected end of JSON input" };
}
