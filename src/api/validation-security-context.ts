// The API server's checks of the securityContext fields probelet applies
// (pkg/apis/core/validation/validation.go validatePodSpecSecurityContext, ValidateSecurityContext):
// user and group IDs in range, with its texts (apimachinery validation.IsValidUserID / IsValidGroupID).
import { childPath as child, indexPath as index, invalid, type FieldError } from "./field-errors.js";

const ID_RANGE = "must be between 0 and 2147483647, inclusive";

function idErrors(value: unknown, path: string): FieldError[] {
  return typeof value === "number" && (value < 0 || value > 2147483647) ? [invalid(path, value, ID_RANGE)] : [];
}

/** validatePodSecurityContext checks spec.securityContext: fsGroup, runAsUser, runAsGroup, supplementalGroups. */
export function validatePodSecurityContext(sc: Record<string, unknown> | undefined, path: string): FieldError[] {
  if (!sc) return [];
  const errs = [...idErrors(sc["fsGroup"], child(path, "fsGroup")), ...idErrors(sc["runAsUser"], child(path, "runAsUser")), ...idErrors(sc["runAsGroup"], child(path, "runAsGroup"))];
  const groups = sc["supplementalGroups"];
  if (Array.isArray(groups)) groups.forEach((g, i) => errs.push(...idErrors(g, index(child(path, "supplementalGroups"), i))));
  return errs;
}

/** validateContainerSecurityContext checks a container's securityContext: runAsUser and runAsGroup. */
export function validateContainerSecurityContext(sc: Record<string, unknown> | undefined, path: string): FieldError[] {
  if (!sc) return [];
  return [...idErrors(sc["runAsUser"], child(path, "runAsUser")), ...idErrors(sc["runAsGroup"], child(path, "runAsGroup"))];
}
