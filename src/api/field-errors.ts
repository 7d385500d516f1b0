// Field-level validation errors shaped like apimachinery's field.Error, rendered with the
// API server's exact text (staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors.go),
// plus the field-path helpers that build "spec.containers[0].livenessProbe.httpGet.port".

/** FieldErrorType is the kind of a field error (apimachinery field.ErrorType). */
export type FieldErrorType =
  | "Invalid"
  | "Required"
  | "Forbidden"
  | "NotSupported"
  | "Duplicate"
  | "NotFound"
  | "TooLong"
  | "TooMany"
  | "TypeInvalid";

/** FieldError is one validation problem at one field path. */
export interface FieldError {
  type: FieldErrorType;
  /** API-server path syntax, e.g. `spec.containers[0].livenessProbe.periodSeconds`; "" is the root. */
  field: string;
  /** The offending value; rendered for Invalid, NotSupported, Duplicate, TooMany and TypeInvalid only. */
  badValue?: unknown;
  detail?: string;
}

// apimachinery ErrorType.String(): TypeInvalid renders as "Invalid value" too.
const TYPE_TEXT: Record<FieldErrorType, string> = {
  Invalid: "Invalid value",
  Required: "Required value",
  Forbidden: "Forbidden",
  NotSupported: "Unsupported value",
  Duplicate: "Duplicate value",
  NotFound: "Not found",
  TooLong: "Too long",
  TooMany: "Too many",
  TypeInvalid: "Invalid value",
};

// apimachinery ErrorBody: these types never print the bad value.
const VALUELESS: ReadonlySet<FieldErrorType> = new Set<FieldErrorType>(["Required", "Forbidden", "TooLong"]);

/** childPath appends a field name to a path ("" is the root, so the child has no leading dot). */
export function childPath(path: string, name: string): string {
  return path === "" ? name : `${path}.${name}`;
}

/** indexPath appends a list index to a path: `spec.containers` → `spec.containers[0]`. */
export function indexPath(path: string, index: number): string {
  return `${path}[${index}]`;
}

/** invalid reports a malformed value (field.Invalid). */
export function invalid(field: string, badValue: unknown, detail: string): FieldError {
  return { type: "Invalid", field, badValue, detail };
}

/** required reports a missing value (field.Required); the detail is optional. */
export function required(field: string, detail = ""): FieldError {
  return detail === "" ? { type: "Required", field } : { type: "Required", field, detail };
}

/** forbidden reports a value that is not allowed in this context (field.Forbidden). */
export function forbidden(field: string, detail: string): FieldError {
  return { type: "Forbidden", field, detail };
}

/** notSupported reports a value outside an enumeration; the detail lists the quoted valid values. */
export function notSupported(field: string, badValue: unknown, validValues: readonly string[]): FieldError {
  const detail = validValues.length > 0 ? `supported values: ${validValues.map(goQuote).join(", ")}` : "";
  return detail === "" ? { type: "NotSupported", field, badValue } : { type: "NotSupported", field, badValue, detail };
}

/** duplicate reports a value that must be unique (field.Duplicate). */
export function duplicate(field: string, badValue: unknown): FieldError {
  return { type: "Duplicate", field, badValue };
}

/** notFound reports a reference to something that does not exist (field.NotFound). */
export function notFound(field: string, badValue: unknown): FieldError {
  return { type: "NotFound", field, badValue };
}

/** tooLong reports an over-long value without echoing it (field.TooLong). */
export function tooLong(field: string, maxLength: number): FieldError {
  return { type: "TooLong", field, detail: `may not be more than ${maxLength} bytes` };
}

/**
 * tooMany reports a list with more items than allowed (field.TooMany): the count is the bad value,
 * "must have at most N items" ("item" for 1) the detail. The API server uses it for list sizes
 * where it used TooLong, which names bytes, before (restartPolicyRules since kubernetes#137136).
 */
export function tooMany(field: string, actual: number, max: number): FieldError {
  return { type: "TooMany", field, badValue: actual, detail: `must have at most ${max} ${max === 1 ? "item" : "items"}` };
}

/** typeInvalid reports a value of the wrong JSON type (field.TypeInvalid). */
export function typeInvalid(field: string, badValue: unknown, detail: string): FieldError {
  return { type: "TypeInvalid", field, badValue, detail };
}

/**
 * goQuote quotes a string the way Go's %q (strconv.Quote) does: printable characters stay,
 * `"` and `\` are escaped, control characters use \a \b \f \n \r \t \v or \xNN, other
 * non-printable code points use \uNNNN / \UNNNNNNNN. A lone UTF-16 surrogate is shown as U+FFFD,
 * which is what it becomes once converted to UTF-8.
 */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    let cp = ch.codePointAt(0) ?? 0xfffd;
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
    out += quoteRune(cp);
  }
  return `${out}"`;
}

const SHORT_ESCAPES: Readonly<Record<number, string>> = {
  0x07: "\\a", 0x08: "\\b", 0x0c: "\\f", 0x0a: "\\n", 0x0d: "\\r", 0x09: "\\t", 0x0b: "\\v",
  0x22: '\\"', 0x5c: "\\\\",
};

// Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

function quoteRune(cp: number): string {
  const short = SHORT_ESCAPES[cp];
  if (short !== undefined) return short;
  const ch = String.fromCodePoint(cp);
  if (PRINTABLE.test(ch)) return ch;
  const hex = cp.toString(16);
  if (cp < 0x80) return `\\x${hex.padStart(2, "0")}`;
  if (cp < 0x10000) return `\\u${hex.padStart(4, "0")}`;
  return `\\U${hex.padStart(8, "0")}`;
}

