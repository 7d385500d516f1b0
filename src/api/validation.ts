// API validation of probes and pods (spec §A.3), following the API server's validateProbe /
// validateContainers family (pkg/apis/core/validation/validation.go) with its exact detail
// strings. Validation expects DEFAULTED objects (§A.2): defaultAndValidatePod does both, in order.
// Every function returns all problems at once and never throws.
import { defaultPod } from "./defaults.js";
import {
  childPath as child, duplicate, forbidden, indexPath as index, invalid, isDNS1123Label, isDNS1123Subdomain,
  isHTTPHeaderName, isRelaxedEnvVarName, isValidPortName, isValidPortNum, notSupported, required, tooLong,
  type FieldError,
} from "./field-errors.js";
import { parseQuantity, QUANTITY_SYNTAX_ERROR } from "./quantity.js";
import { validatePodProbeExtensions } from "./probe-extensions.js";
import { validatePodRestartRules } from "./validation-restart-rules.js";
import { validateEnvFrom, validateEnvValueFrom } from "./validation-env-sources.js";
import { validateVolumeMounts, validateVolumes, type VolumeValidationOptions } from "./validation-volumes.js";
import { validateContainerSecurityContext, validatePodSecurityContext } from "./validation-security-context.js";
import { validateObjectMetaLabelsAndAnnotations } from "./validation-object-meta.js";
import type {
  Container, ContainerPort, EnvVar, HTTPGetAction, IntOrString, Lifecycle, LifecycleHandler, Pod, Probe,
  ProbeHandler,
} from "./types.js";

/** ValidationOptions select version-dependent rules (defaults follow Kubernetes 1.37, docs/feature-gates.md) and what the node can mount. */
export interface ValidationOptions extends VolumeValidationOptions {
  /**
   * ContainerRestartRules (beta, on by default since 1.35): any container may set restartPolicy
   * Always/Never/OnFailure. Off: regular containers may not set it and init containers accept
   * only "Always" (the classic rules of §A.3.12).
   */
  containerRestartRules?: boolean;
  /**
   * RestartAllContainersOnContainerExits (beta, on by default since 1.36): a rule may have the
   * action RestartAllContainers, and sidecars may have rules. Off: only Restart, and a sidecar's
   * rules are forbidden.
   */
  restartAllContainers?: boolean;
}

const MORE_THAN_ONE = "may not specify more than 1 handler type";
const PLAIN_INIT = "may not be set for init containers without restartPolicy=Always";
// Enumerations as the API server lists them in "supported values" (sorted where it sorts).
const CONTAINER_RESTART_POLICIES = ["Always", "Never", "OnFailure"];
const POD_RESTART_POLICIES = ["Always", "OnFailure", "Never"];
const PULL_POLICIES = ["Always", "IfNotPresent", "Never"];
const DNS_POLICIES = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"];
const PORT_PROTOCOLS = ["SCTP", "TCP", "UDP"];

/** validatePortNumOrName checks an int-or-string port (ValidatePortNumOrName, §A.3.6). */
export function validatePortNumOrName(port: IntOrString, path: string): FieldError[] {
  const messages = typeof port === "number" ? isValidPortNum(port) : isValidPortName(port);
  return messages.map((m) => invalid(path, port, m));
}

function validateHTTPGet(action: HTTPGetAction, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!action.path) errs.push(required(child(path, "path")));
  errs.push(...validatePortNumOrName(action.port, child(path, "port")));
  const scheme = action.scheme ?? "";
  if (scheme !== "HTTP" && scheme !== "HTTPS") errs.push(notSupported(child(path, "scheme"), scheme, ["HTTP", "HTTPS"]));
  for (const header of action.httpHeaders ?? []) {
    for (const m of isHTTPHeaderName(header.name)) errs.push(invalid(child(path, "httpHeaders"), header.name, m));
  }
  return errs;
}

// The union of probe and lifecycle handler fields, so one validateHandler serves both.
type AnyHandler = ProbeHandler & Pick<LifecycleHandler, "sleep">;

