// The key and size rules ConfigMaps and Secrets share (apimachinery IsConfigMapKey,
// core/v1 MaxSecretSize).
import { maxLenError, regexError, type FieldError } from "../../api/field-errors.js";

/** MAX_CONFIG_DATA_BYTES is corev1.MaxSecretSize: 1 MiB of data per ConfigMap or Secret. */
export const MAX_CONFIG_DATA_BYTES = 1024 * 1024;

const CONFIG_KEY_FMT = "[-._a-zA-Z0-9]+";
const CONFIG_KEY_RE = /^[-._a-zA-Z0-9]+$/;

/** isConfigMapKey returns why a key is not a valid ConfigMap/Secret key (empty: valid). */
export function isConfigMapKey(key: string): string[] {
  const errs: string[] = [];
  if (Buffer.byteLength(key, "utf8") > 253) errs.push(maxLenError(253));
  if (!CONFIG_KEY_RE.test(key)) {
    errs.push(regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", CONFIG_KEY_FMT, "key.name", "KEY_NAME", "key-name"));
  }
  if (key === ".") errs.push("must not be '.'");
  else if (key === "..") errs.push("must not be '..'");
  else if (key.startsWith("..")) errs.push("must not start with '..'");
  return errs;
}

/** tooLargeData is the error for data past MAX_CONFIG_DATA_BYTES at `field`. */
export function tooLargeData(field: string): FieldError {
  return { type: "TooLong", field, detail: `must have at most ${MAX_CONFIG_DATA_BYTES} bytes` };
}
