// The LABELS column of `get --show-labels`, as kubectl renders labels (apimachinery
// labels.FormatLabels): `key=value` pairs sorted by key, comma-separated, `<none>` when empty.

/** formatLabels renders labels for the LABELS column. */
export function formatLabels(labels: Readonly<Record<string, string>> | undefined): string {
  const keys = Object.keys(labels ?? {}).sort();
  if (keys.length === 0) return "<none>";
  return keys.map((k) => `${k}=${labels?.[k] ?? ""}`).join(",");
}

/** objectLabels reads metadata.labels of any API object. */
export function objectLabels(object: unknown): Record<string, string> | undefined {
  return (object as { metadata?: { labels?: Record<string, string> } } | null)?.metadata?.labels;
}
