// Label key and value checks with the API server's wording
// (apimachinery pkg/util/validation: IsQualifiedName, IsValidLabelValue). Each returns the
// violated rules; an empty list means valid. Lengths count UTF-8 bytes, as Go's len() does.
import { isDNS1123Subdomain, maxLenError, regexError } from "../../api/field-errors.js";

const QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const QUALIFIED_NAME_RE = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const QUALIFIED_NAME_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME_MAX = 63;
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const LABEL_VALUE_MSG = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MAX = 63;
const EMPTY = "must be non-empty";

function byteLength(value: string): number {
  return Buffer.byteLength(value, "utf8");
}

/** isQualifiedName checks a label key: an optional DNS-1123 subdomain prefix and "/", then a name of at most 63 characters. */
export function isQualifiedName(value: string): string[] {
  const parts = value.split("/");
  if (parts.length > 2) {
    return [`a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  const errs: string[] = [];
  const name = parts[parts.length - 1]!;
  if (parts.length === 2) {
    const prefix = parts[0]!;
    if (prefix === "") errs.push(`prefix part ${EMPTY}`);
    else errs.push(...isDNS1123Subdomain(prefix).map((msg) => `prefix part ${msg}`));
  }
  if (name === "") errs.push(`name part ${EMPTY}`);
  else if (byteLength(name) > QUALIFIED_NAME_MAX) errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX)}`);
  if (!QUALIFIED_NAME_RE.test(name)) errs.push(`name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")}`);
  return errs;
}

/** isValidLabelValue checks a label value: empty, or at most 63 characters of [-A-Za-z0-9_.] starting and ending alphanumeric. */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX) errs.push(maxLenError(LABEL_VALUE_MAX));
  if (!LABEL_VALUE_RE.test(value)) errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"));
  return errs;
}
