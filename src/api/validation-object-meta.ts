// The ObjectMeta rules for labels and annotations, with the API server's texts:
// apimachinery pkg/apis/meta/v1/validation ValidateLabels / ValidateLabelName,
// pkg/api/validation/objectmeta.go ValidateAnnotations / ValidateAnnotationsSize, and the
// checks of pkg/util/validation (IsQualifiedName, IsValidLabelValue). Lengths are UTF-8 bytes.
import { childPath, invalid, isDNS1123Subdomain, maxLenError, regexError, tooLong, type FieldError } from "./field-errors.js";
import type { ObjectMeta } from "./types.js";

/** TOTAL_ANNOTATION_SIZE_LIMIT_BYTES is the API server's cap on all annotation keys plus values (256 KiB). */
export const TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;

const QUALIFIED_NAME_MAX_LENGTH = 63;
const LABEL_VALUE_MAX_LENGTH = 63;
const QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const QUALIFIED_NAME_RE = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const QUALIFIED_NAME_ERR = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const LABEL_VALUE_ERR = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const EMPTY = "must be non-empty";

function byteLength(value: string): number {
  return Buffer.byteLength(value, "utf8");
}

/**
 * isQualifiedName checks a label or annotation key: a name of at most 63 characters, with an
 * optional DNS-1123 subdomain prefix and '/' (util/validation IsQualifiedName).
 */
export function isQualifiedName(value: string): string[] {
  const parts = value.split("/");
  const errs: string[] = [];
  if (parts.length > 2) {
    const shape = regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc");
    return [`a qualified name ${shape} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  const name = parts[parts.length - 1] ?? "";
  if (parts.length === 2) {
    const prefix = parts[0] ?? "";
    if (prefix === "") errs.push(`prefix part ${EMPTY}`);
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  }
  if (name === "") errs.push(`name part ${EMPTY}`);
  else if (byteLength(name) > QUALIFIED_NAME_MAX_LENGTH) errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX_LENGTH)}`);
  if (!QUALIFIED_NAME_RE.test(name)) errs.push(`name part ${regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")}`);
  return errs;
}

/** isValidLabelValue checks a label value: empty, or at most 63 qualified-name characters (IsValidLabelValue). */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX_LENGTH) errs.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!LABEL_VALUE_RE.test(value)) errs.push(regexError(LABEL_VALUE_ERR, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"));
  return errs;
}

/** validateLabels reports each bad key and value at the labels path itself (ValidateLabels). */
export function validateLabels(labels: Readonly<Record<string, string>>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [key, value] of Object.entries(labels)) {
    errs.push(...isQualifiedName(key).map((m) => invalid(path, key, m)));
    errs.push(...isValidLabelValue(value).map((m) => invalid(path, value, m)));
  }
  return errs;
}

/**
 * validateAnnotations checks each key as a qualified name in any letter case, then the total
 * size of keys and values against 256 KiB (ValidateAnnotations, ValidateAnnotationsSize).
 */
export function validateAnnotations(annotations: Readonly<Record<string, string>>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  for (const [key, value] of Object.entries(annotations)) {
    errs.push(...isQualifiedName(key.toLowerCase()).map((m) => invalid(path, key, m)));
    total += byteLength(key) + byteLength(value);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) errs.push(tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT_BYTES));
  return errs;
}

/** validateObjectMetaLabelsAndAnnotations applies both rules to `metadata` under `path` ("metadata"). */
export function validateObjectMetaLabelsAndAnnotations(metadata: Readonly<ObjectMeta>, path: string): FieldError[] {
  return [
    ...validateLabels(metadata.labels ?? {}, childPath(path, "labels")),
    ...validateAnnotations(metadata.annotations ?? {}, childPath(path, "annotations")),
  ];
}
