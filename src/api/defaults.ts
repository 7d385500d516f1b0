// API defaulting (spec §A.2), as the API server applies it before validation
// (pkg/apis/core/v1/defaults.go). Every function is pure: it returns new objects and never
// touches its input. Defaulting only fills zero/empty fields; negative numbers are left for
// validation to reject.
import { defaultEnvSources, defaultVolumes } from "./defaults-volumes.js";
import type { Container, ContainerPort, HTTPGetAction, Lifecycle, LifecycleHandler, Pod, Probe } from "./types.js";

/** DEFAULT_NAMESPACE is the namespace a pod without one is placed in. */
export const DEFAULT_NAMESPACE = "default";

/** DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS is the pod grace period when unset. */
export const DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30;

/** DEFAULT_TERMINATION_MESSAGE_PATH is core/v1 TerminationMessagePathDefault. */
export const DEFAULT_TERMINATION_MESSAGE_PATH = "/dev/termination-log";

/** PROBE_DEFAULTS are the values SetDefaults_Probe writes over zero or absent fields. */
export const PROBE_DEFAULTS = {
  timeoutSeconds: 1,
  periodSeconds: 10,
  successThreshold: 1,
  failureThreshold: 3,
} as const;

// Zero and absent are the same thing to the API: both mean "use the default".
function orDefault(value: number | undefined, fallback: number): number {
  return value === undefined || value === 0 ? fallback : value;
}

// SetDefaults_HTTPGetAction: applies to probes and lifecycle hooks alike.
function defaultHTTPGet(action: HTTPGetAction): HTTPGetAction {
  const out = structuredClone(action);
  if (out.path === undefined || out.path === "") out.path = "/";
  if (out.scheme === undefined || out.scheme === "") out.scheme = "HTTP";
  return out;
}

/**
 * defaultProbe fills a probe's defaults: timeout 1, period 10, success 1, failure 3 (each when
 * 0 or absent), httpGet path "/" and scheme "HTTP", grpc service "". The probe-level
 * terminationGracePeriodSeconds stays unset (kubelet pkg/apis/core/v1/defaults.go SetDefaults_Probe).
 */
export function defaultProbe(probe: Probe): Probe {
  const out = structuredClone(probe);
  out.timeoutSeconds = orDefault(probe.timeoutSeconds, PROBE_DEFAULTS.timeoutSeconds);
  out.periodSeconds = orDefault(probe.periodSeconds, PROBE_DEFAULTS.periodSeconds);
  out.successThreshold = orDefault(probe.successThreshold, PROBE_DEFAULTS.successThreshold);
  out.failureThreshold = orDefault(probe.failureThreshold, PROBE_DEFAULTS.failureThreshold);
  out.initialDelaySeconds = probe.initialDelaySeconds ?? 0;
  if (probe.httpGet) out.httpGet = defaultHTTPGet(probe.httpGet);
  if (probe.grpc) out.grpc = { ...structuredClone(probe.grpc), service: probe.grpc.service ?? "" };
  return out;
}

function defaultLifecycleHandler(handler: LifecycleHandler): LifecycleHandler {
  const out = structuredClone(handler);
  if (handler.httpGet) out.httpGet = defaultHTTPGet(handler.httpGet);
  return out;
}

function defaultLifecycle(lifecycle: Lifecycle): Lifecycle {
  const out = structuredClone(lifecycle);
  if (lifecycle.postStart) out.postStart = defaultLifecycleHandler(lifecycle.postStart);
  if (lifecycle.preStop) out.preStop = defaultLifecycleHandler(lifecycle.preStop);
  return out;
}

/**
 * imageTag returns the tag the API server sees in an image reference: the explicit tag, ""
 * for a digest-only reference or an empty image, and "latest" when neither is given
 * (the container-image parser's normalisation).
 */
export function imageTag(image: string | undefined): string {
  if (image === undefined || image.trim() === "") return "";
  const at = image.indexOf("@");
  const name = at >= 0 ? image.slice(0, at) : image;
  const colon = name.lastIndexOf(":");
  const tag = colon > name.lastIndexOf("/") ? name.slice(colon + 1) : "";
  if (tag !== "") return tag;
  return at >= 0 ? "" : "latest";
}

/**
 * defaultPullPolicy is SetDefaults_Container's imagePullPolicy rule: Always for ":latest" or
 * an untagged image, IfNotPresent otherwise.
 */
export function defaultPullPolicy(image: string | undefined): "Always" | "IfNotPresent" {
  return imageTag(image) === "latest" ? "Always" : "IfNotPresent";
}

function defaultPort(port: ContainerPort, hostNetwork: boolean): ContainerPort {
  const out = structuredClone(port);
  if (out.protocol === undefined || out.protocol === "") out.protocol = "TCP";
  // SetDefaults_Pod: on the host network a container port is also its host port.
  if (hostNetwork && (out.hostPort === undefined || out.hostPort === 0)) out.hostPort = out.containerPort;
  return out;
}

/**
 * defaultContainer fills a container's defaults: terminationMessagePath, terminationMessagePolicy
 * "File", imagePullPolicy (by image tag), each port's protocol "TCP" (and hostPort on the host
 * network), and every probe and lifecycle httpGet.
 */
export function defaultContainer(container: Container, hostNetwork = false): Container {
  const out = structuredClone(container);
  if (!out.terminationMessagePath) out.terminationMessagePath = DEFAULT_TERMINATION_MESSAGE_PATH;
  if (!out.terminationMessagePolicy) out.terminationMessagePolicy = "File";
  if (!out.imagePullPolicy) out.imagePullPolicy = defaultPullPolicy(container.image);
  if (container.ports) out.ports = container.ports.map((p) => defaultPort(p, hostNetwork));
  if (container.livenessProbe) out.livenessProbe = defaultProbe(container.livenessProbe);
  if (container.readinessProbe) out.readinessProbe = defaultProbe(container.readinessProbe);
  if (container.startupProbe) out.startupProbe = defaultProbe(container.startupProbe);
  if (container.lifecycle) out.lifecycle = defaultLifecycle(container.lifecycle);
  defaultEnvSources(out);
  return out;
}

/**
 * defaultPod fills a pod's defaults: metadata.namespace "default", spec.restartPolicy "Always",
 * spec.terminationGracePeriodSeconds 30, dnsPolicy "ClusterFirst", schedulerName
 * "default-scheduler", and every container's and init container's defaults.
 */
export function defaultPod(pod: Pod): Pod {
  const out = structuredClone(pod);
  // Tolerate hand-built objects missing the required parts (Go would see zero values).
  out.metadata ??= {};
  out.spec ??= { containers: [] };
  out.spec.containers ??= [];
  if (!out.metadata.namespace) out.metadata.namespace = DEFAULT_NAMESPACE;
  const spec = out.spec;
  if (!spec.restartPolicy) spec.restartPolicy = "Always";
  spec.terminationGracePeriodSeconds ??= DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS;
  if (!spec.dnsPolicy) spec.dnsPolicy = "ClusterFirst";
  if (!spec.schedulerName) spec.schedulerName = "default-scheduler";
  const hostNetwork = spec.hostNetwork === true;
  spec.containers = spec.containers.map((c) => defaultContainer(c, hostNetwork));
  if (spec.initContainers) spec.initContainers = spec.initContainers.map((c) => defaultContainer(c, hostNetwork));
  if (spec.volumes) defaultVolumes(spec.volumes);
  return out;
}
