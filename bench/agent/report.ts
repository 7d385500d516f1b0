// Shared plumbing of the agent benches: Go-style flags with usage on error, latency summaries
// (nearest-rank percentiles, as the other benches report them), bounded polling, /proc figures,
// and the output contract: human lines, then one final `RESULT {json}` line.
import { readFileSync } from "node:fs";
import { FlagError, flagUsage, parseGoFlags, type FlagSpec, type FlagValues } from "../lib/go-flags.js";
import { percentile, round3, sortedCopy } from "../lib/stats.js";

/** parseFlagsOrExit parses argv against specs; on a bad command line prints usage and exits 2. */
export function parseFlagsOrExit<S extends Record<string, FlagSpec>>(bench: string, specs: S, argv: readonly string[] = process.argv.slice(2)): FlagValues<S> {
  try {
    const { values, rest } = parseGoFlags(specs, argv);
    if (rest.length > 0) throw new FlagError(`unexpected argument: ${rest[0]}`);
    return values;
  } catch (err) {
    if (!(err instanceof FlagError)) throw err;
    console.error(`${err.message}\nUsage of ${bench}:\n${flagUsage(specs)}`);
    process.exit(2);
  }
}

/** Summary condenses a sample of milliseconds (null where a figure cannot be computed). */
export interface Summary {
  n: number;
  p50: number | null;
  p90: number | null;
  p99: number | null;
  max: number | null;
  mean: number | null;
}

/** summarize returns count, p50/p90/p99 (nearest rank), max and mean, rounded to 0.001. */
export function summarize(samples: readonly number[]): Summary {
  const s = sortedCopy(samples.filter((x) => Number.isFinite(x)));
  const mean = s.length === 0 ? Number.NaN : s.reduce((a, b) => a + b, 0) / s.length;
  return {
    n: s.length,
    p50: round3(percentile(s, 0.5)),
    p90: round3(percentile(s, 0.9)),
    p99: round3(percentile(s, 0.99)),
    max: round3(s.length === 0 ? Number.NaN : s[s.length - 1]!),
    mean: round3(mean),
  };
}

/** formatSummary renders a summary on one line: "n=60 p50=… p90=… p99=… max=… mean=… ms". */
export function formatSummary(label: string, s: Summary): string {
  const v = (x: number | null): string => (x === null ? "n/a" : x.toFixed(1));
  return `${label}: n=${s.n} p50=${v(s.p50)} p90=${v(s.p90)} p99=${v(s.p99)} max=${v(s.max)} mean=${v(s.mean)} ms`;
}

/** printResult writes the human lines, then `RESULT {json}` as the last line. */
export function printResult(lines: readonly string[], result: Record<string, unknown>): void {
  process.stdout.write([...lines, `RESULT ${JSON.stringify(result)}`].join("\n") + "\n");
}

/** sleep waits ms (bench code may use timers; src/ may not). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

/**
 * waitUntil polls `ready` every `stepMs` until it returns true or `timeoutMs` passes; resolves
 * whether it became true. Bounded in time and therefore in iterations.
 */
export async function waitUntil(ready: () => boolean, timeoutMs: number, stepMs = 10): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!ready()) {
    if (performance.now() >= deadline) return false;
    await sleep(stepMs);
  }
  return true;
}

/** procStatusMb reads a memory field of /proc/self/status (VmRSS, VmHWM, …) in MiB; NaN if absent. */
export function procStatusMb(field: "VmRSS" | "VmHWM"): number {
  const m = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, "m").exec(readFileSync("/proc/self/status", "utf8"));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

/** fraction is k/n rounded to 0.001 (null when n is 0). */
export function fraction(k: number, n: number): number | null {
  return n === 0 ? null : round3(k / n);
}

/** todayUtc is the run date, YYYY-MM-DD. */
export function todayUtc(): string {
  return new Date().toISOString().slice(0, 10);
}
