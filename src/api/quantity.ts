// Kubernetes resource quantities (k8s.io/apimachinery resource.Quantity): a decimal number with
// a binary-SI (Ki…Ei), decimal-SI (n, u, m, k, M…E) or exponent (e3, E-2) suffix. Only what the
// agent needs: the syntax check with the API server's message and the value in base units.

/** QUANTITY_SYNTAX_ERROR is the API server's message for a quantity it cannot parse. */
export const QUANTITY_SYNTAX_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const SHAPE = /^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(.*)$/;

/**
 * parseQuantity returns a quantity's value in base units rounded up to a whole number, as
 * Quantity.Value() does (so "1.5Ki" is 1536 and "100m" is 1), or undefined when it does not parse.
 */
export function parseQuantity(text: string): number | undefined {
  const value = quantityValue(text);
  return value === undefined ? undefined : Math.ceil(value);
}

/** parseMilliQuantity returns a quantity in thousandths of its base unit rounded up, as Quantity.MilliValue() does ("100m" is 100). */
export function parseMilliQuantity(text: string): number | undefined {
  const value = quantityValue(text);
  return value === undefined ? undefined : Math.ceil(Math.round(value * 1e9) / 1e6);
}

/** quantityValue is the quantity's exact value in base units, or undefined when it does not parse. */
function quantityValue(text: string): number | undefined {
  const m = SHAPE.exec(text);
  if (!m) return undefined;
  const number = Number(m[1]);
  const suffix = m[2]!;
  let value: number;
  if (suffix in BINARY) value = number * BINARY[suffix]!;
  else if (suffix in DECIMAL) value = number * 10 ** DECIMAL[suffix]!;
  else if (/^[eE][-+]?[0-9]+$/.test(suffix)) value = number * 10 ** Number(suffix.slice(1));
  else return undefined;
  return Number.isFinite(value) ? value : undefined;
}
