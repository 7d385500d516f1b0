// meta.k8s.io Table shapes (apimachinery pkg/apis/meta/v1 types.go: Table, TableColumnDefinition,
// TableRow, TableRowCondition), as they go over the wire in JSON.

/** TableColumnDefinition describes one column; priority 0 columns are shown by default, others only with -o wide. */
export interface TableColumnDefinition {
  name: string;
  type: "string" | "integer" | "number" | "boolean" | "date";
  format: string;
  description: string;
  priority: number;
}

/** TableCell is one cell: a string, or a number for integer columns. */
export type TableCell = string | number;

/** TableRowCondition flags a row, e.g. a completed pod. */
export interface TableRowCondition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason?: string;
  message?: string;
}

/** TableRow is one object's cells, plus the object itself as includeObject asks. */
export interface TableRow {
  cells: TableCell[];
  conditions?: TableRowCondition[];
  object: unknown;
}

/** TableVersion is the meta.k8s.io version a Table is served in. */
export type TableVersion = "v1" | "v1beta1";

/** Table is a meta.k8s.io Table. */
export interface Table {
  kind: "Table";
  apiVersion: `meta.k8s.io/${TableVersion}`;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}

/** IncludeObjectPolicy is metav1.IncludeObjectPolicy: what each row's `object` holds. */
export type IncludeObjectPolicy = "None" | "Metadata" | "Object";