// validateHandler (§A.3.1): handlers are inspected in the fixed order exec → httpGet → tcpSocket
// → grpc → sleep; the first present one is validated, each later one is Forbidden on its own path.
function validateHandler(handler: AnyHandler, path: string, gracePeriod: number | undefined): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  const visit = (name: string, present: boolean, check: () => FieldError[]): void => {
    if (!present) return;
    if (count > 0) {
      errs.push(forbidden(child(path, name), MORE_THAN_ONE));
      return;
    }
    count++;
    errs.push(...check());
  };
  visit("exec", handler.exec !== undefined, () =>
    (handler.exec?.command ?? []).length === 0 ? [required(child(child(path, "exec"), "command"))] : []);
  visit("httpGet", handler.httpGet !== undefined, () => validateHTTPGet(handler.httpGet!, child(path, "httpGet")));
  visit("tcpSocket", handler.tcpSocket !== undefined, () =>
    validatePortNumOrName(handler.tcpSocket!.port, child(child(path, "tcpSocket"), "port")));
  visit("grpc", handler.grpc !== undefined, () =>
    validatePortNumOrName(handler.grpc!.port, child(child(path, "grpc"), "port")));
  visit("sleep", handler.sleep !== undefined, () => validateSleep(handler.sleep!.seconds, child(path, "sleep"), gracePeriod));
  if (count === 0) errs.push(required(path, "must specify a handler type"));
  return errs;
}

// validateSleepAction (PodLifecycleSleepActionAllowZero, GA and removed by 1.37): 0..gracePeriod.
function validateSleep(seconds: number, path: string, gracePeriod: number | undefined): FieldError[] {
  if (gracePeriod === undefined || (seconds >= 0 && seconds <= gracePeriod)) return [];
  return [invalid(path, seconds, `must be non-negative and less than terminationGracePeriodSeconds (${gracePeriod})`)];
}

function nonNegative(value: number | undefined, path: string): FieldError[] {
  return value !== undefined && value < 0 ? [invalid(path, value, "must be greater than or equal to 0")] : [];
}

/**
 * validateProbe checks one defaulted probe at `path` (e.g. `spec.containers[0].livenessProbe`,
 * or "" for a standalone probe) with the rules for its type (§A.3.1–11): handler count and
 * contents, non-negative numbers, probe terminationGracePeriodSeconds > 0, successThreshold 1
 * for liveness/startup, and no terminationGracePeriodSeconds on readiness. `probeType` is the
 * same union as prober's ProbeType (kept literal so the api layer does not import the prober).
 */
export function validateProbe(probe: Probe, path: string, probeType: "liveness" | "readiness" | "startup"): FieldError[] {
  const errs = validateHandler(probe, path, undefined);
  for (const name of ["initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"] as const) {
    errs.push(...nonNegative(probe[name], child(path, name)));
  }
  const grace = probe.terminationGracePeriodSeconds;
  if (grace !== undefined && grace <= 0) errs.push(invalid(child(path, "terminationGracePeriodSeconds"), grace, "must be greater than 0"));
  if (probeType !== "readiness" && probe.successThreshold !== 1) {
    errs.push(invalid(child(path, "successThreshold"), probe.successThreshold ?? 0, "must be 1"));
  }
  if (probeType === "readiness" && grace !== undefined) {
    errs.push(invalid(child(path, "terminationGracePeriodSeconds"), grace, "must not be set for readinessProbes"));
  }
  return errs;
}

function validateLifecycle(lifecycle: Lifecycle, path: string, gracePeriod: number | undefined): FieldError[] {
  const errs: FieldError[] = [];
  if (lifecycle.postStart) errs.push(...validateHandler(lifecycle.postStart, child(path, "postStart"), gracePeriod));
  if (lifecycle.preStop) errs.push(...validateHandler(lifecycle.preStop, child(path, "preStop"), gracePeriod));
  return errs;
}

function validatePorts(ports: readonly ContainerPort[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const p = index(path, i);
    if (port.name) {
      const messages = isValidPortName(port.name);
      if (messages.length > 0) errs.push(...messages.map((m) => invalid(child(p, "name"), port.name, m)));
      else if (names.has(port.name)) errs.push(duplicate(child(p, "name"), port.name));
      else names.add(port.name);
    }
    if (port.containerPort === 0) errs.push(required(child(p, "containerPort")));
    else errs.push(...isValidPortNum(port.containerPort).map((m) => invalid(child(p, "containerPort"), port.containerPort, m)));
    if (port.hostPort) errs.push(...isValidPortNum(port.hostPort).map((m) => invalid(child(p, "hostPort"), port.hostPort, m)));
    if (!port.protocol) errs.push(required(child(p, "protocol")));
    else if (!PORT_PROTOCOLS.includes(port.protocol)) errs.push(notSupported(child(p, "protocol"), port.protocol, PORT_PROTOCOLS));
  });
  return errs;
}

