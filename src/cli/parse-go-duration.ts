// Go's time.ParseDuration for flags such as `logs --since=5m`: a sequence of decimal numbers with
// units (ns, us, µs, ms, s, m, h), e.g. "1h30m", "1.5s"; an optional sign.

const UNIT_MS: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, "µs": 1e-3, "μs": 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** MAX_DURATION_LENGTH bounds the text parsed. */
const MAX_DURATION_LENGTH = 64;

/** parseGoDuration returns milliseconds, or undefined when the text is not a Go duration. */
export function parseGoDuration(text: string): number | undefined {
  if (text.length === 0 || text.length > MAX_DURATION_LENGTH) return undefined;
  const sign = text.startsWith("-") ? -1 : 1;
  let rest = text.replace(/^[+-]/, "");
  if (rest === "0") return 0;
  if (rest === "") return undefined;
  let total = 0;
  while (rest !== "") {
    const m = /^(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/.exec(rest);
    if (m === null) return undefined;
    total += Number(m[1]) * (UNIT_MS[m[2] ?? ""] ?? Number.NaN);
    rest = rest.slice(m[0].length);
  }
  return Number.isFinite(total) ? sign * total : undefined;
}
