// Go's `%v` rendering of decoded JSON values, for error messages that print a patch fragment the
// way apimachinery's mergepatch errors do (e.g. `map: map[image:x] does not contain declared merge key: name`).

import { isJsonObject, type JsonValue } from "./json-value.js";

/** MAX_RENDERED is how many characters of a rendered value an error message keeps. */
const MAX_RENDERED = 512;

function render(value: JsonValue | undefined, depth: number): string {
  if (value === undefined || value === null) return "<nil>";
  if (depth > 8) return "...";
  if (Array.isArray(value)) return `[${value.map((item) => render(item, depth + 1)).join(" ")}]`;
  if (isJsonObject(value)) {
    const keys = Object.keys(value).sort();
    return `map[${keys.map((key) => `${key}:${render(value[key], depth + 1)}`).join(" ")}]`;
  }
  return String(value);
}

/** goValue renders a JSON value like Go's fmt `%v` of its decoded form (maps with sorted keys), bounded in length. */
export function goValue(value: JsonValue | undefined): string {
  const text = render(value, 0);
  return text.length > MAX_RENDERED ? `${text.slice(0, MAX_RENDERED)}...` : text;
}
