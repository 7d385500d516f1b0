// Command-line parsing with Go's `flag` package syntax, so the probelet driver accepts exactly
// the anchor driver's command lines: single or double dash, `-name value` or `-name=value`,
// parsing stops at `--` or at the first non-flag argument; durations like 1s, 500ms, 1m30s.

/** FlagKind is how a flag's value is parsed. */
export type FlagKind = "string" | "int" | "duration";

/** FlagSpec declares one flag: its kind, default and help text. */
export interface FlagSpec {
  kind: FlagKind;
  /** The default, as it would be written on the command line (e.g. "1s", "1000"). */
  default: string;
  help: string;
}

/** FlagValues maps each declared flag to its parsed value (numbers for int, milliseconds for durations). */
export type FlagValues<S extends Record<string, FlagSpec>> = { [K in keyof S]: S[K]["kind"] extends "string" ? string : number };

/** FlagError reports a malformed command line; the message follows Go's flag package wording. */
export class FlagError extends Error {
  override readonly name = "FlagError";
}

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, "µs": 1e-3, "μs": 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** parseGoDuration parses a Go duration string ("1s", "500ms", "1m30s", "-2h", "0") into milliseconds. */
export function parseGoDuration(text: string): number {
  let rest = text;
  let sign = 1;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    sign = rest.startsWith("-") ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === "0") return 0;
  if (rest === "") throw new FlagError(`time: invalid duration "${text}"`);
  let total = 0;
  const part = /^(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/;
  while (rest !== "") {
    const m = part.exec(rest);
    if (!m) throw new FlagError(`time: invalid duration "${text}"`);
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    rest = rest.slice(m[0].length);
  }
  return sign * total;
}

function parseValue(name: string, spec: FlagSpec, raw: string): string | number {
  switch (spec.kind) {
    case "string":
      return raw;
    case "int": {
      if (!/^[+-]?\d+$/.test(raw)) throw new FlagError(`invalid value "${raw}" for flag -${name}: parse error`);
      return Number(raw);
    }
    case "duration":
      try {
        return parseGoDuration(raw);
      } catch {
        throw new FlagError(`invalid value "${raw}" for flag -${name}: parse error`);
      }
  }
}

/** flagUsage renders the flag list like Go's flag.PrintDefaults. */
export function flagUsage(specs: Record<string, FlagSpec>): string {
  return Object.entries(specs)
    .map(([name, s]) => `  -${name} ${s.kind === "string" ? "string" : s.kind}\n    \t${s.help} (default ${JSON.stringify(s.default)})`)
    .join("\n");
}

/**
 * parseGoFlags parses `args` against `specs` and returns every flag's value plus the remaining
 * positional arguments. Throws FlagError for unknown flags, missing values and bad values.
 */
export function parseGoFlags<S extends Record<string, FlagSpec>>(specs: S, args: readonly string[]): { values: FlagValues<S>; rest: string[] } {
  const values: Record<string, string | number> = {};
  for (const [name, spec] of Object.entries(specs)) values[name] = parseValue(name, spec, spec.default);
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") {
      i++;
      break;
    }
    if (!arg.startsWith("-") || arg === "-") break;
    const body = arg.replace(/^--?/, "");
    const eq = body.indexOf("=");
    const name = eq >= 0 ? body.slice(0, eq) : body;
    const spec = specs[name];
    if (!spec) throw new FlagError(`flag provided but not defined: -${name}`);
    let raw: string;
    if (eq >= 0) {
      raw = body.slice(eq + 1);
    } else {
      const next = args[i + 1];
      if (next === undefined) throw new FlagError(`flag needs an argument: -${name}`);
      raw = next;
      i++;
    }
    values[name] = parseValue(name, spec, raw);
  }
  return { values: values as FlagValues<S>, rest: args.slice(i) };
}
