// Accounting of libuv handles for leak tests: a probe must leave no socket or timer behind.

/** countHandles tallies process.getActiveResourcesInfo() by kind (TCPSocketWrap, Timeout, ...). */
export function countHandles(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}

/** socketHandles counts open TCP and TLS socket handles in this process. */
export function socketHandles(): number {
  const counts = countHandles();
  return (counts.get("TCPSocketWrap") ?? 0) + (counts.get("TLSWrap") ?? 0);
}

/**
 * grownHandles lists the kinds of which `after` holds more than `before`, as "Kind: b→a".
 * Handles of earlier tests may still be closing when `before` is taken, so a kind that shrank
 * is not a leak; only growth is.
 */
export function grownHandles(before: Map<string, number>, after: Map<string, number>): string[] {
  const grown: string[] = [];
  for (const [kind, count] of after) {
    const was = before.get(kind) ?? 0;
    if (count > was) grown.push(`${kind}: ${was}→${count}`);
  }
  return grown;
}