// ValidateEnv with RelaxedEnvironmentVariableValidation (GA): any printable ASCII but '='.
function validateEnv(env: readonly EnvVar[], path: string): FieldError[] {
  return env.flatMap((v, i) => {
    const p = child(index(path, i), "name");
    const nameErrs = v.name === "" ? [required(p)] : isRelaxedEnvVarName(v.name).map((m) => invalid(p, v.name, m));
    return [...nameErrs, ...validateEnvValueFrom(v, child(index(path, i), "valueFrom"))];
  });
}

/**
 * validateResources checks resources.limits and resources.requests: every value a quantity
 * (the decoder's message), none negative, no request above its limit (ValidateResourceRequirements;
 * keys render as limits[memory]).
 */
function validateResources(resources: Record<string, unknown>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const parsed: Record<"limits" | "requests", Map<string, { text: string; value: number }>> = { limits: new Map(), requests: new Map() };
  for (const kind of ["limits", "requests"] as const) {
    const list = resources[kind];
    if (list === undefined || list === null) continue;
    if (typeof list !== "object" || Array.isArray(list)) {
      errs.push(invalid(child(path, kind), list, "must be a map of resource names to quantities"));
      continue;
    }
    for (const [name, raw] of Object.entries(list as Record<string, unknown>)) {
      const p = `${child(path, kind)}[${name}]`;
      const text = typeof raw === "number" ? String(raw) : typeof raw === "string" ? raw : undefined;
      const value = text === undefined ? undefined : parseQuantity(text);
      if (text === undefined || value === undefined) errs.push(invalid(p, raw, QUANTITY_SYNTAX_ERROR));
      else if (value < 0) errs.push(invalid(p, text, "must be greater than or equal to 0"));
      else parsed[kind].set(name, { text, value });
    }
  }
  for (const [name, request] of parsed.requests) {
    const limit = parsed.limits.get(name);
    if (limit && request.value > limit.value) {
      errs.push(invalid(`${child(path, "requests")}[${name}]`, request.text, `must be less than or equal to ${name} limit of ${limit.text}`));
    }
  }
  return errs;
}

/** MAX_TERMINATION_MESSAGE_PATH_LENGTH bounds terminationMessagePath (Linux PATH_MAX). */
const MAX_TERMINATION_MESSAGE_PATH_LENGTH = 4096;

/**
 * validateTerminationMessagePath: the API server checks nothing here and a relative path fails
 * only when the runtime binds the file; probelet refuses it at admission, in the API server's
 * words, as it refuses a path longer than PATH_MAX. An empty path (no file) is allowed.
 */
function validateTerminationMessagePath(value: string, path: string): FieldError[] {
  if (value === "") return [];
  if (value.length > MAX_TERMINATION_MESSAGE_PATH_LENGTH) return [tooLong(path, MAX_TERMINATION_MESSAGE_PATH_LENGTH)];
  return value.startsWith("/") ? [] : [invalid(path, value, "must be an absolute path")];
}

// validateContainerCommon: the checks shared by regular and init containers.
function validateContainerCommon(c: Container, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = child(path, "name");
  if (c.name === "") errs.push(required(name));
  else errs.push(...isDNS1123Label(c.name).map((m) => invalid(name, c.name, m)));
  // validateContainerCommon: an image is required on every container (the process runtime ignores it).
  if ((c.image ?? "") === "") errs.push(required(child(path, "image")));
  errs.push(...validateTerminationMessagePath(c.terminationMessagePath ?? "", child(path, "terminationMessagePath")));
  const tmp = c.terminationMessagePolicy ?? "";
  if (tmp === "") errs.push(required(child(path, "terminationMessagePolicy")));
  else if (tmp !== "File" && tmp !== "FallbackToLogsOnError") {
    errs.push(notSupported(child(path, "terminationMessagePolicy"), tmp, ["File", "FallbackToLogsOnError"]));
  }
  errs.push(...validatePorts(c.ports ?? [], child(path, "ports")));
  errs.push(...validateEnv(c.env ?? [], child(path, "env")));
  errs.push(...validateEnvFrom(c.envFrom ?? [], child(path, "envFrom")));
  if (c.resources) errs.push(...validateResources(c.resources, child(path, "resources")));
  errs.push(...validateContainerSecurityContext(c.securityContext, child(path, "securityContext")));
  const pull = c.imagePullPolicy ?? "";
  if (pull === "") errs.push(required(child(path, "imagePullPolicy")));
  else if (!PULL_POLICIES.includes(pull)) errs.push(notSupported(child(path, "imagePullPolicy"), pull, PULL_POLICIES));
  return errs;
}

