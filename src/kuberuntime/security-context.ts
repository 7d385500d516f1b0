// A container's effective security context as the kubelet gives it to the runtime, and the
// runAsNonRoot check it makes before creating a container (pkg/securitycontext/util.go
// DetermineEffectiveSecurityContext, AddNoNewPrivileges; pkg/kubelet/kuberuntime/
// security_context.go determineEffectiveSecurityContext; security_context_others.go
// verifyRunAsNonRoot). The pod's fields apply where the container sets none (container wins).
import type { Container, Pod } from "../api/types.js";
import type { ContainerSecurity, ImageUser } from "../runtime/runtime.js";
import { formatPod } from "../api/format-pod.js";

/** MAX_USER_ID is the largest uid the API server accepts (validation.IsValidUserID). */
export const MAX_USER_ID = 2147483647;

/** EffectiveSecurityContext is the merge of a pod's and a container's securityContext fields probelet reads. */
export interface EffectiveSecurityContext {
  runAsUser?: number;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
  allowPrivilegeEscalation?: boolean;
  privileged?: boolean;
  readOnlyRootFilesystem?: boolean;
  capabilities?: { add: string[]; drop: string[] };
}

function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) ? value : undefined;
}

function flag(value: unknown): boolean | undefined {
  return typeof value === "boolean" ? value : undefined;
}

function names(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** effectiveSecurityContext merges the pod's securityContext under the container's (DetermineEffectiveSecurityContext). */
export function effectiveSecurityContext(pod: Pod, container: Container): EffectiveSecurityContext {
  const p = pod.spec.securityContext ?? {};
  const c = container.securityContext ?? {};
  const out: EffectiveSecurityContext = {};
  const runAsUser = num(c["runAsUser"]) ?? num(p["runAsUser"]);
  const runAsGroup = num(c["runAsGroup"]) ?? num(p["runAsGroup"]);
  const runAsNonRoot = flag(c["runAsNonRoot"]) ?? flag(p["runAsNonRoot"]);
  const allow = flag(c["allowPrivilegeEscalation"]);
  const privileged = flag(c["privileged"]);
  if (runAsUser !== undefined) out.runAsUser = runAsUser;
  if (runAsGroup !== undefined) out.runAsGroup = runAsGroup;
  if (runAsNonRoot !== undefined) out.runAsNonRoot = runAsNonRoot;
  if (allow !== undefined) out.allowPrivilegeEscalation = allow;
  if (privileged !== undefined) out.privileged = privileged;
  const readOnly = flag(c["readOnlyRootFilesystem"]);
  if (readOnly !== undefined) out.readOnlyRootFilesystem = readOnly;
  const caps = c["capabilities"];
  if (caps !== null && typeof caps === "object") {
    const record = caps as Record<string, unknown>;
    out.capabilities = { add: names(record["add"]), drop: names(record["drop"]) };
  }
  return out;
}

/**
 * containerSecurity is what the runtime gets (CRI LinuxContainerSecurityContext): the effective
 * user, group, capabilities, privileged and read-only root filesystem flags, the pod's fsGroup
 * then supplementalGroups, and no_new_privs when allowPrivilegeEscalation is false. Undefined when nothing is set.
 */
export function containerSecurity(pod: Pod, container: Container): ContainerSecurity | undefined {
  const sc = effectiveSecurityContext(pod, container);
  const podSc = pod.spec.securityContext ?? {};
  const groups = [num(podSc["fsGroup"]), ...(Array.isArray(podSc["supplementalGroups"]) ? podSc["supplementalGroups"].map(num) : [])].filter((g): g is number => g !== undefined);
  const out: ContainerSecurity = {};
  if (sc.runAsUser !== undefined) out.runAsUser = sc.runAsUser;
  if (sc.runAsGroup !== undefined) out.runAsGroup = sc.runAsGroup;
  if (groups.length > 0) out.supplementalGroups = groups;
  if (sc.capabilities) out.capabilities = sc.capabilities;
  if (sc.privileged === true) out.privileged = true;
  if (sc.readOnlyRootFilesystem === true) out.readonlyRootfs = true;
  // AddNoNewPrivileges: only an explicit allowPrivilegeEscalation: false sets it.
  if (sc.allowPrivilegeEscalation === false) out.noNewPrivs = true;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** imageUserNeeded tells whether verifyRunAsNonRoot needs the image's user (runAsNonRoot without runAsUser). */
export function imageUserNeeded(pod: Pod, container: Container): boolean {
  const sc = effectiveSecurityContext(pod, container);
  return sc.runAsNonRoot === true && sc.runAsUser === undefined;
}

/**
 * verifyRunAsNonRoot returns the kubelet's error when runAsNonRoot is set and the container
 * would run as root, or undefined: an explicit runAsUser decides, else the image's user (a user
 * name cannot be verified, an invalid uid is refused).
 */
export function verifyRunAsNonRoot(pod: Pod, container: Container, image: ImageUser): string | undefined {
  const sc = effectiveSecurityContext(pod, container);
  if (sc.runAsNonRoot !== true) return undefined;
  const where = `(pod: "${formatPod(pod)}", container: ${container.name})`;
  if (sc.runAsUser !== undefined) return sc.runAsUser === 0 ? `container's runAsUser breaks non-root policy ${where}` : undefined;
  if (image.uid === undefined && image.username) {
    return `container has runAsNonRoot and image has non-numeric user (${image.username}), cannot verify user is non-root ${where}`;
  }
  if (image.uid === undefined) return undefined;
  if (image.uid === 0) return `container has runAsNonRoot and image will run as root ${where}`;
  if (image.uid < 0 || image.uid > MAX_USER_ID) {
    return `container has runAsNonRoot and image has an invalid user id (${image.uid}). (Must be 1-(${MAX_USER_ID})): must be between 0 and ${MAX_USER_ID}, inclusive ${where}`;
  }
  return undefined;
}
