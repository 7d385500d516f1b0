// Printing a meta.k8s.io Table the server answered, as kubectl's table printer does: column
// names upper-cased, priority-0 columns only unless -o wide, a NAMESPACE column first for
// --all-namespaces and a LABELS column last for --show-labels (both from each row's object).
import { formatLabels, objectLabels } from "./label-column.js";

/** ServedTable is the part of a meta.k8s.io Table the CLI prints. */
export interface ServedTable {
  kind: "Table";
  columnDefinitions: { name: string; priority?: number }[];
  rows: { cells: unknown[]; object?: unknown }[];
}

/** TableView chooses the optional columns. */
export interface TableView {
  wide: boolean;
  withNamespace: boolean;
  showLabels: boolean;
}

/** isTable tells a Table answer from a plain object or list. */
export function isTable(value: unknown): value is ServedTable {
  const table = value as Partial<ServedTable> | null;
  return table !== null && typeof table === "object" && table.kind === "Table" && Array.isArray(table.columnDefinitions) && Array.isArray(table.rows);
}

/** tableHeaders are the printed column titles. */
export function tableHeaders(table: ServedTable, view: TableView): string[] {
  const shown = table.columnDefinitions.filter((c) => view.wide || (c.priority ?? 0) === 0);
  return [...(view.withNamespace ? ["NAMESPACE"] : []), ...shown.map((c) => c.name.toUpperCase()), ...(view.showLabels ? ["LABELS"] : [])];
}

/** tableRows are the printed cells of every row. */
export function tableRows(table: ServedTable, view: TableView): string[][] {
  const shown = table.columnDefinitions.map((c, i) => ({ i, show: view.wide || (c.priority ?? 0) === 0 })).filter((c) => c.show);
  return table.rows.map((row) => {
    const namespace = (row.object as { metadata?: { namespace?: string } } | undefined)?.metadata?.namespace ?? "";
    return [
      ...(view.withNamespace ? [namespace] : []),
      ...shown.map((c) => cellText(row.cells[c.i])),
      ...(view.showLabels ? [formatLabels(objectLabels(row.object))] : []),
    ];
  });
}

function cellText(cell: unknown): string {
  if (cell === null || cell === undefined) return "<none>";
  if (typeof cell === "string") return cell;
  if (typeof cell === "number" || typeof cell === "boolean") return String(cell);
  return JSON.stringify(cell);
}
