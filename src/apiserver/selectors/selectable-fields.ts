// The fields each resource can be selected by, as the API server registers them: the field
// set its storage strategy computes from an object (pkg/registry/core/<kind>/strategy.go,
// ToSelectableFields / GetAttrs) and the field labels its conversion function accepts
// (pkg/apis/core/v1/conversion.go AddFieldLabelConversionFunc; kinds without one get
// runtime.DefaultMetaV1FieldSelectorConversion).
import { goQuote } from "../../api/field-errors.js";
import { FieldSelector } from "./field-selector.js";
import { SelectorError } from "./selector-error.js";

/** SelectableResource names a resource whose field selectors are known here. */
export type SelectableResource = "pods" | "events" | "namespaces" | "nodes" | "configmaps" | "secrets";

/** ResourceFields is one resource's field set builder and accepted field labels. */
export interface ResourceFields {
  /** fieldsOf is the object's selectable field set; fields it lacks compare as "". */
  readonly fieldsOf: (object: unknown) => Record<string, string>;
  /** labels are the field labels a selector may use. */
  readonly labels: readonly string[];
  /** renamed maps legacy labels onto the field they stand for. */
  readonly renamed: Readonly<Record<string, string>>;
  /** rejection is the 400 message for a label outside `labels`. */
  readonly rejection: (label: string) => string;
}


/** child reads one field of a JSON object; anything that is not an object has no fields. */
function child(object: unknown, key: string): unknown {
  if (typeof object !== "object" || object === null || !Object.hasOwn(object, key)) return undefined;
  return (object as Record<string, unknown>)[key];
}

/** text reads a nested string, "" when absent (a Go zero value). */
function text(object: unknown, key: string, nested?: string): string {
  const value = nested === undefined ? child(object, key) : child(child(object, key), nested);
  return typeof value === "string" ? value : "";
}

/** bool reads a nested boolean as Go's strconv.FormatBool / fmt.Sprint print it. */
function bool(object: unknown, key: string, nested: string): string {
  return child(child(object, key), nested) === true ? "true" : "false";
}

// Field sets are built as one object literal each: spreading a shared metadata part costs
// V8 a dictionary-mode object per call, about thirty times slower on every list and watch.
const objectName = (object: unknown): string => text(object, "metadata", "name");
const objectNamespace = (object: unknown): string => text(object, "metadata", "namespace");

const fieldLabelNotSupported = (label: string): string => `field label not supported: ${label}`;

/** podIP is the first of status.podIPs, or the legacy status.podIP when podIPs is empty (v1 → internal conversion). */
function primaryPodIP(pod: unknown): string {
  const ips = child(child(pod, "status"), "podIPs");
  if (Array.isArray(ips) && ips.length > 0) return text(ips[0], "ip");
  return text(pod, "status", "podIP");
}

