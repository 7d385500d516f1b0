// Probe extensions: opt-in behaviour beyond the kubelet, off unless a pod asks for it, so a
// manifest without them behaves exactly as on a kubelet and a manifest with them still runs on a
// cluster (a kubelet ignores annotations). One annotation per probe:
//
//   metadata.annotations["probe.probelet.dev/<container>.<liveness|readiness|startup>"]: |
//     fastPeriodMs: 250            # probe this often until the first Success, then periodSeconds
//     http:                        # httpGet probes only
//       acceptStatus: [200, "204-299", 404]   # replaces the kubelet's 200-399
//       bodyPattern: "\"status\":\\s*\"ok\""  # the body (first 10 KiB) must match (JavaScript RegExp)
//
// The value is YAML (JSON is YAML). Errors are field errors on the annotation's path.
import { createRequire } from "node:module";
import { invalid, notSupported, required, tooLong, type FieldError } from "./field-errors.js";
import { probeOf, sidecarsAndContainers, type ProbeType } from "./pod-rules.js";
import type { Container, Pod, Probe } from "./types.js";

/** PROBE_EXTENSION_PREFIX starts every probe extension annotation key. */
export const PROBE_EXTENSION_PREFIX = "probe.probelet.dev/";

/**
 * MAX_EXTENSION_BYTES bounds one extension annotation value before it is parsed, so the yaml
 * package (whose cost grows faster than the text) only ever sees a small map (docs/security.md).
 */
export const MAX_EXTENSION_BYTES = 4096;

/**
 * yamlParse loads the yaml package on the first annotation it parses: the prober imports this
 * module, and a process whose pods use no extension should not carry the parser (≈ 8 MB RSS).
 */
let yamlParse: ((text: string) => unknown) | undefined;
function parseYaml(text: string): unknown {
  yamlParse ??= (createRequire(import.meta.url)("yaml") as typeof import("yaml")).parse;
  return yamlParse(text);
}

/** MIN_FAST_PERIOD_MS bounds fastPeriodMs from below, so a typo cannot spin a worker. */
export const MIN_FAST_PERIOD_MS = 100;

/** PROBE_FIELDS names the field of each probe type, for messages. */
const PROBE_FIELDS: Readonly<Record<ProbeType, string>> = { liveness: "livenessProbe", readiness: "readinessProbe", startup: "startupProbe" };

/** StatusRange is an inclusive range of HTTP status codes. */
export interface StatusRange {
  from: number;
  to: number;
}

/** HttpExpectation replaces the kubelet's HTTP success rule for one probe. */
export interface HttpExpectation {
  /** Statuses that succeed; absent: the kubelet's 2xx success / 3xx warning. */
  acceptStatus?: StatusRange[];
  /** A pattern the body must match for a success. */
  bodyPattern?: RegExp;
}

/** ProbeExtensions are one probe's parsed extensions. */
export interface ProbeExtensions {
  fastPeriodMs?: number;
  http?: HttpExpectation;
}

/** annotationKey is the annotation that holds a probe's extensions. */
export function annotationKey(container: string, probeType: ProbeType): string {
  return `${PROBE_EXTENSION_PREFIX}${container}.${probeType}`;
}

/**
 * probeExtensionsOf returns the parsed extensions of a container's probe, or undefined when the
 * pod has none for it. The pod is expected to have passed validatePodProbeExtensions; an invalid
 * value yields undefined.
 */
export function probeExtensionsOf(pod: Pod, container: Container, probeType: ProbeType): ProbeExtensions | undefined {
  const raw = pod.metadata.annotations?.[annotationKey(container.name, probeType)];
  const probe = probeOf(container, probeType);
  if (raw === undefined || !probe) return undefined;
  const parsed = parseExtensions(raw, probe, "");
  return parsed.errors.length === 0 ? parsed.value : undefined;
}

/** validatePodProbeExtensions checks every probe extension annotation of a pod. */
export function validatePodProbeExtensions(pod: Pod): FieldError[] {
  const errors: FieldError[] = [];
  const containers = sidecarsAndContainers(pod.spec);
  for (const [key, raw] of Object.entries(pod.metadata.annotations ?? {})) {
    if (!key.startsWith(PROBE_EXTENSION_PREFIX)) continue;
    const path = `metadata.annotations[${key}]`;
    const name = key.slice(PROBE_EXTENSION_PREFIX.length);
    const dot = name.lastIndexOf(".");
    const containerName = name.slice(0, dot);
    const probeType = name.slice(dot + 1);
    if (dot < 0 || !(probeType in PROBE_FIELDS)) {
      errors.push(invalid(path, key, `the key must be ${PROBE_EXTENSION_PREFIX}<container>.<liveness|readiness|startup>`));
      continue;
    }
    const container = containers.find((c) => c.name === containerName);
    const probe = container === undefined ? undefined : probeOf(container, probeType as ProbeType);
    if (!probe) {
      errors.push(invalid(path, key, `no container "${containerName}" with a ${PROBE_FIELDS[probeType as ProbeType]} (a regular container or a sidecar)`));
      continue;
    }
    errors.push(...parseExtensions(raw, probe, path).errors);
  }
  return errors;
}

