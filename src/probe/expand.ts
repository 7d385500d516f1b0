// Static `$(VAR)` expansion of an exec probe's command, as the kubelet does before it runs
// the command (kubelet pkg/kubelet/container/helpers.go ExpandContainerCommandOnlyStatic, built
// on the forked Go expansion package third_party/forked/golang/expansion/expand.go).
//
// The scan works on the string's UTF-16 code units where Go scans UTF-8 bytes: every syntax
// character is ASCII, so either scan finds the same references, and `$` followed by any other
// character (a multi-byte one included, as Go reads a whole rune there) stays as written.

import type { EnvVar } from "../api/types.js";

const DOLLAR = 0x24; // "$", the operator
const OPEN = 0x28; // "(", opens a reference; ")" closes it

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
  let out = "";
  let checkpoint = 0;
  for (let cursor = 0; cursor < input.length; cursor++) {
    // A "$" that is the last character is copied through with the tail below.
    if (input.charCodeAt(cursor) !== DOLLAR || cursor + 1 >= input.length) continue;
    const next = input.charCodeAt(cursor + 1);
    if (next === DOLLAR) {
      out += input.slice(checkpoint, cursor) + "$";
      cursor += 1;
    } else if (next === OPEN) {
      out += input.slice(checkpoint, cursor);
      const close = input.indexOf(")", cursor + 2);
      if (close === -1) {
        // Incomplete reference: keep "$(" and resume right after the "(".
        out += "$(";
        cursor += 1;
      } else {
        const name = input.slice(cursor + 2, close);
        out += vars.get(name) ?? `$(${name})`;
        cursor = close;
      }
    } else {
      // "$" and the character after it stay as they are, a multi-byte one whole (the kubelet
      // decodes a rune there since kubernetes#136325; before, a lone byte became a Latin-1 rune).
      continue;
    }
    checkpoint = cursor + 1;
  }
  return out + input.slice(checkpoint);
}