/**
 * renderValue prints a bad value as apimachinery does: a missing value as `"null"` (quoted, as in
 * field/errors_test.go TestErrorBody), numbers and
 * booleans bare, strings with Go %q quoting. Objects and arrays (Go would print a %#v struct
 * dump) are shown as JSON.
 */
export function renderValue(value: unknown): string {
  if (value === null || value === undefined) return '"null"';
  if (typeof value === "string") return goQuote(value);
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  return JSON.stringify(value) ?? String(value);
}

/** formatFieldErrorBody renders an error without its field path (apimachinery ErrorBody). */
export function formatFieldErrorBody(error: FieldError): string {
  let body = TYPE_TEXT[error.type];
  if (!VALUELESS.has(error.type)) body += `: ${renderValue(error.badValue)}`;
  if (error.detail !== undefined && error.detail !== "") body += `: ${error.detail}`;
  return body;
}

/** formatFieldError renders `<field>: <body>`, or only the body for an error at the root path. */
export function formatFieldError(error: FieldError): string {
  const body = formatFieldErrorBody(error);
  return error.field === "" ? body : `${error.field}: ${body}`;
}

/** formatFieldErrors renders each error once, in order, dropping exact repeats (ErrorList.ToAggregate). */
export function formatFieldErrors(errors: readonly FieldError[]): string[] {
  return [...new Set(errors.map(formatFieldError))];
}

/**
 * aggregateFieldErrors joins errors like apimachinery's Aggregate: a single message stands
 * alone, several are wrapped as `[a, b]`, none gives "".
 */
export function aggregateFieldErrors(errors: readonly FieldError[]): string {
  const messages = formatFieldErrors(errors);
  if (messages.length <= 1) return messages[0] ?? "";
  return `[${messages.join(", ")}]`;
}

/** formatInvalidObject renders the API server's rejection: `Pod "web" is invalid: <aggregate>`. */
export function formatInvalidObject(kind: string, name: string, errors: readonly FieldError[]): string {
  return `${kind} ${goQuote(name)} is invalid: ${aggregateFieldErrors(errors)}`;
}

// ---------------------------------------------------------------------------------------------
// Detail-message checks (apimachinery pkg/util/validation): each returns the list of violated
// rules as the API server words them; an empty list means valid. Lengths are in UTF-8 bytes,
// as Go's len() counts them.

const DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_LABEL_RE = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const HTTP_HEADER_NAME_FMT = "[-A-Za-z0-9]+";

function byteLength(value: string): number {
  return Buffer.byteLength(value, "utf8");
}

/** maxLenError is the "too long" detail (util/validation MaxLenError, 1.37 wording). */
export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

/** regexError is the "does not match" detail with examples (util/validation RegexError). */
export function regexError(message: string, format: string, ...examples: string[]): string {
  if (examples.length === 0) return `${message} (regex used for validation is '${format}')`;
  const shown = examples.map((e) => `'${e}', `).join(" or ");
  return `${message} (e.g. ${shown}regex used for validation is '${format}')`;
}

/** inclusiveRangeError is the "out of range" detail (util/validation InclusiveRangeError). */
export function inclusiveRangeError(lo: number, hi: number): string {
  return `must be between ${lo} and ${hi}, inclusive`;
}

/** isDNS1123Label checks a DNS-1123 label such as a container name or namespace. */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!DNS1123_LABEL_RE.test(value)) {
    if (DNS1123_SUBDOMAIN_RE.test(value)) errs.push("must not contain dots");
    else {
      const msg = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
      errs.push(regexError(msg, DNS1123_LABEL_FMT, "my-name", "123-abc"));
    }
  }
  return errs;
}

/** isDNS1123Subdomain checks a DNS-1123 subdomain such as a pod name. */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(maxLenError(253));
  if (!DNS1123_SUBDOMAIN_RE.test(value)) {
    const msg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
    errs.push(regexError(msg, DNS1123_SUBDOMAIN_FMT, "example.com"));
  }
  return errs;
}

/** isValidPortNum checks a port number is 1..65535. */
export function isValidPortNum(port: number): string[] {
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? [] : [inclusiveRangeError(1, 65535)];
}

/**
 * isValidPortName checks an IANA service name (§A.3.6); each violated rule adds its own
 * message, in the API server's order. A numeric string such as "8080" has no letter and fails.
 */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (byteLength(port) > 15) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(port)) errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!/[a-z]/.test(port)) errs.push("must contain at least one letter (a-z)");
  if (port.includes("--")) errs.push("must not contain consecutive hyphens");
  if (port.startsWith("-") || port.endsWith("-")) errs.push("must not begin or end with a hyphen");
  return errs;
}

/** isHTTPHeaderName checks a custom probe header name against `[-A-Za-z0-9]+` (§A.3.3). */
export function isHTTPHeaderName(value: string): string[] {
  if (/^[-A-Za-z0-9]+$/.test(value)) return [];
  return [regexError("a valid HTTP header must consist of alphanumeric characters or '-'", HTTP_HEADER_NAME_FMT, "X-Header-Name")];
}

/** isRelaxedEnvVarName checks an env var name: printable ASCII other than '=' (RelaxedEnvironmentVariableValidation). */
export function isRelaxedEnvVarName(value: string): string[] {
  const errs: string[] = [];
  if (value === "") errs.push("environment variable name must be non-empty");
  if (/[^\x20-\x7e]|=/.test(value)) errs.push("a valid environment variable name must consist only of printable ASCII characters other than '='");
  return errs;
}
