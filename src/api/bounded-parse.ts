// The one way untrusted manifest text becomes JavaScript values: every API body, -f file and
// manifest-directory file goes through parseBounded, which enforces the input limits before and
// while the YAML/JSON parsers run, so no input costs more than a bounded time and memory and none
// overflows the stack:
// - size: the API server's request-size limit (3 MiB; apiserver's MaxRequestBodyBytes default),
//   and 1 MiB for YAML, whose scalars cost the yaml package up to ~40 bytes of memory per byte
//   (3 MiB of folded or quoted YAML scalars took 0.8 s and 130 MB; 1 MiB takes 0.3 s and 40 MB);
// - nesting depth: checked without recursion — for JSON by a linear scan before JSON.parse, for
//   YAML on the parser's own stack while it reads, before any recursive step builds values —
//   and once more on the final values, where YAML aliases can nest deeper than the text;
// - YAML work: a budget of lexical tokens (the yaml package's CST and documents cost about
//   0.2 KB and 1–2 µs per token) and the yaml package's alias-expansion limit (maxAliasCount);
//   duplicate map keys are found here in linear time, because the yaml package's own check
//   (the uniqueKeys option) compares every key with every earlier key of its map, which made a
//   1 MiB map of short keys cost minutes.
import { Composer, isAlias, isMap, isPair, isScalar, isSeq, Lexer, LineCounter, Parser, type Document } from "yaml";
import { scanJson } from "./json-scan.js";

/** InputFormat is how a text is parsed: strict JSON (one value) or a YAML stream (many documents). */
export type InputFormat = "json" | "yaml";

/** ParseLimits bound what one parse may cost. */
export interface ParseLimits {
  /** Largest accepted text, in UTF-8 bytes. */
  maxBytes: number;
  /** Largest accepted YAML text, in UTF-8 bytes (at most maxBytes). */
  maxYamlBytes: number;
  /** Deepest accepted nesting of objects and arrays. */
  maxDepth: number;
  /** Most YAML lexical tokens read before the stream is refused as too complex. */
  maxYamlTokens: number;
  /** Most documents in one YAML stream (each costs far more than its tokens). */
  maxYamlDocuments: number;
  /** The yaml package's maxAliasCount: how far aliases may expand. */
  maxAliasCount: number;
  /** Most objects, arrays and scalars in one parsed value (aliases counted each time they are used). */
  maxValueNodes: number;
  /** Most problems reported for one text; the rest are counted in a last line. */
  maxReportedErrors: number;
}

/** MAX_INPUT_BYTES is the API server's default request-body limit, 3 MiB (apiserver MaxRequestBodyBytes). */
export const MAX_INPUT_BYTES = 3 * 1024 * 1024;

/** MAX_YAML_INPUT_BYTES is the largest YAML text parsed, 1 MiB: larger manifests must be JSON. */
export const MAX_YAML_INPUT_BYTES = 1024 * 1024;

/** DEFAULT_PARSE_LIMITS are the limits every manifest input path uses. */
export const DEFAULT_PARSE_LIMITS: Readonly<ParseLimits> = {
  maxBytes: MAX_INPUT_BYTES,
  maxYamlBytes: MAX_YAML_INPUT_BYTES,
  maxDepth: 100,
  maxYamlTokens: 100_000,
  maxYamlDocuments: 1_000,
  maxAliasCount: 100,
  maxValueNodes: 200_000,
  maxReportedErrors: 10,
};

/** ParseFailureReason says which bound or rule an input broke. */
export type ParseFailureReason = "TooLarge" | "TooDeep" | "TooComplex" | "Syntax";

/** ParsedDocument is the value of one non-empty document and its 1-based position in the stream. */
export interface ParsedDocument {
  value: unknown;
  position: number;
}

/**
 * BoundedParseResult is every non-empty document's value, or why the text was refused with
 * messages of the form `<source>:<line>:<column>: <problem>` (line and column when known).
 */
export type BoundedParseResult =
  | { ok: true; documents: ParsedDocument[] }
  | { ok: false; reason: ParseFailureReason; errors: string[] };

/** formatOfFile picks the parser for a file by its name: `.json` is strict JSON, anything else YAML. */
export function formatOfFile(fileName: string): InputFormat {
  return /\.json$/i.test(fileName) ? "json" : "yaml";
}

