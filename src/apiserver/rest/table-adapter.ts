// The one place the REST layer asks for a meta.k8s.io Table: the table library negotiates the
// Accept header (kubectl's `as=Table;v=v1;g=meta.k8s.io`) and converts objects with each
// resource's printer columns.
import { failureStatus, StatusError } from "../endpoints/status-object.js";
import type { KubeObject } from "../storage/object-store.js";
import { parseIncludeObject, parseTableAccept } from "../table/table-request.js";
import { toTable, type TableObjects, type TableResource } from "../table/to-table.js";
import type { IncludeObjectPolicy, TableVersion } from "../table/table-types.js";

/** TableRequest is what a request asked of a Table. */
export interface TableRequest {
  includeObject: IncludeObjectPolicy;
  version: TableVersion;
}

/** ListMeta is the list metadata a Table carries over. */
export interface ListMeta {
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

/**
 * wantsTable reads the Accept header and includeObject; undefined when the client wants the
 * object itself. An Accept the server cannot answer is the API server's 406.
 */
export function wantsTable(accept: string | undefined, query: URLSearchParams): TableRequest | undefined {
  const negotiated = parseTableAccept(accept);
  if (negotiated.as === "NotAcceptable") {
    throw new StatusError(failureStatus(406, "NotAcceptable", "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf"));
  }
  if (negotiated.as === "Object") return undefined;
  return { includeObject: parseIncludeObject(query.get("includeObject") ?? undefined), version: negotiated.version };
}

/** renderTable converts objects of `resource` into a Table. */
export function renderTable(resource: string, objects: readonly KubeObject[], request: TableRequest, now: number, listMeta: ListMeta): unknown {
  return toTable(resource as TableResource, objects as unknown as TableObjects[TableResource][], {
    includeObject: request.includeObject,
    version: request.version,
    now,
    resourceVersion: listMeta.resourceVersion,
    ...(listMeta.continue !== undefined ? { continue: listMeta.continue } : {}),
    ...(listMeta.remainingItemCount !== undefined ? { remainingItemCount: listMeta.remainingItemCount } : {}),
  });
}
