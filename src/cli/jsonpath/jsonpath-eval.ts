// Evaluating a parsed JSONPath template against JSON data as client-go's JSONPath does with
// missing keys allowed, which is how kubectl runs it (k8s.io/client-go/util/jsonpath/jsonpath.go):
// each action prints its results separated by spaces, `range … end` repeats its body for every
// result, objects and arrays print as compact JSON with sorted keys. Work is bounded: at most
// MAX_VALUES values are produced, ranges nest at most MAX_RANGE_DEPTH deep, output is capped.
import { parseJsonPath, type Step, type TemplatePart } from "./jsonpath-parser.js";

/** MAX_VALUES bounds the values one execution may produce (field lookups, elements, recursion). */
export const MAX_VALUES = 1_000_000;
/** MAX_RANGE_DEPTH bounds how deeply `range` blocks may nest. */
export const MAX_RANGE_DEPTH = 32;
/** MAX_OUTPUT_LENGTH bounds the text one execution may print. */
export const MAX_OUTPUT_LENGTH = 64 * 1024 * 1024;
/** Objects nested deeper than this are not descended by `..`. */
const MAX_NESTING = 1000;

/** JsonPathExecutionError is a template that failed on the data; its message is client-go's. */
export class JsonPathExecutionError extends Error {
  override readonly name = "JsonPathExecutionError";
}

/** Block is a template with its `range … end` pairs nested. */
type Block = ({ kind: "text"; text: string } | { kind: "action"; steps: Step[] } | { kind: "range"; steps: Step[]; body: Block })[];

/** JsonPath is a parsed template, ready to run on any number of objects. */
export class JsonPath {
  private readonly parts: TemplatePart[];

  /** The constructor parses the template; it throws JsonPathSyntaxError. */
  constructor(readonly template: string) {
    this.parts = parseJsonPath(template);
  }

  /** findResults is one list of values per printed part (client-go FindResults), in order. */
  findResults(data: unknown): unknown[][] {
    const run = new Execution();
    const results: unknown[][] = [];
    run.block(nest(this.parts), data, results, 0);
    return results;
  }

  /** execute prints the template for data: each part's values separated by spaces. */
  execute(data: unknown): string {
    let out = "";
    for (const values of this.findResults(data)) {
      out += values.map(valueText).join(" ");
      if (out.length > MAX_OUTPUT_LENGTH) throw new JsonPathExecutionError(`output is larger than ${MAX_OUTPUT_LENGTH} bytes`);
    }
    return out;
  }
}

/** nest pairs each `range` action with its `end` (an unmatched `end` fails when it is reached). */
function nest(parts: readonly TemplatePart[]): Block {
  const root: Block = [];
  const open: Block[] = [root];
  for (const part of parts) {
    const current = open.at(-1) ?? root;
    const first = part.kind === "action" ? part.steps[0] : undefined;
    if (part.kind === "action" && first?.kind === "identifier" && first.name === "range") {
      const body: Block = [];
      current.push({ kind: "range", steps: part.steps.slice(1), body });
      open.push(body);
    } else if (part.kind === "action" && first?.kind === "identifier" && first.name === "end" && part.steps.length === 1) {
      if (open.length === 1) current.push({ kind: "action", steps: part.steps });
      else open.pop();
    } else current.push(part);
  }
  return root;
}

/** valueText prints one value as client-go does with JSON output: strings bare, others as JSON. */
export function valueText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "<nil>";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return goJson(value);
}

/** goJson is Go's json.Marshal of decoded JSON: compact, map keys sorted, <, > and & escaped. */
function goJson(value: unknown): string {
  const sorted = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sorted);
    if (v === null || typeof v !== "object") return v;
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted((v as Record<string, unknown>)[k])]));
  };
  return JSON.stringify(sorted(value)).replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
}

class Execution {
  private produced = 0;

  block(block: Block, data: unknown, results: unknown[][], depth: number): void {
    for (const part of block) {
      if (part.kind === "text") results.push([part.text]);
      else if (part.kind === "action") results.push(this.steps([data], part.steps));
      else {
        if (depth >= MAX_RANGE_DEPTH) throw new JsonPathExecutionError(`range blocks are nested deeper than ${MAX_RANGE_DEPTH}`);
        for (const item of this.steps([data], part.steps)) this.block(part.body, item, results, depth + 1);
      }
    }
  }

  steps(input: unknown[], steps: readonly Step[]): unknown[] {
    let values = input;
    for (const step of steps) values = this.count(this.step(values, step));
    return values;
  }

  private count(values: unknown[]): unknown[] {
    this.produced += values.length;
    if (this.produced > MAX_VALUES) throw new JsonPathExecutionError(`the template produced more than ${MAX_VALUES} values`);
    return values;
  }