/** tooLargeMessage says an input is over the byte limit. */
export function tooLargeMessage(limitBytes: number): string {
  return `too large: limit is ${limitBytes} bytes`;
}

/** NO_OBJECTS_MESSAGE is the error for a manifest without any object (kubectl: "no objects passed to apply"). */
export const NO_OBJECTS_MESSAGE = "no objects passed: the input is empty, only comments, or null";

function failure(reason: ParseFailureReason, errors: string[]): BoundedParseResult {
  return { ok: false, reason, errors };
}

/**
 * parseBounded parses `text` as `format` within `limits`, never throwing. JSON `null` and
 * empty or comment-only YAML documents yield no document; empty YAML documents still count
 * in the positions of later ones.
 */
export function parseBounded(text: string, format: InputFormat, source: string, limits: Readonly<ParseLimits> = DEFAULT_PARSE_LIMITS): BoundedParseResult {
  const limit = format === "yaml" ? Math.min(limits.maxYamlBytes, limits.maxBytes) : limits.maxBytes;
  if (text.length > limit || Buffer.byteLength(text, "utf8") > limit) {
    const hint = format === "yaml" && limit < limits.maxBytes ? ` for YAML (JSON may have up to ${limits.maxBytes} bytes)` : "";
    return failure("TooLarge", [`${source}: ${tooLargeMessage(limit)}${hint}`]);
  }
  const parsed = format === "json" ? parseJson(text, source, limits) : parseYaml(text, source, limits);
  if (!parsed.ok) return parsed;
  for (const doc of parsed.documents) {
    const problem = checkValueShape(doc.value, limits);
    if (problem !== undefined) return failure(problem.reason, [`${source}: ${problem.message}`]);
  }
  return parsed;
}

function parseJson(text: string, source: string, limits: Readonly<ParseLimits>): BoundedParseResult {
  const problem = scanJson(text, { maxDepth: limits.maxDepth, maxValues: limits.maxValueNodes });
  if (problem !== undefined) {
    const reason = problem.kind === "depth" ? "TooDeep" : problem.kind === "values" ? "TooComplex" : "Syntax";
    return failure(reason, [`${source}:${problem.line}:${problem.column}: ${problem.message}`]);
  }
  const value = JSON.parse(text) as unknown;
  return { ok: true, documents: value === null ? [] : [{ value, position: 1 }] };
}

const COLLECTION_TOKENS: ReadonlySet<string> = new Set(["block-map", "block-seq", "flow-collection"]);

function openCollections(parser: Parser): number {
  return parser.stack.filter((token) => COLLECTION_TOKENS.has(token.type)).length;
}

// parseYaml drives the yaml package's Lexer → Parser → Composer pipeline one token at a time,
// so that the token budget and the depth bound stop it before the recursive Composer and toJS
// ever see an oversized or over-deep tree.
function parseYaml(text: string, source: string, limits: Readonly<ParseLimits>): BoundedParseResult {
  const lineCounter = new LineCounter();
  const parser = new Parser(lineCounter.addNewLine);
  lineCounter.addNewLine(0);
  const composer = new Composer({ prettyErrors: false, logLevel: "error", uniqueKeys: false });
  const docs: Document.Parsed[] = [];
  const where = (): string => `${source}:${lineCounter.lineStarts.length}`;
  let tokens = 0;
  for (const lexeme of new Lexer().lex(text)) {
    if (++tokens > limits.maxYamlTokens) {
      return failure("TooComplex", [`${where()}: the YAML stream has more than ${limits.maxYamlTokens} tokens; split it or send JSON`]);
    }
    for (const token of parser.next(lexeme)) docs.push(...composer.next(token));
    if (docs.length > limits.maxYamlDocuments) return tooManyDocuments(where(), limits);
    // The stack holds the open collections besides the document and scalars, so it is counted
    // only when it is long enough to hold too many.
    if (parser.stack.length > limits.maxDepth && openCollections(parser) > limits.maxDepth) {
      return failure("TooDeep", [`${where()}: exceeded max depth of ${limits.maxDepth}`]);
    }
  }
  for (const token of parser.end()) docs.push(...composer.next(token));
  docs.push(...composer.end());
  if (docs.length > limits.maxYamlDocuments) return tooManyDocuments(where(), limits);
  return yamlValues(docs, lineCounter, source, limits);
}