/** parseExtensions reads one annotation value against its probe; `path` prefixes the errors. */
function parseExtensions(raw: string, probe: Probe, path: string): { value: ProbeExtensions; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const value: ProbeExtensions = {};
  if (Buffer.byteLength(raw, "utf8") > MAX_EXTENSION_BYTES) return { value, errors: [tooLong(path, MAX_EXTENSION_BYTES)] };
  let doc: unknown;
  try {
    doc = parseYaml(raw);
  } catch (err) {
    // The yaml library's first line names the problem and its place; a code excerpt follows it.
    const reason = ((err as Error).message.split("\n")[0] ?? "").replace(/:$/, "");
    return { value, errors: [invalid(path, raw, `not valid YAML or JSON: ${reason}`)] };
  }
  if (!isObject(doc)) return { value, errors: [invalid(path, raw, "must be a map with fastPeriodMs and/or http")] };
  for (const [field, v] of Object.entries(doc)) {
    const at = `${path}.${field}`;
    if (field === "fastPeriodMs") {
      const periodMs = (probe.periodSeconds ?? 10) * 1000;
      if (typeof v !== "number" || !Number.isInteger(v)) errors.push(invalid(at, v, "must be a whole number of milliseconds"));
      else if (v < MIN_FAST_PERIOD_MS || v >= periodMs) errors.push(invalid(at, v, `must be at least ${MIN_FAST_PERIOD_MS} and below periodSeconds (${periodMs} ms)`));
      else value.fastPeriodMs = v;
    } else if (field === "http") {
      if (!probe.httpGet) errors.push(invalid(at, v, "applies to httpGet probes only"));
      else if (!isObject(v)) errors.push(invalid(at, v, "must be a map with acceptStatus and/or bodyPattern"));
      else value.http = parseHttp(v, at, errors);
    } else {
      errors.push(notSupported(at, field, ["fastPeriodMs", "http"]));
    }
  }
  return { value, errors };
}

function parseHttp(doc: Record<string, unknown>, path: string, errors: FieldError[]): HttpExpectation {
  const out: HttpExpectation = {};
  for (const [field, v] of Object.entries(doc)) {
    const at = `${path}.${field}`;
    if (field === "acceptStatus") {
      if (!Array.isArray(v) || v.length === 0) {
        errors.push(v === undefined || (Array.isArray(v) && v.length === 0) ? required(at, "at least one status or range") : invalid(at, v, "must be a list of statuses (200) or ranges (\"200-299\")"));
        continue;
      }
      const ranges: StatusRange[] = [];
      v.forEach((item: unknown, i: number) => {
        const range = statusRange(item);
        if (range) ranges.push(range);
        else errors.push(invalid(`${at}[${i}]`, item, "must be a status from 100 to 599, or a range such as \"200-299\""));
      });
      out.acceptStatus = ranges;
    } else if (field === "bodyPattern") {
      if (typeof v !== "string" || v === "") {
        errors.push(invalid(at, v, "must be a non-empty regular expression"));
        continue;
      }
      try {
        out.bodyPattern = new RegExp(v);
      } catch (err) {
        errors.push(invalid(at, v, `not a valid regular expression: ${(err as Error).message}`));
      }
    } else {
      errors.push(notSupported(at, field, ["acceptStatus", "bodyPattern"]));
    }
  }
  return out;
}

/** statusRange reads 404, "404" or "200-299"; undefined when it is none of those. */
function statusRange(item: unknown): StatusRange | undefined {
  const text = typeof item === "number" ? String(item) : typeof item === "string" ? item.trim() : "";
  const m = /^(\d{3})(?:-(\d{3}))?$/.exec(text);
  if (!m) return undefined;
  const from = Number(m[1]);
  const to = Number(m[2] ?? m[1]);
  return from >= 100 && to <= 599 && from <= to ? { from, to } : undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
