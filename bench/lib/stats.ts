// Small statistics helpers shared by the driver and the A/B runner. The percentile definition
// is the anchor driver's (nearest rank on a sorted sample), so both sides report alike.

/**
 * percentile returns the nearest-rank p-quantile (0 ≤ p ≤ 1) of an ascending-sorted sample,
 * or NaN for an empty one (anchor driver/main.go pct).
 */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[i]!;
}

/** sortedCopy returns the sample sorted ascending as a Float64Array (numeric order, no string compare). */
export function sortedCopy(values: readonly number[]): Float64Array {
  return Float64Array.from(values).sort();
}

/** round3 rounds to three decimals, as the anchor does; NaN and infinities become null for JSON. */
export function round3(x: number): number | null {
  return Number.isFinite(x) ? Math.round(x * 1000) / 1000 : null;
}

/** median returns the middle value (mean of the two middle ones for even sizes); NaN when empty. */
export function median(values: readonly number[]): number {
  const s = sortedCopy(values.filter((v) => Number.isFinite(v)));
  if (s.length === 0) return Number.NaN;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * ratio is candidate / reference. Two zeros are equal (1); a zero reference with a non-zero
 * candidate is +Infinity; a missing value on either side is NaN.
 */
export function ratio(candidate: number | null | undefined, reference: number | null | undefined): number {
  if (candidate == null || reference == null || Number.isNaN(candidate) || Number.isNaN(reference)) return Number.NaN;
  if (reference === 0) return candidate === 0 ? 1 : Number.POSITIVE_INFINITY;
  return candidate / reference;
}

/** formatRatio renders a ratio for tables: "0.712", "inf" or "n/a". */
export function formatRatio(x: number): string {
  if (Number.isNaN(x)) return "n/a";
  if (!Number.isFinite(x)) return "inf";
  return x.toFixed(3);
}
