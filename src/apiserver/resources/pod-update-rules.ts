// The API server's rules for updating a running pod's spec (pkg/apis/core/validation
// ValidatePodUpdate, as of 1.32): container and init container images may change,
// activeDeadlineSeconds may be set or lowered, tolerations may only be added, and
// terminationGracePeriodSeconds may go from a negative value to 1. Anything else is refused
// with one Forbidden error on "spec".
import { forbidden, invalid, required, type FieldError } from "../../api/field-errors.js";
import type { Container, Pod } from "../../api/types.js";
import { sameJson } from "./canonical-json.js";

/** POD_UPDATE_FORBIDDEN is ValidatePodUpdate's detail for a change of an immutable spec field. */
export const POD_UPDATE_FORBIDDEN =
  "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

type SpecWithTolerations = Pod["spec"] & { tolerations?: unknown[] };

/** validatePodUpdate returns the field errors of changing `current` into `next` (an empty list allows it). */
export function validatePodUpdate(next: Pod, current: Pod): FieldError[] {
  const errs: FieldError[] = [];
  const newSpec = next.spec as SpecWithTolerations;
  const oldSpec = current.spec as SpecWithTolerations;
  newSpec.containers.forEach((c, i) => {
    if ((c.image ?? "") === "") errs.push(required(`spec.containers[${i}].image`));
  });
  (newSpec.initContainers ?? []).forEach((c, i) => {
    if ((c.image ?? "") === "") errs.push(required(`spec.initContainers[${i}].image`));
  });
  const oldDeadline = oldSpec.activeDeadlineSeconds;
  const newDeadline = newSpec.activeDeadlineSeconds;
  if (oldDeadline !== undefined) {
    if (newDeadline === undefined) errs.push(invalid("spec.activeDeadlineSeconds", null, "must not update from a positive integer to nil value"));
    else if (newDeadline > oldDeadline) errs.push(invalid("spec.activeDeadlineSeconds", newDeadline, "must be less than or equal to previous value"));
  }
  const oldTolerations = oldSpec.tolerations ?? [];
  const newTolerations = newSpec.tolerations ?? [];
  for (const [i, old] of oldTolerations.entries()) {
    if (!newTolerations.some((t) => sameJson(t, old))) errs.push(forbidden(`spec.tolerations[${i}]`, "existing toleration can not be modified except its tolerationSeconds"));
  }
  // Carry every mutable field of next over onto the old spec: what differs then is forbidden.
  const allowed: SpecWithTolerations = structuredClone(oldSpec);
  if (!withImagesOf(allowed.containers, newSpec.containers) || !withImagesOf(allowed.initContainers ?? [], newSpec.initContainers ?? [])) {
    errs.push(forbidden("spec", POD_UPDATE_FORBIDDEN));
    return errs;
  }
  if (newSpec.activeDeadlineSeconds === undefined) delete allowed.activeDeadlineSeconds;
  else allowed.activeDeadlineSeconds = newSpec.activeDeadlineSeconds;
  if (newSpec.tolerations === undefined) delete allowed.tolerations;
  else allowed.tolerations = newSpec.tolerations;
  const oldGrace = oldSpec.terminationGracePeriodSeconds;
  if (oldGrace !== undefined && oldGrace < 0 && newSpec.terminationGracePeriodSeconds === 1) allowed.terminationGracePeriodSeconds = 1;
  if (!sameJson(allowed, newSpec)) errs.push(forbidden("spec", POD_UPDATE_FORBIDDEN));
  return errs;
}

/** withImagesOf copies each container's image from `source`; false when the lists differ in length. */
function withImagesOf(target: Container[], source: readonly Container[]): boolean {
  if (target.length !== source.length) return false;
  target.forEach((c, i) => {
    const image = source[i]?.image;
    if (image === undefined) delete c.image;
    else c.image = image;
  });
  return true;
}
