// Validation of env[].valueFrom and envFrom with the API server's field paths and messages
// (pkg/apis/core/validation/validation.go validateEnvVarValueFrom, validateObjectFieldSelector,
// validateContainerResourceFieldSelector, validateContainerResourceDivisor,
// validateConfigMapKeySelector, validateSecretKeySelector, ValidateEnvFrom).
import {
  childPath as child, indexPath as index, invalid, isDNS1123Subdomain, isRelaxedEnvVarName, maxLenError, notSupported, regexError, required,
  type FieldError,
} from "./field-errors.js";
import { parseQuantityExact } from "./quantity.js";
import type { ConfigMapKeySelector, EnvFromSource, EnvVar, ObjectFieldSelector, ResourceFieldSelector } from "./types.js";
import { isQualifiedName } from "./validation-object-meta.js";

/** ENV_FIELD_PATHS are the pod fields an env fieldRef may name (validEnvDownwardAPIFieldPathExpressions). */
export const ENV_FIELD_PATHS: readonly string[] = [
  "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName",
  "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs",
];

/** VOLUME_FIELD_PATHS are the pod fields a downwardAPI volume item may name (validVolumeDownwardAPIFieldPathExpressions). */
export const VOLUME_FIELD_PATHS: readonly string[] = ["metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"];

/** RESOURCE_FIELD_PATHS are the container resources a resourceFieldRef may name (validContainerResourceFieldPathExpressions). */
export const RESOURCE_FIELD_PATHS: readonly string[] = [
  "limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu", "requests.ephemeral-storage", "requests.memory",
];

// The field labels ConvertDownwardAPIFieldLabel knows (pkg/apis/core/v1/conversion.go).
const CONVERTIBLE_FIELD_PATHS: ReadonlySet<string> = new Set([
  "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName",
  "spec.restartPolicy", "spec.serviceAccountName", "spec.schedulerName", "status.phase", "status.hostIP", "status.hostIPs",
  "status.podIP", "status.podIPs",
]);

const CPU_DIVISORS: ReadonlySet<number> = new Set([0.001, 1]);
const BYTE_DIVISORS: ReadonlySet<number> = new Set(
  [1, 1e3, 1e6, 1e9, 1e12, 1e15, 1e18, 2 ** 10, 2 ** 20, 2 ** 30, 2 ** 40, 2 ** 50, 2 ** 60],
);

const CONFIG_KEY_RE = /^[-._a-zA-Z0-9]+$/;

/** splitSubscriptedPath splits `metadata.labels['k']` into path and subscript (fieldpath.SplitMaybeSubscriptedPath). */
export function splitSubscriptedPath(fieldPath: string): { path: string; subscript?: string } {
  const m = /^([^[]*)\['(.*)'\]$/.exec(fieldPath);
  return m ? { path: m[1]!, subscript: m[2]! } : { path: fieldPath };
}

/** isConfigMapKey checks a ConfigMap or Secret data key (util/validation IsConfigMapKey). */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (Buffer.byteLength(value) > 253) errs.push(maxLenError(253));
  if (!CONFIG_KEY_RE.test(value)) {
    errs.push(regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", "[-._a-zA-Z0-9]+", "key.name", "KEY_NAME", "key-name"));
  }
  if (value === ".") errs.push("must not be '.'");
  else if (value === "..") errs.push("must not be '..'");
  else if (value.startsWith("..")) errs.push("must not start with '..'");
  return errs;
}

/** validateObjectFieldSelector checks a fieldRef against the allowed paths (validateObjectFieldSelector). */
export function validateObjectFieldSelector(fs: ObjectFieldSelector, allowed: readonly string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!fs.apiVersion) return [required(child(path, "apiVersion"))];
  if (!fs.fieldPath) return [required(child(path, "fieldPath"))];
  const { path: field, subscript } = splitSubscriptedPath(fs.fieldPath);
  if (fs.apiVersion !== "v1") return [invalid(child(path, "fieldPath"), fs.fieldPath, `error converting fieldPath: unsupported pod version: ${fs.apiVersion}`)];
  if (!CONVERTIBLE_FIELD_PATHS.has(field) || (subscript !== undefined && field !== "metadata.labels" && field !== "metadata.annotations")) {
    return [invalid(child(path, "fieldPath"), fs.fieldPath, `error converting fieldPath: field label not supported: ${fs.fieldPath}`)];
  }
  if (subscript !== undefined) {
    const key = field === "metadata.annotations" ? subscript.toLowerCase() : subscript;
    errs.push(...isQualifiedName(key).map((m) => invalid(path, subscript, m)));
  } else if (!allowed.includes(field)) {
    errs.push(notSupported(child(path, "fieldPath"), field, [...allowed].sort()));
  }
  return errs;
}

