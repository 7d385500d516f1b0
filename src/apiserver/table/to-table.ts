// Table conversion for every served resource, as the API server's TableConvertor does it:
// all columns (priority 1 included; kubectl hides those without -o wide), one row per object,
// and each row's object per includeObject (endpoints/handlers/response.go asTable):
// PartialObjectMetadata by default, the full object, or null.
import { EVENT_PRINTER, type ServedEvent } from "./event-printer.js";
import { CONFIGMAP_PRINTER, NAMESPACE_PRINTER, SECRET_PRINTER, type ServedConfigMap, type ServedNamespace, type ServedSecret } from "./metadata-printers.js";
import { NODE_PRINTER, type ServedNode } from "./node-printer.js";
import type { ServedPod } from "./pod-columns.js";
import { POD_PRINTER } from "./pod-printer.js";
import type { ResourcePrinter } from "./resource-printer.js";
import type { IncludeObjectPolicy, Table, TableRow, TableVersion } from "./table-types.js";

/** TableObjects maps each resource with a printer to the object type it prints. */
export interface TableObjects {
  pods: ServedPod;
  events: ServedEvent;
  namespaces: ServedNamespace;
  nodes: ServedNode;
  configmaps: ServedConfigMap;
  secrets: ServedSecret;
}

/** TableResource names a resource that can be served as a Table. */
export type TableResource = keyof TableObjects;

const PRINTERS: { readonly [R in TableResource]: ResourcePrinter<TableObjects[R]> } = {
  pods: POD_PRINTER,
  events: EVENT_PRINTER,
  namespaces: NAMESPACE_PRINTER,
  nodes: NODE_PRINTER,
  configmaps: CONFIGMAP_PRINTER,
  secrets: SECRET_PRINTER,
};

/** ToTableOptions are the request's table options and the list metadata to carry over. */
export interface ToTableOptions {
  includeObject: IncludeObjectPolicy;
  /** now is the time ages are computed against (ms since the epoch). */
  now: number;
  /** version is the negotiated meta.k8s.io version; v1 unless the client asked for v1beta1 only. */
  version?: TableVersion;
  /** resourceVersion of the list (or of the single object for a get or a watch event). */
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

/** toTable converts objects of one resource into a meta.k8s.io Table. */
export function toTable<R extends TableResource>(resource: R, objects: readonly TableObjects[R][], options: ToTableOptions): Table {
  const printer: ResourcePrinter<TableObjects[R]> = PRINTERS[resource];
  const version = options.version ?? "v1";
  const metadata: Table["metadata"] = {};
  if (options.resourceVersion !== undefined) metadata.resourceVersion = options.resourceVersion;
  if (options.continue !== undefined && options.continue !== "") metadata.continue = options.continue;
  if (options.remainingItemCount !== undefined) metadata.remainingItemCount = options.remainingItemCount;
  const rows = objects.map((object): TableRow => {
    const { cells, conditions } = printer.row(object, options.now);
    return { cells, ...(conditions !== undefined ? { conditions } : {}), object: rowObject(object, printer.kind, options.includeObject, version) };
  });
  return { kind: "Table", apiVersion: `meta.k8s.io/${version}`, metadata, columnDefinitions: printer.columns.map((c) => ({ ...c })), rows };
}

function rowObject(object: { metadata: object }, kind: string, policy: IncludeObjectPolicy, version: TableVersion): unknown {
  switch (policy) {
    case "None":
      return null;
    case "Metadata":
      return { kind: "PartialObjectMetadata", apiVersion: `meta.k8s.io/${version}`, metadata: object.metadata };
    case "Object":
      return { ...object, apiVersion: "v1", kind };
  }
}
