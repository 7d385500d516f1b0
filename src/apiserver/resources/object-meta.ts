// The ObjectMeta checks every resource shares (apimachinery ValidateObjectMeta): a name that
// the resource's name rule accepts, a namespace exactly when the resource is namespaced, and
// valid labels and annotations.
import { invalid, isDNS1123Label, isDNS1123Subdomain, required, type FieldError } from "../../api/field-errors.js";
import type { ObjectMeta } from "../../api/types.js";
import { validateObjectMetaLabelsAndAnnotations } from "../../api/validation-object-meta.js";

/** NameRule checks a name, returning the API server's messages (empty: valid). */
export type NameRule = (name: string) => string[];

/** DNS_SUBDOMAIN_NAME is the name rule of most resources (NameIsDNSSubdomain). */
export const DNS_SUBDOMAIN_NAME: NameRule = isDNS1123Subdomain;

/** DNS_LABEL_NAME is the name rule of namespaces (ValidateNamespaceName). */
export const DNS_LABEL_NAME: NameRule = isDNS1123Label;

/** validateObjectMeta checks name, namespace, labels and annotations under "metadata". */
export function validateObjectMeta(meta: ObjectMeta, namespaced: boolean, nameRule: NameRule): FieldError[] {
  const errs: FieldError[] = [];
  const name = meta.name ?? "";
  if (name === "") errs.push(required("metadata.name", "name or generateName is required"));
  else errs.push(...nameRule(name).map((m) => invalid("metadata.name", name, m)));
  const namespace = meta.namespace ?? "";
  if (namespaced) {
    if (namespace === "") errs.push(required("metadata.namespace"));
    else errs.push(...isDNS1123Label(namespace).map((m) => invalid("metadata.namespace", namespace, m)));
  }
  errs.push(...validateObjectMetaLabelsAndAnnotations(meta, "metadata"));
  return errs;
}
