// Static `$(VAR)` expansion of an exec probe's command, as the kubelet does before it runs
// the command (kubelet pkg/kubelet/container/helpers.go ExpandContainerCommandOnlyStatic, built
// on the forked Go expansion package third_party/forked/golang/expansion/expand.go).
//
// The scan works on UTF-8 bytes, like the Go code: every syntax character is ASCII, so byte
// offsets never split a variable name, and the one byte-level quirk (`$` followed by a
// multi-byte character) comes out the same as Go prints it.

import type { EnvVar } from "../api/types.js";

const DOLLAR = 0x24; // "$", the operator
const OPEN = 0x28; // "(", opens a reference
const CLOSE = 0x29; // ")", closes a reference

const utf8 = new TextDecoder("utf-8", { fatal: false });

/**
 * staticEnvMap builds the variable map used for probe commands: every entry of
 * `container.env` maps its name to its literal `value`. Entries that use `valueFrom` (or have
 * no value) map to "" — the probe never sees downward-API or secret values. Later duplicates
 * win (kubelet EnvVarsToMap assigns in order).
 */
export function staticEnvMap(env: readonly EnvVar[] | undefined): Map<string, string> {
  const vars = new Map<string, string>();
  for (const entry of env ?? []) vars.set(entry.name, entry.value ?? "");
  return vars;
}

/**
 * expandContainerCommand expands `$(VAR)` references in every element of an exec probe's
 * command using only the static values of `env` (see staticEnvMap). Rules (spec §B.1):
 * `$$` is an escaped `$`; `$(NAME)` becomes the value when NAME is in the map (possibly "")
 * and stays verbatim otherwise; `$(` without a later `)` stays literal; `$c` for any other
 * character stays `$c`; a trailing `$` stays; values are not re-expanded.
 */
export function expandContainerCommand(command: readonly string[], env: readonly EnvVar[] | undefined): string[] {
  const vars = staticEnvMap(env);
  return command.map((arg) => expandString(arg, vars));
}

/**
 * expandString expands one string against `vars` (a single left-to-right pass). Unknown
 * names are re-wrapped as `$(NAME)`, mirroring the Go mapping function's syntaxWrap.
 */
export function expandString(input: string, vars: ReadonlyMap<string, string>): string {
  if (!input.includes("$")) return input;
  const bytes = Buffer.from(input, "utf8");
  const out: Buffer[] = [];
  let checkpoint = 0;
  for (let cursor = 0; cursor < bytes.length; cursor++) {
    // A "$" that is the last byte is copied through with the tail below.
    if (bytes[cursor] !== DOLLAR || cursor + 1 >= bytes.length) continue;
    out.push(bytes.subarray(checkpoint, cursor));
    const next = bytes[cursor + 1]!;
    let advance = 1;
    if (next === DOLLAR) {
      out.push(Buffer.from("$"));
    } else if (next === OPEN) {
      const close = bytes.indexOf(CLOSE, cursor + 2);
      if (close === -1) {
        // Incomplete reference: keep "$(" and resume right after the "(".
        out.push(Buffer.from("$("));
      } else {
        const name = utf8.decode(bytes.subarray(cursor + 2, close));
        const value = vars.get(name);
        out.push(Buffer.from(value ?? `$(${name})`, "utf8"));
        advance = close - cursor;
      }
    } else {
      // Go converts the single byte to a rune: a multi-byte character's lead byte becomes
      // the Latin-1 character of that value, and its continuation bytes are copied raw.
      out.push(Buffer.from("$" + String.fromCharCode(next), "utf8"));
    }
    cursor += advance;
    checkpoint = cursor + 1;
  }
  out.push(bytes.subarray(checkpoint));
  return utf8.decode(Buffer.concat(out));
}