function tooManyDocuments(where: string, limits: Readonly<ParseLimits>): BoundedParseResult {
  return failure("TooComplex", [`${where}: the YAML stream has more than ${limits.maxYamlDocuments} documents`]);
}

function yamlValues(docs: readonly Document.Parsed[], lineCounter: LineCounter, source: string, limits: Readonly<ParseLimits>): BoundedParseResult {
  const errors: string[] = [];
  let total = 0;
  for (const doc of docs) {
    const problems = [...doc.errors.map((e) => ({ offset: e.pos[0], message: e.message })), ...duplicateKeys(doc)].sort((a, b) => a.offset - b.offset);
    for (const { offset, message } of problems) {
      total++;
      if (errors.length >= limits.maxReportedErrors) continue;
      const { line, col } = lineCounter.linePos(offset);
      errors.push(`${source}:${line}:${col}: ${message}`);
    }
  }
  if (total > errors.length) errors.push(`${source}: and ${total - errors.length} more errors`);
  if (errors.length > 0) return failure("Syntax", errors);
  const documents: ParsedDocument[] = [];
  for (const [i, doc] of docs.entries()) {
    try {
      const value: unknown = doc.toJS({ maxAliasCount: limits.maxAliasCount });
      if (value !== null && value !== undefined) documents.push({ value, position: i + 1 });
    } catch (err) {
      return failure("TooComplex", [`${source}: document ${i + 1}: ${err instanceof Error ? err.message : String(err)}`]);
    }
  }
  return { ok: true, documents };
}

/**
 * duplicateKeys finds map keys that repeat an earlier key of the same map, with the yaml
 * package's message and rule (equal scalar values, or the same node), using one Set per map and
 * an explicit stack, so its cost is linear in the document.
 */
function duplicateKeys(doc: Document.Parsed): Array<{ offset: number; message: string }> {
  const found: Array<{ offset: number; message: string }> = [];
  const pending: unknown[] = [doc.contents];
  while (pending.length > 0) {
    const node = pending.pop();
    if (isAlias(node) || (!isMap(node) && !isSeq(node))) continue;
    const seen = new Set<unknown>();
    for (const item of node.items) {
      if (!isPair(item)) {
        pending.push(item);
        continue;
      }
      const identity = isScalar(item.key) ? item.key.value : item.key;
      if (isMap(node) && item.key !== null && seen.has(identity)) {
        const range = (item.key as { range?: [number, number, number] }).range;
        found.push({ offset: range?.[0] ?? 0, message: "Map keys must be unique" });
      }
      seen.add(identity);
      pending.push(item.key, item.value);
    }
  }
  return found;
}

/**
 * checkValueShape walks a parsed value with an explicit stack and refuses it when it nests
 * deeper than maxDepth (a YAML alias to an ancestor makes an endless value, caught here) or has
 * more than maxValueNodes nodes, counting every use of a shared (aliased) value.
 */
export function checkValueShape(value: unknown, limits: Readonly<Pick<ParseLimits, "maxDepth" | "maxValueNodes">>): { reason: ParseFailureReason; message: string } | undefined {
  const pending: Array<{ node: unknown; depth: number }> = [{ node: value, depth: 0 }];
  let counted = 1;
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { node, depth } = next;
    if (node === null || typeof node !== "object") continue;
    if (depth >= limits.maxDepth) return { reason: "TooDeep", message: `exceeded max depth of ${limits.maxDepth}` };
    // Object.keys, not Object.values: the copy of the values costs twice the walk on a map of tens of thousands of keys.
    const record = node as Record<string, unknown>;
    const keys = Array.isArray(node) ? undefined : Object.keys(record);
    const count = keys === undefined ? (node as unknown[]).length : keys.length;
    counted += count;
    if (counted > limits.maxValueNodes) return { reason: "TooComplex", message: `the value has more than ${limits.maxValueNodes} nodes once aliases are expanded` };
    // Scalars are counted above and need no visit of their own.
    for (let i = 0; i < count; i++) {
      const child = keys === undefined ? (node as unknown[])[i] : record[keys[i]!];
      if (child !== null && typeof child === "object") pending.push({ node: child, depth: depth + 1 });
    }
  }
  return undefined;
}