  private step(input: unknown[], step: Step): unknown[] {
    switch (step.kind) {
      case "text":
        return [step.text];
      case "number":
      case "bool":
        return input.map(() => step.value);
      case "identifier":
        if (step.name === "end") throw new JsonPathExecutionError("not in range, nothing to end");
        throw new JsonPathExecutionError(`unrecognized identifier ${step.name}`);
      case "field":
        return input.flatMap((v) => (isObject(v) && Object.hasOwn(v, step.name) ? [v[step.name]] : []));
      case "wildcard":
        return input.flatMap(children);
      case "recursive":
        return input.flatMap((v) => this.descend(v, 0));
      case "union":
        return step.branches.flatMap((branch) => this.steps(input, branch));
      case "array":
        return input.flatMap((v) => (v === null || v === undefined ? [] : slice(v, step.params)));
      case "filter":
        return input.flatMap((v) => this.filter(v, step));
    }
  }

  /** descend is `..`: a value that has children, then the same for each child, depth first. */
  private descend(value: unknown, depth: number): unknown[] {
    if (depth > MAX_NESTING) throw new JsonPathExecutionError(`the object is nested deeper than ${MAX_NESTING} levels`);
    if (typeof value === "string") return value === "" ? [] : [value];
    const kids = children(value);
    if (kids.length === 0) return [];
    return this.count([value, ...kids.flatMap((kid) => this.descend(kid, depth + 1))]);
  }

  private filter(value: unknown, step: Extract<Step, { kind: "filter" }>): unknown[] {
    if (!Array.isArray(value)) throw new JsonPathExecutionError(`${valueText(value)} is not array or slice and cannot be filtered`);
    return value.filter((element) => {
      const lefts = this.steps([element], step.left);
      if (step.operator === "exists") return lefts.length > 0;
      if (lefts.length === 0) return false;
      const rights = this.steps([element], step.right);
      if (lefts.length !== 1 || rights.length !== 1) throw new JsonPathExecutionError("can only compare one element at a time");
      return compare(lefts[0], rights[0], step.operator);
    });
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function children(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (isObject(value)) return Object.values(value);
  return [];
}

/** slice applies `[i]`, `[s:e]`, `[s:e:step]` (negative indexes count from the end), with client-go's bounds errors. */
function slice(value: unknown, params: readonly [{ known: boolean; value: number; derived: boolean }, { known: boolean; value: number; derived: boolean }, { known: boolean; value: number }]): unknown[] {
  if (!Array.isArray(value)) throw new JsonPathExecutionError(`${goTypeName(value)} is not array or slice`);
  const length = value.length;
  let start = params[0].known ? params[0].value : 0;
  if (start < 0) start += length;
  let end = params[1].known ? params[1].value : length;
  if (params[1].derived) end = start + 1;
  else if (end < 0) end += length;
  if (start !== end) {
    if (start >= length || start < 0) throw new JsonPathExecutionError(`array index out of bounds: index ${start}, length ${length}`);
    if (end > length) throw new JsonPathExecutionError(`array index out of bounds: index ${end - 1}, length ${length}`);
  }
  const step = params[2].known ? params[2].value : 1;
  if (step <= 0) throw new JsonPathExecutionError(`step must be greater than 0, got ${step}`);
  const out: unknown[] = [];
  for (let i = start; i < end; i += step) out.push(value[i]);
  return out;
}

function goTypeName(value: unknown): string {
  if (isObject(value)) return "map[string]interface {}";
  if (typeof value === "string") return "string";
  if (typeof value === "number") return Number.isInteger(value) ? "int64" : "float64";
  if (typeof value === "boolean") return "bool";
  return "interface {}";
}

/** compare is Go template's eq/ne/lt/le/gt/ge on basic values (numbers with numbers, strings with strings, booleans for == and !=). */
function compare(left: unknown, right: unknown, operator: string): boolean {
  const kinds = [typeof left, typeof right];
  const basic = (k: string): boolean => k === "number" || k === "string" || k === "boolean";
  if (!basic(kinds[0] ?? "") || !basic(kinds[1] ?? "")) throw new JsonPathExecutionError("invalid type for comparison");
  if (kinds[0] !== kinds[1]) throw new JsonPathExecutionError("incompatible types for comparison");
  switch (operator) {
    case "==":
      return left === right;
    case "!=":
      return left !== right;
  }
  if (typeof left === "boolean") throw new JsonPathExecutionError("invalid type for comparison");
  const l = left as number | string;
  const r = right as number | string;
  switch (operator) {
    case "<":
      return l < r;
    case ">":
      return l > r;
    case "<=":
      return l <= r;
    case ">=":
      return l >= r;
    default:
      throw new JsonPathExecutionError(`unrecognized filter operator ${operator}`);
  }
}