function validateProbesAndLifecycle(c: Container, path: string, gracePeriod: number | undefined): FieldError[] {
  const errs: FieldError[] = [];
  if (c.lifecycle) errs.push(...validateLifecycle(c.lifecycle, child(path, "lifecycle"), gracePeriod));
  if (c.livenessProbe) errs.push(...validateProbe(c.livenessProbe, child(path, "livenessProbe"), "liveness"));
  if (c.readinessProbe) errs.push(...validateProbe(c.readinessProbe, child(path, "readinessProbe"), "readiness"));
  if (c.startupProbe) errs.push(...validateProbe(c.startupProbe, child(path, "startupProbe"), "startup"));
  return errs;
}

function validateContainerRestartPolicy(policy: string, path: string): FieldError[] {
  return CONTAINER_RESTART_POLICIES.includes(policy) ? [] : [notSupported(path, policy, CONTAINER_RESTART_POLICIES)];
}

function validateContainers(pod: Pod, gracePeriod: number | undefined, rules: boolean): FieldError[] {
  const path = "spec.containers";
  if (pod.spec.containers.length === 0) return [required(path)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  pod.spec.containers.forEach((c, i) => {
    const p = index(path, i);
    errs.push(...validateContainerCommon(c, p));
    if (names.has(c.name)) errs.push(duplicate(child(p, "name"), c.name));
    else names.add(c.name);
    errs.push(...validateProbesAndLifecycle(c, p, gracePeriod));
    if (c.restartPolicy !== undefined) {
      const rp = child(p, "restartPolicy");
      errs.push(...(rules ? validateContainerRestartPolicy(c.restartPolicy, rp) : [forbidden(rp, "may not be set for non-init containers")]));
    }
  });
  return errs;
}

function validateInitContainers(pod: Pod, gracePeriod: number | undefined, rules: boolean): FieldError[] {
  const path = "spec.initContainers";
  const errs: FieldError[] = [];
  const names = new Set(pod.spec.containers.map((c) => c.name));
  (pod.spec.initContainers ?? []).forEach((c, i) => {
    const p = index(path, i);
    errs.push(...validateContainerCommon(c, p));
    if (c.restartPolicy !== undefined) {
      const rp = child(p, "restartPolicy");
      errs.push(...(rules ? validateContainerRestartPolicy(c.restartPolicy, rp) : c.restartPolicy === "Always" ? [] : [notSupported(rp, c.restartPolicy, ["Always"])]));
    }
    if (names.has(c.name)) errs.push(duplicate(child(p, "name"), c.name));
    else if (c.name !== "") names.add(c.name);
    // §A.3.12: only restartable init containers (sidecars) may carry probes and lifecycle hooks.
    if (c.restartPolicy === "Always") errs.push(...validateProbesAndLifecycle(c, p, gracePeriod));
    else {
      for (const field of ["lifecycle", "livenessProbe", "readinessProbe", "startupProbe"] as const) {
        if (c[field] !== undefined) errs.push(forbidden(child(p, field), PLAIN_INIT));
      }
    }
  });
  return errs;
}

// validatePodVolumes: spec.volumes, then every container's volumeMounts against them; a token
// projection needs a service account (validatePodMetadataAndSpec).
function validatePodVolumes(pod: Pod, options: VolumeValidationOptions): FieldError[] {
  const volumes = pod.spec.volumes ?? [];
  const errs = validateVolumes(volumes, "spec.volumes", options);
  if (options.tokenRequests === true && (pod.spec.serviceAccountName ?? "") === "") {
    volumes.forEach((v, i) => (v.projected?.sources ?? []).forEach((s, j) => {
      if (s.serviceAccountToken) errs.push(forbidden(`spec.volumes[${i}].projected.sources[${j}].serviceAccountToken`, "must not be specified when serviceAccountName is not set"));
    }));
  }
  for (const [field, list] of [["containers", pod.spec.containers], ["initContainers", pod.spec.initContainers ?? []]] as const) {
    list.forEach((c, i) => errs.push(...validateVolumeMounts(c, volumes, child(index(`spec.${field}`, i), "volumeMounts"))));
  }
  return errs;
}

// withShape tolerates a hand-built object that lacks metadata, spec or containers (the types
// require them, but validation must report rather than throw).
function withShape(pod: Partial<Pod>): Pod {
  const spec = pod.spec ?? { containers: [] };
  return { ...pod, metadata: pod.metadata ?? {}, spec: { ...spec, containers: spec.containers ?? [] } };
}

/**
 * validatePod checks a defaulted pod (§A.3 plus the pod rules a local runner needs): metadata
 * name (DNS-1123 subdomain), namespace (DNS-1123 label), labels and annotations
 * (validation-object-meta.ts), at least one container, container
 * names (DNS-1123 labels, unique across containers and init containers), ports, env names,
 * probes and lifecycle hooks (with init-container placement rules), restart policies and
 * grace periods. It returns every error found; an empty list means valid.
 */
export function validatePod(input: Pod, options: ValidationOptions = {}): FieldError[] {
  const pod = withShape(input);
  const rules = options.containerRestartRules ?? true;
  const errs: FieldError[] = [];
  const { name = "", namespace = "" } = pod.metadata;
  if (name === "") errs.push(required("metadata.name", "name or generateName is required"));
  else errs.push(...isDNS1123Subdomain(name).map((m) => invalid("metadata.name", name, m)));
  if (namespace === "") errs.push(required("metadata.namespace"));
  else errs.push(...isDNS1123Label(namespace).map((m) => invalid("metadata.namespace", namespace, m)));
  errs.push(...validateObjectMetaLabelsAndAnnotations(pod.metadata, "metadata"));
  const spec = pod.spec;
  const grace = spec.terminationGracePeriodSeconds;
  if (grace === undefined) errs.push(required("spec.terminationGracePeriodSeconds"));
  else errs.push(...nonNegative(grace, "spec.terminationGracePeriodSeconds"));
  errs.push(...validateContainers(pod, grace, rules));
  errs.push(...validateInitContainers(pod, grace, rules));
  // With ContainerRestartRules off the API server drops restartPolicyRules; on, they are checked.
  if (rules) errs.push(...validatePodRestartRules(pod, options.restartAllContainers ?? true));
  errs.push(...validatePodProbeExtensions(pod));
  errs.push(...validatePodVolumes(pod, options));
  errs.push(...validatePodSecurityContext(spec.securityContext, "spec.securityContext"));
  const restart = spec.restartPolicy ?? "";
  if (restart === "") errs.push(required("spec.restartPolicy"));
  else if (!POD_RESTART_POLICIES.includes(restart)) errs.push(notSupported("spec.restartPolicy", restart, POD_RESTART_POLICIES));
  const dns = spec.dnsPolicy ?? "";
  if (dns === "") errs.push(required("spec.dnsPolicy"));
  else if (!DNS_POLICIES.includes(dns)) errs.push(notSupported("spec.dnsPolicy", dns, DNS_POLICIES));
  const deadline = spec.activeDeadlineSeconds;
  if (deadline !== undefined && (deadline < 1 || deadline > 2147483647)) {
    errs.push(invalid("spec.activeDeadlineSeconds", deadline, "must be between 1 and 2147483647, inclusive"));
  }
  return errs;
}

/** DefaultAndValidateResult is either the defaulted, valid pod or every validation error. */
export type DefaultAndValidateResult = { ok: true; pod: Pod } | { ok: false; errors: FieldError[] };

/** defaultAndValidatePod defaults the pod and then validates it, in that order (§A.2). */
export function defaultAndValidatePod(pod: Pod, options: ValidationOptions = {}): DefaultAndValidateResult {
  const defaulted = defaultPod(pod);
  const errors = validatePod(defaulted, options);
  return errors.length === 0 ? { ok: true, pod: defaulted } : { ok: false, errors };
}
