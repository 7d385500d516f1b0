// Exec probe output scrubbed of secret values before anything keeps or shows it (events, the
// agent's log, probe history, describe, the console). The kubelet does not scrub: an exec probe
// that prints a Secret puts it in an Unhealthy event. probelet removes every occurrence of the
// values it is given (see the agent's secret-env.ts for which), as they are and as they would be
// quoted in Go's %q (a command line in a timeout text); values shorter than MIN_REDACTED_LENGTH
// are left alone (they would blank out ordinary text), and other encodings (base64, hex, URL
// escapes, a value split across lines) are not recognised.

/** MIN_REDACTED_LENGTH is the shortest value that is scrubbed. */
export const MIN_REDACTED_LENGTH = 4;

/** REDACTED replaces a secret value. */
export const REDACTED = "[redacted]";

/** Redact turns a text into one without the secret values it was built for. */
export type Redact = (text: string) => string;

/**
 * redactorOf builds the Redact for a set of values, or undefined when none is long enough. Longer
 * values go first, so a value that contains another is removed whole.
 */
export function redactorOf(values: Iterable<string>): Redact | undefined {
  const forms = new Set<string>();
  for (const value of values) {
    if (value.length < MIN_REDACTED_LENGTH) continue;
    forms.add(value);
    const quoted = JSON.stringify(value).slice(1, -1);
    if (quoted !== value) forms.add(quoted);
  }
  if (forms.size === 0) return undefined;
  const sorted = [...forms].sort((a, b) => b.length - a.length);
  return (text) => sorted.reduce((out, form) => (out.includes(form) ? out.split(form).join(REDACTED) : out), text);
}