/** RESOURCE_FIELDS holds each resource's selectable fields. */
export const RESOURCE_FIELDS: Readonly<Record<SelectableResource, ResourceFields>> = {
  // pod/strategy.go ToSelectableFields. status.podIPs is accepted by the conversion but not in the
  // field set, so it compares as "" (as upstream).
  pods: {
    fieldsOf: (pod) => ({
      "metadata.name": objectName(pod),
      "metadata.namespace": objectNamespace(pod),
      "spec.nodeName": text(pod, "spec", "nodeName"),
      "spec.restartPolicy": text(pod, "spec", "restartPolicy"),
      "spec.schedulerName": text(pod, "spec", "schedulerName"),
      "spec.serviceAccountName": text(pod, "spec", "serviceAccountName"),
      "spec.hostNetwork": bool(pod, "spec", "hostNetwork"),
      "status.phase": text(pod, "status", "phase"),
      "status.podIP": primaryPodIP(pod),
      "status.nominatedNodeName": text(pod, "status", "nominatedNodeName"),
    }),
    labels: [
      "metadata.name", "metadata.namespace", "spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
      "spec.hostNetwork", "status.phase", "status.podIP", "status.podIPs", "status.nominatedNodeName",
    ],
    renamed: { "spec.host": "spec.nodeName" },
    rejection: fieldLabelNotSupported,
  },
  // event/strategy.go ToSelectableFields: source falls back to reportingController (v1 reportingComponent).
  events: {
    fieldsOf: (event) => ({
      "metadata.name": objectName(event),
      "metadata.namespace": objectNamespace(event),
      "involvedObject.kind": text(event, "involvedObject", "kind"),
      "involvedObject.namespace": text(event, "involvedObject", "namespace"),
      "involvedObject.name": text(event, "involvedObject", "name"),
      "involvedObject.uid": text(event, "involvedObject", "uid"),
      "involvedObject.apiVersion": text(event, "involvedObject", "apiVersion"),
      "involvedObject.resourceVersion": text(event, "involvedObject", "resourceVersion"),
      "involvedObject.fieldPath": text(event, "involvedObject", "fieldPath"),
      reason: text(event, "reason"),
      reportingComponent: text(event, "reportingComponent"),
      source: text(event, "source", "component") || text(event, "reportingComponent"),
      type: text(event, "type"),
    }),
    labels: [
      "involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid", "involvedObject.apiVersion",
      "involvedObject.resourceVersion", "involvedObject.fieldPath", "reason", "reportingComponent", "source", "type",
      "metadata.namespace", "metadata.name",
    ],
    renamed: {},
    rejection: fieldLabelNotSupported,
  },
  // namespace/strategy.go NamespaceToSelectableFields (its legacy "name" field is not an accepted label).
  namespaces: {
    fieldsOf: (ns) => ({ "metadata.name": objectName(ns), "status.phase": text(ns, "status", "phase"), name: objectName(ns) }),
    labels: ["status.phase", "metadata.name"],
    renamed: {},
    rejection: fieldLabelNotSupported,
  },
  // node/strategy.go NodeToSelectableFields.
  nodes: {
    fieldsOf: (node) => ({ "metadata.name": objectName(node), "spec.unschedulable": bool(node, "spec", "unschedulable") }),
    labels: ["metadata.name", "spec.unschedulable"],
    renamed: {},
    rejection: fieldLabelNotSupported,
  },
  // No conversion function: DefaultMetaV1FieldSelectorConversion.
  configmaps: {
    fieldsOf: (cm) => ({ "metadata.name": objectName(cm), "metadata.namespace": objectNamespace(cm) }),
    labels: ["metadata.name", "metadata.namespace"],
    renamed: {},
    rejection: (label) => `${goQuote(label)} is not a known field selector: only "metadata.name", "metadata.namespace"`,
  },
  // secret/strategy.go SelectableFields.
  secrets: {
    fieldsOf: (secret) => ({ "metadata.name": objectName(secret), "metadata.namespace": objectNamespace(secret), type: text(secret, "type") }),
    labels: ["type", "metadata.namespace", "metadata.name"],
    renamed: {},
    rejection: fieldLabelNotSupported,
  },
};

/** selectableFields is an object's field set for field selector matching. */
export function selectableFields(resource: SelectableResource, object: unknown): Record<string, string> {
  return RESOURCE_FIELDS[resource].fieldsOf(object);
}

/**
 * checkFieldSelector runs every term through the resource's field label conversion, as the
 * API server does before listing: an unsupported label is a SelectorError with the API server's
 * 400 message, a legacy label (pods: spec.host) is renamed. Returns the converted selector.
 */
export function checkFieldSelector(resource: SelectableResource, selector: FieldSelector): FieldSelector {
  const spec = RESOURCE_FIELDS[resource];
  return new FieldSelector(
    selector.requirements.map((r) => {
      const field = Object.hasOwn(spec.renamed, r.field) ? spec.renamed[r.field]! : r.field;
      if (field === r.field && !spec.labels.includes(r.field)) throw new SelectorError(spec.rejection(r.field));
      return { ...r, field };
    }),
  );
}
