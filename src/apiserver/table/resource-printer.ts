// The contract between toTable and each resource's printer (one TableHandler of kubectl's
// pkg/printers/internalversion/printers.go AddHandlers).
import type { TableCell, TableColumnDefinition, TableRowCondition } from "./table-types.js";

/** PrintedRow is what a printer makes of one object. */
export interface PrintedRow {
  cells: TableCell[];
  conditions?: TableRowCondition[];
}

/** ResourcePrinter holds a resource's columns and its row function. */
export interface ResourcePrinter<T> {
  /** kind is the object's kind, set on rows served with includeObject=Object. */
  readonly kind: string;
  readonly columns: readonly TableColumnDefinition[];
  /** row computes the cells at time `now` (ms since the epoch), in column order. */
  readonly row: (object: T, now: number) => PrintedRow;
}

/** column builds a column definition (format "" and priority 0 unless given). */
export function column(name: string, type: TableColumnDefinition["type"], description: string, priority = 0, format = ""): TableColumnDefinition {
  return { name, type, format, description, priority };
}
