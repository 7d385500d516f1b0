// The one place the REST layer turns a request's labelSelector and fieldSelector into a filter
// over stored objects. Until the selectors library (src/apiserver/selectors) is wired in here,
// field selectors take the fields below and label selectors are refused with a 400, never
// ignored.
import { parseFieldSelector } from "../../server/query.js";
import { badRequestStatus, StatusError } from "../../server/status-object.js";
import type { KubeObject } from "../storage/object-store.js";

/** ObjectFilter keeps the objects a request selected. */
export type ObjectFilter = (object: KubeObject) => boolean;

type Getter = (o: Record<string, unknown> & KubeObject) => string;

const at = (o: unknown, ...path: string[]): string => {
  let current = o;
  for (const key of path) current = current !== null && typeof current === "object" ? (current as Record<string, unknown>)[key] : undefined;
  return typeof current === "string" ? current : "";
};

const META: Readonly<Record<string, Getter>> = { "metadata.name": (o) => o.metadata.name ?? "", "metadata.namespace": (o) => o.metadata.namespace ?? "" };

// The fields each resource's strategy makes selectable (pkg/registry/core/*/strategy.go).
const FIELDS: Readonly<Record<string, Readonly<Record<string, Getter>>>> = {
  pods: { ...META, "spec.nodeName": (o) => at(o, "spec", "nodeName"), "spec.restartPolicy": (o) => at(o, "spec", "restartPolicy"), "status.phase": (o) => at(o, "status", "phase"), "status.podIP": (o) => at(o, "status", "podIP") },
  events: {
    ...META,
    ...Object.fromEntries(["kind", "namespace", "name", "uid", "apiVersion", "fieldPath", "resourceVersion"].map((f) => [`involvedObject.${f}`, (o: unknown) => at(o, "involvedObject", f)])),
    reason: (o) => at(o, "reason"),
    reportingComponent: (o) => at(o, "reportingComponent"),
    source: (o) => at(o, "source", "component"),
    type: (o) => at(o, "type"),
  },
  namespaces: { ...META, "status.phase": (o) => at(o, "status", "phase") },
  secrets: { ...META, type: (o) => at(o, "type") },
};

/**
 * selectorFilter builds the filter of a list or watch of `resource`; undefined when the request
 * selects everything. A malformed or unsupported selector throws a 400 StatusError.
 */
export function selectorFilter(resource: string, query: URLSearchParams): ObjectFilter | undefined {
  const labelSelector = query.get("labelSelector") ?? "";
  if (labelSelector.trim() !== "") throw new StatusError(badRequestStatus(`label selectors on ${resource} are not served by this agent yet`));
  const fields = FIELDS[resource] ?? META;
  const terms = parseFieldSelector(query.get("fieldSelector") ?? "", new Set(Object.keys(fields)));
  if (terms.length === 0) return undefined;
  return (object) => terms.every((t) => ((fields[t.field]?.(object as Record<string, unknown> & KubeObject) ?? "") === t.value) !== t.negated);
}
