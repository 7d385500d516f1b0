// Table columns of the resources printed from little more than their metadata
// (printers.go printNamespace, printConfigMap, printSecret).
import type { ObjectMeta } from "../../api/types.js";
import { AGE_DOC, NAME_DOC } from "./column-docs.js";
import { timestampSince } from "./human-duration.js";
import { column, type ResourcePrinter } from "./resource-printer.js";

/** ServedNamespace is a core/v1 Namespace. */
export interface ServedNamespace {
  metadata: ObjectMeta;
  status?: { phase?: string };
}

/** ServedConfigMap is a core/v1 ConfigMap. */
export interface ServedConfigMap {
  metadata: ObjectMeta;
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
}

/** ServedSecret is a core/v1 Secret (only the keys of its data are read, never the values). */
export interface ServedSecret {
  metadata: ObjectMeta;
  type?: string;
  data?: Record<string, string>;
}

const size = (map: Record<string, string> | undefined): number => Object.keys(map ?? {}).length;

/** NAMESPACE_PRINTER prints Name, Status (the phase), Age. */
export const NAMESPACE_PRINTER: ResourcePrinter<ServedNamespace> = {
  kind: "Namespace",
  columns: [column("Name", "string", NAME_DOC, 0, "name"), column("Status", "string", "The status of the namespace"), column("Age", "string", AGE_DOC)],
  row: (ns, now) => ({ cells: [ns.metadata.name ?? "", ns.status?.phase ?? "", timestampSince(ns.metadata.creationTimestamp, now)] }),
};

/** CONFIGMAP_PRINTER prints Name, Data (the number of data and binaryData keys), Age. */
export const CONFIGMAP_PRINTER: ResourcePrinter<ServedConfigMap> = {
  kind: "ConfigMap",
  columns: [
    column("Name", "string", NAME_DOC, 0, "name"),
    column("Data", "string", "Data contains the configuration data."),
    column("Age", "string", AGE_DOC),
  ],
  row: (cm, now) => ({ cells: [cm.metadata.name ?? "", size(cm.data) + size(cm.binaryData), timestampSince(cm.metadata.creationTimestamp, now)] }),
};

/** SECRET_PRINTER prints Name, Type, Data (the number of keys), Age. */
export const SECRET_PRINTER: ResourcePrinter<ServedSecret> = {
  kind: "Secret",
  columns: [
    column("Name", "string", NAME_DOC, 0, "name"),
    column("Type", "string", "Used to facilitate programmatic handling of secret data."),
    column("Data", "string", "Data contains the secret data."),
    column("Age", "string", AGE_DOC),
  ],
  row: (secret, now) => ({ cells: [secret.metadata.name ?? "", secret.type ?? "", size(secret.data), timestampSince(secret.metadata.creationTimestamp, now)] }),
};
