// Validation of pod volumes and container volumeMounts with the API server's field paths and
// messages (pkg/apis/core/validation/validation.go ValidateVolumes, validateVolumeSource,
// validateKeyToPath, validateDownwardAPIVolumeFile, validateProjectionSources,
// validateHostPathVolumeSource, ValidateVolumeMounts, validateLocalDescendingPath,
// validateLocalNonReservedPath, validatePathNoBacksteps). Only the sources probelet mounts are
// accepted; any other source is refused by name.
import {
  childPath as child, duplicate, forbidden, indexPath as index, invalid, isDNS1123Label, isDNS1123Subdomain, notFound, notSupported, required,
  type FieldError,
} from "./field-errors.js";
import type { Container, DownwardAPIVolumeFile, KeyToPath, ServiceAccountTokenProjection, Volume, VolumeProjection } from "./types.js";
import { VOLUME_FIELD_PATHS, validateObjectFieldSelector, validateResourceFieldSelector } from "./validation-env-sources.js";

/** VolumeValidationOptions say what the node that validates can mount. */
export interface VolumeValidationOptions {
  /**
   * The node can request service-account tokens from an API server (cluster mode):
   * serviceAccountToken projections are checked as the API server checks them. Without it they are
   * refused (standalone probelet has no token issuer).
   */
  tokenRequests?: boolean;
}

