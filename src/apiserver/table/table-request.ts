// What a request asks of the Table conversion: whether its Accept header negotiates a Table
// (kubectl sends `application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json`)
// and the includeObject query parameter. Negotiation follows the API server's: clauses are
// tried by descending q (specific types before wildcards), the first one the server can
// answer wins, and a clause asking for a conversion the server does not offer is skipped.
import { goQuote } from "../../api/field-errors.js";
import { BadRequestError } from "../bad-request-error.js";
import type { IncludeObjectPolicy, TableVersion } from "./table-types.js";

/** OutputNegotiation is the answer's form: a Table, the plain object, or nothing acceptable (406). */
export type OutputNegotiation = { as: "Table"; version: TableVersion } | { as: "Object" } | { as: "NotAcceptable" };

/** MAX_ACCEPT_LENGTH bounds the Accept header read. */
const MAX_ACCEPT_LENGTH = 4096;

interface AcceptClause {
  type: string;
  subType: string;
  q: number;
  params: Map<string, string>;
}

function parseClause(text: string): AcceptClause | undefined {
  const [range = "", ...paramTexts] = text.split(";").map((p) => p.trim());
  const [type, subType] = range.toLowerCase().split("/");
  if (!type || !subType) return undefined;
  const params = new Map<string, string>();
  let q = 1;
  for (const param of paramTexts) {
    const eq = param.indexOf("=");
    if (eq <= 0) continue;
    const name = param.slice(0, eq).trim().toLowerCase();
    const value = param.slice(eq + 1).trim();
    if (name === "q") q = Number.isFinite(Number(value)) ? Number(value) : 0;
    else params.set(name, value);
  }
  return { type, subType, q, params };
}

/** specificity ranks a clause's media range: concrete type and subtype before wildcards (goautoneg's tie-break after q). */
function specificity(c: AcceptClause): number {
  return (c.type === "*" ? 0 : 2) + (c.subType === "*" ? 0 : 1);
}

const servesJson = (c: AcceptClause): boolean => (c.type === "application" || c.type === "*") && (c.subType === "json" || c.subType === "*");

/** parseTableAccept reads an Accept header; a missing or empty header means the plain object. */
export function parseTableAccept(accept: string | undefined): OutputNegotiation {
  if (accept === undefined || accept.trim() === "") return { as: "Object" };
  const clauses = accept
    .slice(0, MAX_ACCEPT_LENGTH)
    .split(",")
    .map(parseClause)
    .filter((c): c is AcceptClause => c !== undefined && c.q > 0)
    .map((c, index) => ({ c, index }))
    .sort((a, b) => b.c.q - a.c.q || specificity(b.c) - specificity(a.c) || a.index - b.index)
    .map(({ c }) => c);
  for (const clause of clauses) {
    if (!servesJson(clause)) continue;
    const as = clause.params.get("as");
    if (as === undefined) return { as: "Object" };
    const version = clause.params.get("v");
    if (as === "Table" && clause.params.get("g") === "meta.k8s.io" && (version === "v1" || version === "v1beta1")) return { as: "Table", version };
  }
  return { as: "NotAcceptable" };
}

/** parseIncludeObject reads the includeObject query parameter; absent or empty means Metadata. Throws BadRequestError. */
export function parseIncludeObject(value: string | undefined): IncludeObjectPolicy {
  if (value === undefined || value === "") return "Metadata";
  if (value === "None" || value === "Metadata" || value === "Object") return value;
  throw new BadRequestError(`unrecognized includeObject value: ${goQuote(value)}`);
}
