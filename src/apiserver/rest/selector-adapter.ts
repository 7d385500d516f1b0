// The one place the REST layer turns a request's labelSelector and fieldSelector into a filter
// over stored objects, through the selectors library (src/apiserver/selectors: the API server's
// syntax, per-resource selectable fields and 400 messages).
import { parseFieldSelector } from "../selectors/field-selector.js";
import { parseLabelSelector } from "../selectors/label-selector.js";
import { checkFieldSelector, selectableFields, type SelectableResource } from "../selectors/selectable-fields.js";
import type { KubeObject } from "../storage/object-store.js";

/** ObjectFilter keeps the objects a request selected. */
export type ObjectFilter = (object: KubeObject) => boolean;

/**
 * selectorFilter builds the filter of a list or watch of `resource`; undefined when the request
 * selects everything. A malformed or unsupported selector throws a SelectorError (400).
 */
export function selectorFilter(resource: string, query: URLSearchParams): ObjectFilter | undefined {
  const labels = parseLabelSelector(query.get("labelSelector") ?? "");
  const fields = checkFieldSelector(resource as SelectableResource, parseFieldSelector(query.get("fieldSelector") ?? ""));
  if (labels.empty && fields.empty) return undefined;
  return (object) => labels.matches(object.metadata.labels ?? {}) && fields.matches(selectableFields(resource as SelectableResource, object));
}