/** HOST_PATH_TYPES are the hostPath types the API accepts ("" skips the check). */
export const HOST_PATH_TYPES: readonly string[] = ["", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"];

/** SUPPORTED_VOLUME_SOURCES are the volume sources probelet mounts. */
export const SUPPORTED_VOLUME_SOURCES: readonly string[] = ["emptyDir", "hostPath", "configMap", "secret", "downwardAPI", "projected"];

const FILE_MODE_ERROR = "must be a number between 0 and 0777 (octal), both inclusive";

function validateMode(mode: number | undefined, path: string): FieldError[] {
  return mode !== undefined && (mode < 0 || mode > 0o777) ? [invalid(path, mode, FILE_MODE_ERROR)] : [];
}

// validatePathNoBacksteps: no ".." element.
function noBacksteps(p: string, path: string): FieldError[] {
  return p.split("/").includes("..") ? [invalid(path, p, "must not contain '..'")] : [];
}

/** validateLocalDescendingPath: relative, without "..". */
export function validateLocalDescendingPath(p: string, path: string): FieldError[] {
  if (p.startsWith("/")) return [invalid(path, p, "must be a relative path"), ...noBacksteps(p, path)];
  return noBacksteps(p, path);
}

// validateLocalNonReservedPath: a descending path that does not start with "..".
function validateLocalNonReservedPath(p: string, path: string): FieldError[] {
  const errs = validateLocalDescendingPath(p, path);
  if (p.startsWith("..")) errs.push(invalid(path, p, "must not start with '..'"));
  return errs;
}

function validateKeyToPath(item: KeyToPath, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (item.key === "") errs.push(required(child(path, "key")));
  if (item.path === "") errs.push(required(child(path, "path")));
  errs.push(...validateLocalNonReservedPath(item.path, child(path, "path")));
  errs.push(...validateMode(item.mode, child(path, "mode")));
  return errs;
}

function validateDownwardAPIFile(file: DownwardAPIVolumeFile, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (file.path === "") errs.push(required(child(path, "path")));
  errs.push(...validateLocalNonReservedPath(file.path, child(path, "path")));
  if (file.fieldRef) {
    errs.push(...validateObjectFieldSelector(file.fieldRef, VOLUME_FIELD_PATHS, child(path, "fieldRef")));
    if (file.resourceFieldRef) errs.push(invalid(path, "resource", "fieldRef and resourceFieldRef can not be specified simultaneously"));
  } else if (file.resourceFieldRef) {
    errs.push(...validateResourceFieldSelector(file.resourceFieldRef, child(path, "resourceFieldRef"), true));
  } else {
    errs.push(required(path, "one of fieldRef and resourceFieldRef is required"));
  }
  errs.push(...validateMode(file.mode, child(path, "mode")));
  return errs;
}

function validateObjectName(name: string | undefined, path: string): FieldError[] {
  if (!name) return [required(path)];
  return isDNS1123Subdomain(name).map((m) => invalid(path, name, m));
}

// validateServiceAccountTokenProjection: a lifetime of 10 minutes to 2^32 seconds and a local
// path. The API server reports a missing path at the projected volume's own path (fldPath, not
// the source's), and so does this.
function validateServiceAccountTokenProjection(projection: ServiceAccountTokenProjection, path: string, volumePath: string): FieldError[] {
  const errs: FieldError[] = [];
  const exp = projection.expirationSeconds;
  if (exp === undefined) errs.push(required(child(path, "expirationSeconds")));
  else if (exp < 10 * 60) errs.push(invalid(child(path, "expirationSeconds"), exp, "may not specify a duration less than 10 minutes"));
  else if (exp > 2 ** 32) errs.push(invalid(child(path, "expirationSeconds"), exp, "may not specify a duration larger than 2^32 seconds"));
  if (projection.path === "") errs.push(required(child(volumePath, "path")));
  else errs.push(...validateLocalNonReservedPath(projection.path, child(volumePath, "path")));
  return errs;
}

// validateProjectionSources: one source kind per entry, no path written twice; a
// serviceAccountToken source only where the node can request tokens (cluster mode).
function validateProjectionSources(sources: readonly VolumeProjection[], path: string, options: VolumeValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  const paths = new Set<string>();
  const claim = (p: string, at: string): void => {
    if (paths.has(p)) errs.push(invalid(at, p, "conflicting duplicate paths"));
    paths.add(p);
  };
  sources.forEach((s, i) => {
    const p = index(path, i);
    const kinds = Object.keys(s).filter((k) => (s as Record<string, unknown>)[k] !== undefined);
    if (kinds.length > 1) errs.push(forbidden(p, "may not specify more than 1 volume type per source"));
    if (s.serviceAccountToken && options.tokenRequests !== true) errs.push(forbidden(child(p, "serviceAccountToken"), "probelet has no token issuer; serviceAccountToken projections are not supported"));
    else if (s.serviceAccountToken) errs.push(...validateServiceAccountTokenProjection(s.serviceAccountToken, child(p, "serviceAccountToken"), path.slice(0, -".sources".length)));
    const keyed = s.configMap ? (["configMap", s.configMap] as const) : s.secret ? (["secret", s.secret] as const) : undefined;
    if (keyed) {
      const [kind, src] = keyed;
      errs.push(...validateObjectName(src.name, child(child(p, kind), "name")));
      (src.items ?? []).forEach((item, j) => {
        const ip = index(child(child(p, kind), "items"), j);
        errs.push(...validateKeyToPath(item, ip));
        claim(item.path, child(ip, "path"));
      });
    }
    (s.downwardAPI?.items ?? []).forEach((item, j) => {
      const ip = index(child(child(p, "downwardAPI"), "items"), j);
      errs.push(...validateDownwardAPIFile(item, ip));
      claim(item.path, child(ip, "path"));
    });
  });
  return errs;
}

// validateVolumeSource for the sources probelet mounts.
function validateSource(v: Volume, path: string, options: VolumeValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  if (v.hostPath) {
    const hp = child(path, "hostPath");
    if (v.hostPath.path === "") errs.push(required(child(hp, "path")));
    else errs.push(...noBacksteps(v.hostPath.path, child(hp, "path")));
    const type = v.hostPath.type ?? "";
    if (!HOST_PATH_TYPES.includes(type)) errs.push(notSupported(child(hp, "type"), type, HOST_PATH_TYPES));
  }
  if (v.emptyDir?.medium !== undefined && !["", "Memory"].includes(v.emptyDir.medium)) {
    errs.push(notSupported(child(child(path, "emptyDir"), "medium"), v.emptyDir.medium, ["", "Memory"]));
  }
  if (v.configMap) {
    const p = child(path, "configMap");
    errs.push(...validateObjectName(v.configMap.name, child(p, "name")), ...validateMode(v.configMap.defaultMode, child(p, "defaultMode")));
    (v.configMap.items ?? []).forEach((item, i) => errs.push(...validateKeyToPath(item, index(child(p, "items"), i))));
  }
  if (v.secret) {
    const p = child(path, "secret");
    errs.push(...validateObjectName(v.secret.secretName, child(p, "secretName")), ...validateMode(v.secret.defaultMode, child(p, "defaultMode")));
    (v.secret.items ?? []).forEach((item, i) => errs.push(...validateKeyToPath(item, index(child(p, "items"), i))));
  }
  if (v.downwardAPI) {
    const p = child(path, "downwardAPI");
    errs.push(...validateMode(v.downwardAPI.defaultMode, child(p, "defaultMode")));
    (v.downwardAPI.items ?? []).forEach((item, i) => errs.push(...validateDownwardAPIFile(item, index(child(p, "items"), i))));
  }
  if (v.projected) {
    const p = child(path, "projected");
    errs.push(...validateMode(v.projected.defaultMode, child(p, "defaultMode")));
    errs.push(...validateProjectionSources(v.projected.sources ?? [], child(p, "sources"), options));
  }
  return errs;
}

/**
 * validateVolumes checks spec.volumes: names (DNS-1123 labels, unique), exactly one source per
 * volume, each source valid; sources probelet cannot mount are refused by name.
 */
export function validateVolumes(volumes: readonly Volume[], path: string, options: VolumeValidationOptions = {}): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  volumes.forEach((v, i) => {
    const p = index(path, i);
    const name = child(p, "name");
    if (v.name === "") errs.push(required(name));
    else errs.push(...isDNS1123Label(v.name).map((m) => invalid(name, v.name, m)));
    if (names.has(v.name)) errs.push(duplicate(name, v.name));
    names.add(v.name);
    const sources = Object.keys(v).filter((k) => k !== "name" && (v as unknown as Record<string, unknown>)[k] !== undefined);
    if (sources.length === 0) errs.push(required(p, "must specify a volume type"));
    sources.slice(1).forEach((s) => errs.push(forbidden(child(p, s), "may not specify more than 1 volume type")));
    const unsupported = sources.find((s) => !SUPPORTED_VOLUME_SOURCES.includes(s));
    if (unsupported) errs.push(forbidden(child(p, unsupported), `probelet mounts only ${SUPPORTED_VOLUME_SOURCES.join(", ")} volumes`));
    errs.push(...validateSource(v, p, options));
  });
  return errs;
}

/** validateVolumeMounts checks one container's volumeMounts against the pod's volumes (ValidateVolumeMounts). */
export function validateVolumeMounts(container: Container, volumes: readonly Volume[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const known = new Set(volumes.map((v) => v.name));
  const mountPoints = new Set<string>();
  (container.volumeMounts ?? []).forEach((m, i) => {
    const p = index(path, i);
    if (m.name === "") errs.push(required(child(p, "name")));
    else if (!known.has(m.name)) errs.push(notFound(child(p, "name"), m.name));
    if (m.mountPath === "") errs.push(required(child(p, "mountPath")));
    else if (mountPoints.has(m.mountPath)) errs.push(invalid(child(p, "mountPath"), m.mountPath, "must be unique"));
    mountPoints.add(m.mountPath);
    if (m.subPath) errs.push(...validateLocalDescendingPath(m.subPath, child(p, "subPath")));
  });
  return errs;
}
