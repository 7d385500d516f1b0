// A container's environment and argv as the kubelet builds them for the runtime
// (pkg/kubelet/kubelet_pods.go makeEnvironmentVariables, pkg/kubelet/container/helpers.go
// ExpandContainerCommandAndArgs): envFrom first, then env in order; literal values expand
// $(VAR) against what is defined so far; configMapKeyRef and secretKeyRef read the pod's
// namespace; fieldRef and resourceFieldRef read the pod. A missing required object or key fails
// the container with the kubelet's message (the caller makes it CreateContainerConfigError).
// Values are bytes, as Go strings are: a Secret's value that is not UTF-8 reaches the runtime as
// its exact bytes (kubernetes#139168), through $(VAR) references too. While the environment is
// built, each value is held as a "byte string" (one char per byte, latin1), which the ASCII-only
// $(VAR) syntax expands exactly as Go expands bytes.
import { isUtf8 } from "node:buffer";
import { allContainers } from "../api/pod-rules.js";
import type { Container, EnvFromSource, EnvVarSource, Pod } from "../api/types.js";
import { expandString } from "../probe/expand.js";
import type { KeyValue } from "../runtime/runtime.js";
import { ConfigObjectError, configMapBytes, secretBytes, type ConfigObjects } from "../volumes/config-objects.js";
import { containerResourceValue, podFieldValue, type NodeAllocatable, type PodAddresses } from "../volumes/downward-api.js";
import { ANNOTATION_CONFIG_SOURCE } from "../api/mirror-pod.js";
import { SERVICES_NOT_READ, serviceEnvVars, type ServiceSource } from "./service-env.js";

/** EnvContext is what env resolution reads besides the container. */
export interface EnvContext {
  pod: Pod;
  addresses: PodAddresses;
  objects: ConfigObjects;
  node: NodeAllocatable;
  /** The cluster's services (cluster mode); none: no service variables, as a kubelet without an API server. */
  services?: ServiceSource;
}

/** EnvWarning is a kubelet event raised while resolving (InvalidEnvironmentVariableNames); it never carries a value. */
export interface EnvWarning {
  reason: string;
  message: string;
}

/** EnvResult is the resolved environment, or the kubelet's error text for a missing required source. */
export type EnvResult =
  | { ok: true; env: KeyValue[]; warnings: EnvWarning[] }
  | { ok: false; message: string; warnings: EnvWarning[] };

// util/validation IsEnvVarName, which makeEnvironmentVariables applies to envFrom keys.
const ENV_VAR_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

/** isEnvVarName reports whether an envFrom key may become a variable (IsEnvVarName). */
export function isEnvVarName(name: string): boolean {
  return ENV_VAR_NAME.test(name) && name !== "." && name !== ".." && !name.startsWith("..");
}

/** EnvError is a reference of env or envFrom that cannot be resolved (the kubelet's makeEnvironmentVariables errors). */
class EnvError extends Error {
  override readonly name = "EnvError";
}

// ObjectReader fetches each referenced object once per resolution, as makeEnvironmentVariables caches them.
class ObjectReader {
  private readonly configMaps = new Map<string, Map<string, Buffer> | undefined>();
  private readonly secrets = new Map<string, Map<string, Buffer> | undefined>();
  constructor(
    private readonly objects: ConfigObjects,
    private readonly namespace: string,
  ) {}

  configMap(name: string): Map<string, Buffer> | undefined {
    if (!this.configMaps.has(name)) {
      const cm = this.objects.configMap(this.namespace, name);
      this.configMaps.set(name, cm ? configMapBytes(cm) : undefined);
    }
    return this.configMaps.get(name);
  }

  secret(name: string): Map<string, Buffer> | undefined {
    if (!this.secrets.has(name)) {
      const s = this.objects.secret(this.namespace, name);
      this.secrets.set(name, s ? secretBytes(s) : undefined);
    }
    return this.secrets.get(name);
  }
}

/** byteString holds text's UTF-8 bytes one char per byte (see the file comment). */
function byteString(text: string): string {
  return Buffer.from(text, "utf8").toString("latin1");
}

/** keyValue turns a byte-string value into a KeyValue, with its exact bytes when they are not UTF-8. */
function keyValue(key: string, bytes: string): KeyValue {
  const raw = Buffer.from(bytes, "latin1");
  const value = raw.toString("utf8");
  return isUtf8(raw) ? { key, value } : { key, value, valueBase64: raw.toString("base64") };
}

/**
 * serviceVariables are the service variables the pod sees, or the kubelet's error while the
 * services were never read (a static pod, from a manifest, does not wait for them).
 */
function serviceVariables(ctx: EnvContext): Map<string, string> | string {
  if (ctx.services === undefined) return new Map();
  const list = ctx.services.services();
  const fromApi = ctx.pod.metadata.annotations?.[ANNOTATION_CONFIG_SOURCE] === "api";
  if (list === undefined) return fromApi ? SERVICES_NOT_READ : new Map();
  const links = (ctx.pod.spec as { enableServiceLinks?: boolean }).enableServiceLinks !== false;
  return serviceEnvVars(list, ctx.pod.metadata.namespace ?? "default", links);
}

