// What `get -o` accepts, as kubectl names the formats: wide, json, yaml, name,
// jsonpath=TEMPLATE, jsonpath-file=FILE, custom-columns=SPEC and custom-columns-file=FILE.
// Bad templates are refused with kubectl's texts before any request is sent.
import { readFileBounded } from "../util/read-bounded-file.js";
import { UsageError } from "./args.js";
import { CustomColumnsError, parseCustomColumns, parseCustomColumnsFile, type CustomColumn } from "./custom-columns.js";
import { JsonPath, JsonPathExecutionError } from "./jsonpath/jsonpath-eval.js";
import { JsonPathSyntaxError, MAX_TEMPLATE_LENGTH } from "./jsonpath/jsonpath-parser.js";

/** OutputFormat is a parsed -o value. */
export type OutputFormat =
  | { kind: "table" | "wide" | "json" | "yaml" | "name" }
  | { kind: "jsonpath"; path: JsonPath }
  | { kind: "custom-columns"; columns: CustomColumn[] };

/** TemplateError is a template kubectl would refuse (exit 1, `error: …`). */
export class TemplateError extends Error {
  override readonly name = "TemplateError";
}

const ALLOWED = "custom-columns,custom-columns-file,json,jsonpath,jsonpath-file,name,wide,yaml";

/** parseOutputFormat reads -o; template files are read here (at most MAX_TEMPLATE_LENGTH bytes). */
export async function parseOutputFormat(value: string | undefined): Promise<OutputFormat> {
  if (value === undefined) return { kind: "table" };
  if (value === "wide" || value === "json" || value === "yaml" || value === "name") return { kind: value };
  const eq = value.indexOf("=");
  const name = eq < 0 ? value : value.slice(0, eq);
  const argument = eq < 0 ? "" : value.slice(eq + 1);
  try {
    switch (name) {
      case "jsonpath":
        return { kind: "jsonpath", path: jsonPath(argument) };
      case "jsonpath-file":
        return { kind: "jsonpath", path: jsonPath(await templateFile(argument)) };
      case "custom-columns":
        return { kind: "custom-columns", columns: parseCustomColumns(argument) };
      case "custom-columns-file":
        return { kind: "custom-columns", columns: parseCustomColumnsFile(await templateFile(argument)) };
    }
  } catch (err) {
    if (err instanceof CustomColumnsError) throw new TemplateError(err.message);
    throw err;
  }
  throw new UsageError(`unable to match a printer suitable for the output format "${value}", allowed formats are: ${ALLOWED}`);
}

function jsonPath(template: string): JsonPath {
  if (template === "") throw new TemplateError("template format specified but no template given");
  try {
    return new JsonPath(template);
  } catch (err) {
    if (err instanceof JsonPathSyntaxError) throw new TemplateError(`error parsing jsonpath ${template}, ${err.message}`);
    throw err;
  }
}

async function templateFile(path: string): Promise<string> {
  if (path === "") throw new TemplateError("template format specified but no template file given");
  const read = await readFileBounded(path, MAX_TEMPLATE_LENGTH).catch((err: unknown) => {
    throw new TemplateError(`error reading template ${path}, ${err instanceof Error ? err.message : String(err)}`);
  });
  if (!read.ok) throw new TemplateError(`error reading template ${path}, larger than ${MAX_TEMPLATE_LENGTH} bytes`);
  return read.text;
}

/** executeJsonPath prints a template for one value; a failure is kubectl's `error executing jsonpath …` text. */
export function executeJsonPath(path: JsonPath, value: unknown): string {
  try {
    return path.execute(value);
  } catch (err) {
    if (!(err instanceof JsonPathExecutionError)) throw err;
    throw new TemplateError(
      `error executing jsonpath ${JSON.stringify(path.template)}: Error executing template: ${err.message}. Printing more information for debugging the template:\n` +
        `\ttemplate was:\n\t\t${path.template}`,
    );
  }
}
