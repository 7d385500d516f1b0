// kubectl's `-o custom-columns=HEADER:PATH,…` and `-o custom-columns-file=FILE`: one column per
// JSONPath expression, written in kubectl's relaxed form (`.metadata.name`, `metadata.name`,
// `{.metadata.name}`), several results joined by commas, `<none>` when there is none
// (kubectl pkg/printers/customcolumn.go).
import { JsonPath, valueText } from "./jsonpath/jsonpath-eval.js";
import { JsonPathSyntaxError } from "./jsonpath/jsonpath-parser.js";

/** CustomColumn is one column: its header and the template that fills its cells. */
export interface CustomColumn {
  header: string;
  path: JsonPath;
}

/** CustomColumnsError is a column specification kubectl would refuse; the message is kubectl's. */
export class CustomColumnsError extends Error {
  override readonly name = "CustomColumnsError";
}

/** MAX_COLUMNS bounds how many columns a specification may define. */
export const MAX_COLUMNS = 256;

/**
 * relaxedJsonPath turns a column path into a template as kubectl's RelaxedJSONPathExpression
 * does: optional braces, an optional leading dot.
 */
export function relaxedJsonPath(expression: string): string {
  if (expression === "") return "";
  const match = /^\{?(\.?[^{}]*)\}?$/.exec(expression);
  if (match === null) throw new CustomColumnsError("unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'");
  const path = match[1] ?? "";
  return `{${path.startsWith(".") ? path : `.${path}`}}`;
}

function column(header: string, expression: string): CustomColumn {
  const template = relaxedJsonPath(expression);
  try {
    return { header, path: new JsonPath(template) };
  } catch (err) {
    if (err instanceof JsonPathSyntaxError) throw new CustomColumnsError(`error parsing jsonpath ${template}, ${err.message}`);
    throw err;
  }
}

/** parseCustomColumns reads `-o custom-columns=NAME:.metadata.name,STATUS:.status.phase`. */
export function parseCustomColumns(spec: string): CustomColumn[] {
  if (spec === "") throw new CustomColumnsError("custom-columns format specified but no custom columns given");
  const parts = spec.split(",");
  if (parts.length > MAX_COLUMNS) throw new CustomColumnsError(`at most ${MAX_COLUMNS} custom columns may be given`);
  return parts.map((part) => {
    const colon = part.indexOf(":");
    if (colon < 0) throw new CustomColumnsError(`unexpected custom-columns spec: ${part}, expected <header>:<json-path-expr>`);
    return column(part.slice(0, colon), part.slice(colon + 1));
  });
}

/** parseCustomColumnsFile reads a columns file: a line of headers, then a line of paths, separated by whitespace. */
export function parseCustomColumnsFile(text: string): CustomColumn[] {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  const [headerLine, pathLine] = lines;
  if (headerLine === undefined || pathLine === undefined) throw new CustomColumnsError("custom-columns file must have a line of headers and a line of paths");
  const headers = headerLine.trim().split(/\s+/);
  const paths = pathLine.trim().split(/\s+/);
  if (headers.length !== paths.length) throw new CustomColumnsError(`number of headers (${headers.length}) does not match number of paths (${paths.length})`);
  if (headers.length > MAX_COLUMNS) throw new CustomColumnsError(`at most ${MAX_COLUMNS} custom columns may be given`);
  return headers.map((header, i) => column(header, paths[i] ?? ""));
}

/** customColumnCells is one object's row: each column's results joined by commas, `<none>` when empty. */
export function customColumnCells(columns: readonly CustomColumn[], object: unknown): string[] {
  return columns.map((c) => {
    const values = c.path.findResults(object).flat();
    return values.length === 0 ? "<none>" : values.map(valueText).join(",");
  });
}