/**
 * validateResourceFieldSelector checks a resourceFieldRef (validateContainerResourceFieldSelector
 * and validateContainerResourceDivisor; a volume item must name its container).
 */
export function validateResourceFieldSelector(fs: ResourceFieldSelector, path: string, volume: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (volume && !fs.containerName) errs.push(required(child(path, "containerName")));
  if (!fs.resource) return [...errs, required(child(path, "resource"))];
  const hugePages = /^(limits|requests)\.hugepages-/.test(fs.resource);
  if (!RESOURCE_FIELD_PATHS.includes(fs.resource) && !hugePages) return [...errs, notSupported(child(path, "resource"), fs.resource, RESOURCE_FIELD_PATHS)];
  if (fs.divisor === undefined || fs.divisor === "") return errs;
  const divisor = parseQuantityExact(String(fs.divisor));
  // A zero divisor is the unset one (the API server defaults it to "0"): nothing to check.
  if (divisor === 0) return errs;
  const kind = fs.resource.replace(/^(limits|requests)\./, "");
  const p = child(path, "divisor");
  // The API server reports the resource name as the bad value here.
  if (kind === "cpu" && (divisor === undefined || !CPU_DIVISORS.has(divisor))) {
    errs.push(invalid(p, fs.resource, "only divisor's values 1m and 1 are supported with the cpu resource"));
  } else if (kind === "memory" && (divisor === undefined || !BYTE_DIVISORS.has(divisor))) {
    errs.push(invalid(p, fs.resource, "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the memory resource"));
  } else if (kind === "ephemeral-storage" && (divisor === undefined || !BYTE_DIVISORS.has(divisor))) {
    errs.push(invalid(p, fs.resource, "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the local ephemeral storage resource"));
  }
  return errs;
}

// validateConfigMapKeySelector / validateSecretKeySelector: name and key.
function validateKeySelector(s: ConfigMapKeySelector, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = s.name ?? "";
  if (name === "") errs.push(required(child(path, "name")));
  else errs.push(...isDNS1123Subdomain(name).map((m) => invalid(child(path, "name"), name, m)));
  if (s.key === "") errs.push(required(child(path, "key")));
  else errs.push(...isConfigMapKey(s.key).map((m) => invalid(child(path, "key"), s.key, m)));
  return errs;
}

/** validateEnvValueFrom checks one env var's valueFrom: exactly one source, each valid (validateEnvVarValueFrom). */
export function validateEnvValueFrom(v: EnvVar, path: string): FieldError[] {
  const from = v.valueFrom;
  if (!from) return [];
  const errs: FieldError[] = [];
  let sources = 0;
  if (from.fieldRef) {
    sources++;
    errs.push(...validateObjectFieldSelector(from.fieldRef, ENV_FIELD_PATHS, child(path, "fieldRef")));
  }
  if (from.resourceFieldRef) {
    sources++;
    errs.push(...validateResourceFieldSelector(from.resourceFieldRef, child(path, "resourceFieldRef"), false));
  }
  if (from.configMapKeyRef) {
    sources++;
    errs.push(...validateKeySelector(from.configMapKeyRef, child(path, "configMapKeyRef")));
  }
  if (from.secretKeyRef) {
    sources++;
    errs.push(...validateKeySelector(from.secretKeyRef, child(path, "secretKeyRef")));
  }
  if (sources === 0) errs.push(invalid(path, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"));
  else if (sources > 1) errs.push(invalid(path, "", "may not have more than one field specified at a time"));
  if (v.value !== undefined && v.value !== "" && sources > 0) errs.push(invalid(path, "", "may not be specified when `value` is not empty"));
  return errs;
}

/** validateEnvFrom checks envFrom entries (ValidateEnvFrom; its "one of" errors name the list itself). */
export function validateEnvFrom(envFrom: readonly EnvFromSource[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  envFrom.forEach((e, i) => {
    const p = index(path, i);
    if (e.prefix) errs.push(...isRelaxedEnvVarName(e.prefix).map((m) => invalid(child(p, "prefix"), e.prefix, m)));
    const refs = [["configMapRef", e.configMapRef], ["secretRef", e.secretRef]] as const;
    let sources = 0;
    for (const [field, ref] of refs) {
      if (!ref) continue;
      sources++;
      const name = ref.name ?? "";
      if (name === "") errs.push(required(child(child(p, field), "name")));
      else errs.push(...isDNS1123Subdomain(name).map((m) => invalid(child(child(p, field), "name"), name, m)));
    }
    if (sources === 0) errs.push(invalid(path, "", "must specify one of: `configMapRef` or `secretRef`"));
    else if (sources > 1) errs.push(invalid(path, "", "may not have more than one field specified at a time"));
  });
  return errs;
}
