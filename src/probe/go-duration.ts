// Go's time.Duration.String() rendering, which leaks into kubelet probe messages
// (kubelet pkg/probe/grpc/grpc.go formats the probe timeout with %v: "1s", "1m30s").

const NS_PER_US = 1_000n;
const NS_PER_MS = 1_000_000n;
const NS_PER_S = 1_000_000_000n;

/**
 * formatGoDuration renders a duration given in milliseconds the way Go's
 * time.Duration.String() does: "0s", "500ms", "1.5s", "1m0s", "1m30s", "2h0m0s",
 * "250µs", "42ns". The value is rounded to whole nanoseconds first, as a Go duration is an
 * integer count of nanoseconds. Non-finite input renders as "0s".
 */
export function formatGoDuration(ms: number): string {
  if (!Number.isFinite(ms)) return "0s";
  const ns = BigInt(Math.round(ms * 1e6));
  return formatGoNanoseconds(ns);
}

/** formatGoNanoseconds renders an integer number of nanoseconds as Go's Duration.String() does. */
export function formatGoNanoseconds(ns: bigint): string {
  const negative = ns < 0n;
  const u = negative ? -ns : ns;
  const sign = negative ? "-" : "";
  if (u === 0n) return "0s";
  if (u < NS_PER_S) {
    // Go: below one second the largest unit that keeps a non-zero integer part is used.
    if (u < NS_PER_US) return `${sign}${u}ns`;
    if (u < NS_PER_MS) return `${sign}${withFraction(u, NS_PER_US)}µs`;
    return `${sign}${withFraction(u, NS_PER_MS)}ms`;
  }
  // Go: from one second up, hours and minutes are integers and seconds carry the fraction;
  // once a larger unit appears, every smaller one is printed, even when zero ("1h0m0s").
  const seconds = withFraction(u % (60n * NS_PER_S), NS_PER_S);
  const totalMinutes = u / (60n * NS_PER_S);
  if (totalMinutes === 0n) return `${sign}${seconds}s`;
  const minutes = totalMinutes % 60n;
  const hours = totalMinutes / 60n;
  if (hours === 0n) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${hours}h${minutes}m${seconds}s`;
}

/** withFraction divides value by unit and prints the remainder as decimals without trailing zeros. */
function withFraction(value: bigint, unit: bigint): string {
  const whole = value / unit;
  const rest = value % unit;
  if (rest === 0n) return whole.toString();
  const digits = unit.toString().length - 1;
  const fraction = rest.toString().padStart(digits, "0").replace(/0+$/, "");
  return `${whole}.${fraction}`;
}