/** resolveContainerEnv builds a container's environment as makeEnvironmentVariables does. */
export function resolveContainerEnv(ctx: EnvContext, container: Container): EnvResult {
  const namespace = ctx.pod.metadata.namespace ?? "default";
  const reader = new ObjectReader(ctx.objects, namespace);
  // Names are ASCII (validation), so a name is its own byte string; values are byte strings.
  const vars = new Map<string, string>();
  const warnings: EnvWarning[] = [];
  const services = serviceVariables(ctx);
  if (typeof services === "string") return { ok: false, message: services, warnings };
  try {
    for (const source of container.envFrom ?? []) importEnvFrom(source, reader, namespace, vars, warnings);
    for (const e of container.env ?? []) {
      // $(VAR) sees the variables defined so far, then the service variables (MappingFuncFor(tmpEnv, serviceEnv)).
      const value = e.valueFrom === undefined ? expandString(byteString(e.value ?? ""), services.size === 0 ? vars : new Map([...services, ...vars])) : valueFrom(ctx, container, e.valueFrom, reader, namespace);
      if (value !== undefined) vars.set(e.name, value);
    }
  } catch (err) {
    // An object that could not be read fails the container even when the reference is optional.
    if (err instanceof EnvError || err instanceof ConfigObjectError) return { ok: false, message: err.message, warnings };
    throw err;
  }
  // The service variables come after the container's own, which win over them.
  const env = [...vars].map(([key, value]) => keyValue(key, value));
  for (const [key, value] of services) if (!vars.has(key)) env.push({ key, value });
  return { ok: true, env, warnings };
}

function importEnvFrom(source: EnvFromSource, reader: ObjectReader, namespace: string, vars: Map<string, string>, warnings: EnvWarning[]): void {
  const ref = source.configMapRef ?? source.secretRef;
  if (!ref) return;
  const name = ref.name ?? "";
  const isConfigMap = source.configMapRef !== undefined;
  const data = isConfigMap ? reader.configMap(name) : reader.secret(name);
  if (!data) {
    if (ref.optional === true) return;
    throw new EnvError(`${isConfigMap ? "configmap" : "secret"} "${name}" not found`);
  }
  const invalid: string[] = [];
  for (const [key, bytes] of data) {
    const varName = (source.prefix ?? "") + key;
    if (!isEnvVarName(varName)) invalid.push(varName);
    else vars.set(varName, bytes.toString("latin1"));
  }
  if (invalid.length > 0) {
    const kind = isConfigMap ? "configMap" : "secret";
    warnings.push({
      reason: "InvalidEnvironmentVariableNames",
      message: `Keys [${invalid.sort().join(", ")}] from the EnvFrom ${kind} ${namespace}/${name} were skipped since they are considered invalid environment variable names.`,
    });
  }
}

// valueFrom resolves one reference to a byte string; undefined means an optional reference that is absent (the variable is skipped).
function valueFrom(ctx: EnvContext, container: Container, from: EnvVarSource, reader: ObjectReader, namespace: string): string | undefined {
  if (from.fieldRef) return byteString(podFieldValue(ctx.pod, from.fieldRef.fieldPath, ctx.addresses) ?? "");
  if (from.resourceFieldRef) {
    const target = from.resourceFieldRef.containerName
      ? allContainers(ctx.pod).find((c) => c.name === from.resourceFieldRef!.containerName)
      : container;
    return byteString(containerResourceValue(from.resourceFieldRef, target ?? container, ctx.node));
  }
  const keyRef = from.configMapKeyRef ?? from.secretKeyRef;
  if (!keyRef) return undefined;
  const isConfigMap = from.configMapKeyRef !== undefined;
  const name = keyRef.name ?? "";
  const data = isConfigMap ? reader.configMap(name) : reader.secret(name);
  if (!data) {
    if (keyRef.optional === true) return undefined;
    throw new EnvError(`${isConfigMap ? "configmap" : "secret"} "${name}" not found`);
  }
  const bytes = data.get(keyRef.key);
  if (bytes === undefined) {
    if (keyRef.optional === true) return undefined;
    throw new EnvError(`couldn't find key ${keyRef.key} in ${isConfigMap ? "ConfigMap" : "Secret"} ${namespace}/${name}`);
  }
  return bytes.toString("latin1");
}

/**
 * expandCommandAndArgs expands $(VAR) in command and args against the resolved env. Command and
 * args are CRI strings (unlike env values): a value that is not UTF-8 comes in as its text.
 */
export function expandCommandAndArgs(container: Container, env: readonly KeyValue[]): { command: string[]; args: string[] } {
  const vars = new Map(env.map((e) => [e.key, e.value]));
  return {
    command: (container.command ?? []).map((c) => expandString(c, vars)),
    args: (container.args ?? []).map((a) => expandString(a, vars)),
  };
}
