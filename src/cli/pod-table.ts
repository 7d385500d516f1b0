// Pod rows as `kubectl get pods` prints them. The cells come from the API server's printer
// (src/apiserver/table/pod-columns.ts, kubectl's printPod), so the CLI and the served Tables agree.
import type { Pod } from "../api/types.js";
import { podCells } from "../apiserver/table/pod-columns.js";


/** podRow is one `get pods` row: NAME READY STATUS RESTARTS AGE (+ IP NODE for -o wide). */
export function podRow(pod: Pod, now: number, wide = false, withNamespace = false): string[] {
  const cells = podCells(pod, now);
  return [
    ...(withNamespace ? [pod.metadata.namespace ?? ""] : []),
    cells.name, cells.ready, cells.status, cells.restarts, cells.age,
    ...(wide ? [cells.ip, cells.node] : []),
  ];
}

/** podHeaders are the column titles of podRow. */
export function podHeaders(wide = false, withNamespace = false): string[] {
  return [...(withNamespace ? ["NAMESPACE"] : []), "NAME", "READY", "STATUS", "RESTARTS", "AGE", ...(wide ? ["IP", "NODE"] : [])];
}

/**
 * formatTable aligns rows into columns as kubectl's tab writer does (cli-runtime printers
 * GetNewTabWriter: padding 3, minimum cell width 6 including the padding).
 */
export function formatTable(rows: readonly (readonly string[])[]): string {
  if (rows.length === 0) return "";
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? TABLE_MIN_WIDTH, cell.length + TABLE_PADDING)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join("")).join("\n") + "\n";
}

/** TABLE_PADDING is the space between columns. */
export const TABLE_PADDING = 3;
/** TABLE_MIN_WIDTH is the narrowest a column is, padding included. */
export const TABLE_MIN_WIDTH = 6;
