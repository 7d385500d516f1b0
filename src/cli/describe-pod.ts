// `probelet describe pod`'s text, laid out as kubectl's describePod (kubectl
// pkg/describe/describe.go): label/value lines aligned by a Go text/tabwriter (padding 2), the
// containers with their state and probes, conditions, and the pod's events. Pure: no I/O.
import type { KubeEvent } from "../agent/agent-api.js";
import { defaultProbe } from "../api/defaults.js";
import type { Container, ContainerState, ContainerStatus, EnvVar, Pod, Probe, ResourceFieldSelector } from "../api/types.js";
import { containerResourceValue } from "../volumes/downward-api.js";
import { splitSubscriptedPath } from "../api/validation-env-sources.js";
import { describeRun, type ProbeHistorySegment } from "../prober/probe-history.js";
import { podQOSClass } from "../status/qos.js";
import { mountLines, volumeLines } from "./describe-volumes.js";
import { humanDuration } from "./pod-table.js";

/** DescribeOptions fix the clock and the time zone, so the layout is deterministic. */
export interface DescribeOptions {
  /** Now, in ms since the epoch (ages such as `10s (x3 over 2m)`). */
  now: number;
  /** Minutes east of UTC for the RFC 1123 times; default: this machine's zone at each instant. */
  utcOffsetMinutes?: number;
  /** The pod's probe history as runs of identical results, shown before the events when there are any. */
  probeRuns?: readonly ProbeHistorySegment[];
}

/** DESCRIBE_HISTORY_ROWS is how many of the newest runs describe shows; the API has them all. */
export const DESCRIBE_HISTORY_ROWS = 10;
/** DESCRIBE_OUTPUT_CHARS shortens a probe's output to one readable cell. */
const DESCRIBE_OUTPUT_CHARS = 100;

const L1 = "  ";
const L2 = "    ";
const L3 = "      ";
// kubectl maxAnnotationLen: longer annotations are printed on their own lines, shortened.
const MAX_ANNOTATION_LEN = 140;
const GO_ZERO_TIME = "Mon, 01 Jan 0001 00:00:00 +0000";

/** describePod renders a pod and its events as `kubectl describe pod` does. */
export function describePod(pod: Pod, events: readonly KubeEvent[], options: DescribeOptions): string {
  const time = (value: string | undefined): string => formatRfc1123z(value, options.utcOffsetMinutes);
  const status = pod.status ?? {};
  const lines: string[] = [`Name:\t${pod.metadata.name ?? ""}`, `Namespace:\t${pod.metadata.namespace ?? ""}`];
  const priority = (pod.spec as { priority?: number }).priority;
  if (priority !== undefined) lines.push(`Priority:\t${priority}`);
  lines.push(pod.spec.nodeName ? `Node:\t${pod.spec.nodeName}/${status.hostIP ?? ""}` : "Node:\t<none>");
  if (status.startTime) lines.push(`Start Time:\t${time(status.startTime)}`);
  lines.push(...labelLines("Labels", pod.metadata.labels), ...annotationLines("Annotations", pod.metadata.annotations));
  if (pod.metadata.deletionTimestamp && status.phase !== "Failed" && status.phase !== "Succeeded") {
    lines.push(`Status:\tTerminating (lasts ${since(pod.metadata.deletionTimestamp, options.now)})`);
    lines.push(`Termination Grace Period:\t${pod.metadata.deletionGracePeriodSeconds ?? 0}s`);
  } else lines.push(`Status:\t${status.phase ?? ""}`);
  if (status.reason) lines.push(`Reason:\t${status.reason}`);
  if (status.message) lines.push(`Message:\t${status.message}`);
  lines.push(`IP:\t${status.podIP ?? ""}`);
  const ips = status.podIPs ?? [];
  lines.push(...(ips.length === 0 ? ["IPs:\t<none>"] : ["IPs:", ...ips.map((ip) => `${L1}IP:\t${ip.ip}`)]));
  const inits = pod.spec.initContainers ?? [];
  if (inits.length > 0) lines.push(...containerLines("Init Containers", inits, status.initContainerStatuses ?? [], pod, time));
  lines.push(...containerLines("Containers", pod.spec.containers, status.containerStatuses ?? [], pod, time));
  const gates = pod.spec.readinessGates ?? [];
  if (gates.length > 0) {
    lines.push("Readiness Gates:", `${L1}Type\tStatus`);
    for (const g of gates) lines.push(`${L1}${g.conditionType} \t${status.conditions?.find((c) => c.type === g.conditionType)?.status ?? "<none>"} `);
  }
  const conditions = status.conditions ?? [];
  if (conditions.length > 0) lines.push("Conditions:", `${L1}Type\tStatus`, ...conditions.map((c) => `${L1}${c.type} \t${c.status} `));
  lines.push(...volumeLines(pod), `QoS Class:\t${pod.status?.qosClass ?? podQOSClass(pod)}`, "Node-Selectors:\t<none>", "Tolerations:\t<none>");
  const history = options.probeRuns ?? [];
  // kubectl flushes its tabwriter before the events table: it is aligned on its own, and so is the
  // probe history (ours) that comes before it.
  const historyText = history.length === 0 ? "" : alignTabs(probeHistoryLines(history, options.now));
  if (events.length === 0) return historyText === "" ? alignTabs([...lines, "Events:\t<none>"]) : alignTabs(lines) + historyText + alignTabs(["Events:\t<none>"]);
  return alignTabs(lines) + historyText + alignTabs(eventLines(events, options.now));
}

/**
 * probeHistoryLines is the Probe History table: the newest runs of identical results, oldest
 * first (`success ×18`, `failure ×3 (3 of 3)`), each with its average latency, the age of its
 * last probe and that probe's output; so the failures behind a kill stay beside the successes
 * that followed.
 */
function probeHistoryLines(runs: readonly ProbeHistorySegment[], now: number): string[] {
  const shown = runs.slice(-DESCRIBE_HISTORY_ROWS);
  const title = shown.length < runs.length ? `Probe History (last ${shown.length} of ${runs.length} runs):` : "Probe History:";
  return [
    title,
    `${L1}Container\tProbe\tResult\tLatency\tAge\tOutput`,
    `${L1}---------\t-----\t------\t-------\t---\t------`,
    ...shown.map((r) => {
      const output = r.lastOutput.replace(/\s+/g, " ").trim();
      const cell = output.length > DESCRIBE_OUTPUT_CHARS ? `${output.slice(0, DESCRIBE_OUTPUT_CHARS)}…` : output;
      return `${L1}${r.container}\t${r.probeType}\t${describeProbeRun(r)}\t${formatLatency(r.latencySumMs / r.count)}\t${since(r.end, now)}\t${cell === "" ? "<none>" : cell}`;
    }),
  ];
}

/** describeProbeRun is a run's Result cell: one probe as describeRun says it; several as `failure ×3 (3 of 3)` or `success ×18`. */
export function describeProbeRun(run: Pick<ProbeHistorySegment, "result" | "count" | "lastRun" | "threshold">): string {
  if (run.count === 1) return describeRun({ result: run.result, run: run.lastRun, threshold: run.threshold });
  const word = run.result === "Success" ? "success" : run.result === "Failure" ? "failure" : "unknown";
  const standing = run.threshold > 1 && run.lastRun <= run.threshold ? ` (${run.lastRun} of ${run.threshold})` : "";
  return `${word} ×${run.count}${standing}`;
}

/** formatLatency renders a probe's latency: `850µs`, `12ms`, `1.5s`. */
export function formatLatency(ms: number): string {
  if (ms < 1) return `${Math.round(ms * 1000)}µs`;
  if (ms < 1000) return `${Math.round(ms)}ms`;
  return `${Math.round(ms / 100) / 10}s`;
}

/** describeProbe is kubectl's one-line probe summary, e.g. `http-get http://:8080/healthz delay=0s timeout=1s period=10s #success=1 #failure=3`. */
export function describeProbe(input: Probe): string {
  const probe = defaultProbe(input);
  const attrs = `delay=${probe.initialDelaySeconds ?? 0}s timeout=${probe.timeoutSeconds ?? 0}s period=${probe.periodSeconds ?? 0}s #success=${probe.successThreshold ?? 0}`
    + ` #failure=${probe.failureThreshold ?? 0}`;
  if (probe.exec) return `exec [${(probe.exec.command ?? []).join(" ")}] ${attrs}`;
  if (probe.httpGet) {
    const { scheme = "", host = "", port, path = "" } = probe.httpGet;
    const portText = String(port);
    const authority = portText === "" ? host : joinHostPort(host, portText);
    const slash = path !== "" && !path.startsWith("/") && authority !== "" ? "/" : "";
    const schemeText = scheme === "" ? "" : `${scheme.toLowerCase()}:`;
    return `http-get ${schemeText}//${authority}${slash}${escapeUrlPath(path)} ${attrs}`;
  }
  if (probe.tcpSocket) return `tcp-socket ${probe.tcpSocket.host ?? ""}:${String(probe.tcpSocket.port)} ${attrs}`;
  if (probe.grpc) return `grpc <pod>:${probe.grpc.port} ${probe.grpc.service ?? ""} ${attrs}`;
  return `unknown ${attrs}`;
}

/** eventAge is the Age column of describe's events (and LAST SEEN of get events): `10s (x3 over 2m)`. */
export function eventAge(event: KubeEvent, now: number): string {
  const first = since(event.firstTimestamp, now);
  return event.count > 1 ? `${since(event.lastTimestamp, now)} (x${event.count} over ${first})` : first;
}

/** since is kubectl's translateTimestampSince: the age of an RFC 3339 time, `<unknown>` when absent. */
export function since(timestamp: string | undefined, now: number): string {
  const t = Date.parse(timestamp ?? "");
  return Number.isNaN(t) ? "<unknown>" : humanDuration(now - t);
}

function eventLines(events: readonly KubeEvent[], now: number): string[] {
  // kubectl SortableEvents: oldest last-seen first (a stable sort).
  const sorted = [...events].sort((a, b) => (Date.parse(a.lastTimestamp) || 0) - (Date.parse(b.lastTimestamp) || 0));
  return [
    "Events:",
    `${L1}Type\tReason\tAge\tFrom\tMessage`,
    `${L1}----\t------\t----\t----\t-------`,
    ...sorted.map((e) => `${L1}${e.type}\t${e.reason}\t${eventAge(e, now)}\t${e.source.component || e.reportingComponent}\t${e.message.trim()}`),
  ];
}

type TimeFormat = (value: string | undefined) => string;

function containerLines(label: string, containers: readonly Container[], statuses: readonly ContainerStatus[], pod: Pod, time: TimeFormat): string[] {
  const lines = [containers.length === 0 ? `${label}: <none>` : `${label}:`];
  for (const c of containers) {
    const status = statuses.find((s) => s.name === c.name);
    lines.push(`${L1}${c.name}:`);
    if (status) lines.push(`${L2}Container ID:\t${status.containerID ?? ""}`);
    lines.push(`${L2}Image:\t${c.image ?? ""}`);
    if (status) lines.push(`${L2}Image ID:\t${status.imageID ?? ""}`);
    const ports = (c.ports ?? []).map((p) => `${p.containerPort}/${p.protocol ?? "TCP"}`);
    const hostPorts = (c.ports ?? []).map((p) => `${p.hostPort ?? 0}/${p.protocol ?? "TCP"}`);
    lines.push(`${L2}${ports.length > 1 ? "Ports" : "Port"}:\t${ports.join(", ") || "<none>"}`);
    lines.push(`${L2}${hostPorts.length > 1 ? "Host Ports" : "Host Port"}:\t${hostPorts.join(", ") || "<none>"}`);
    for (const [title, list] of [["Command", c.command], ["Args", c.args]] as const) {
      if (list && list.length > 0) lines.push(`${L2}${title}:`, ...list.flatMap((a) => a.split("\n")).map((s) => `${L3}${s}`));
    }
    if (status) {
      lines.push(...stateLines("State", status.state ?? {}, time));
      if (status.lastState?.terminated) lines.push(...stateLines("Last State", status.lastState, time));
      lines.push(`${L2}Ready:\t${status.ready ? "True" : "False"}`, `${L2}Restart Count:\t${status.restartCount}`);
    }
    lines.push(...resourceLines(c.resources));
    if (c.livenessProbe) lines.push(`${L2}Liveness:\t${describeProbe(c.livenessProbe)}`);
    if (c.readinessProbe) lines.push(`${L2}Readiness:\t${describeProbe(c.readinessProbe)}`);
    if (c.startupProbe) lines.push(`${L2}Startup:\t${describeProbe(c.startupProbe)}`);
    lines.push(...envFromLines(c));
    const env = c.env ?? [];
    lines.push(env.length === 0 ? `${L2}Environment:\t<none>` : `${L2}Environment:`, ...env.flatMap((e) => envLines(e, pod, c)));
    lines.push(...mountLines(c));
  }
  return lines;
}

function stateLines(title: string, state: ContainerState, time: TimeFormat): string[] {
  if (state.running) return [`${L2}${title}:\tRunning`, `${L3}Started:\t${time(state.running.startedAt)}`];
  if (state.terminated) {
    const t = state.terminated;
    return [
      `${L2}${title}:\tTerminated`,
      ...(t.reason ? [`${L3}Reason:\t${t.reason}`] : []),
      ...(t.message ? [`${L3}Message:\t${t.message}`] : []),
      `${L3}Exit Code:\t${t.exitCode}`,
      ...(t.signal ? [`${L3}Signal:\t${t.signal}`] : []),
      `${L3}Started:\t${time(t.startedAt)}`,
      `${L3}Finished:\t${time(t.finishedAt)}`,
    ];
  }
  return [`${L2}${title}:\tWaiting`, ...(state.waiting?.reason ? [`${L3}Reason:\t${state.waiting.reason}`] : [])];
}

function resourceLines(resources: Record<string, unknown> | undefined): string[] {
  const lines: string[] = [];
  for (const [title, key] of [["Limits", "limits"], ["Requests", "requests"]] as const) {
    const list = (resources?.[key] ?? {}) as Record<string, unknown>;
    const names = Object.keys(list).sort();
    if (names.length > 0) lines.push(`${L2}${title}:`, ...names.map((n) => `${L3}${n}:\t${String(list[n])}`));
  }
  return lines;
}

// kubectl describe.go describeContainerEnvFrom: one line per source, shown only when there are any.
function envFromLines(c: Container): string[] {
  const sources = c.envFrom ?? [];
  if (sources.length === 0) return [];
  return [
    `${L2}Environment Variables from:`,
    ...sources.map((e) => {
      const ref = e.configMapRef ?? e.secretRef;
      const from = e.configMapRef ? "ConfigMap" : "Secret";
      const kind = e.prefix ? `${from} with prefix '${e.prefix}'` : from;
      return `${L3}${ref?.name ?? ""}\t${kind}\tOptional: ${ref?.optional === true}`;
    }),
  ];
}

function envLines(e: EnvVar, pod: Pod, container: Container): string[] {
  const from = e.valueFrom as Record<string, Record<string, unknown> | undefined> | undefined;
  if (from === undefined) {
    const [first = "", ...rest] = (e.value ?? "").split("\n");
    return [`${L3}${e.name}:\t${first}`, ...rest.map((s) => `${L3}\t${s}`)];
  }
  const optional = (ref: Record<string, unknown>): boolean => ref["optional"] === true;
  if (from["fieldRef"]) {
    const path = String(from["fieldRef"]["fieldPath"] ?? "");
    return [`${L3}${e.name}:\t${fieldValue(pod, path)} (${String(from["fieldRef"]["apiVersion"] ?? "v1")}:${path})`];
  }
  if (e.valueFrom?.resourceFieldRef) return [`${L3}${e.name}:\t${resourceValue(e.valueFrom.resourceFieldRef, container)} (${e.valueFrom.resourceFieldRef.resource})`];
  const secret = from["secretKeyRef"];
  if (secret) return [`${L3}${e.name}:\t<set to the key '${String(secret["key"])}' in secret '${String(secret["name"])}'>\tOptional: ${optional(secret)}`];
  const map = from["configMapKeyRef"];
  if (map) return [`${L3}${e.name}:\t<set to the key '${String(map["key"])}' of config map '${String(map["name"])}'>\tOptional: ${optional(map)}`];
  return [];
}

// kubectl describeContainerEnvVars: the container's own value; an unset CPU or memory limit reads "node allocatable".
function resourceValue(ref: ResourceFieldSelector, container: Container): string {
  const value = containerResourceValue(ref, container, { cpu: 0, memory: 0, ephemeralStorage: 0 });
  return value === "0" && (ref.resource === "limits.cpu" || ref.resource === "limits.memory") ? "node allocatable" : value;
}

// The downward-API fields kubectl resolves for fieldRef variables (EnvValueRetriever).
function fieldValue(pod: Pod, path: string): string {
  const values: Record<string, string | undefined> = {
    "metadata.name": pod.metadata.name,
    "metadata.namespace": pod.metadata.namespace,
    "metadata.uid": pod.metadata.uid,
    "spec.nodeName": pod.spec.nodeName,
    "status.podIP": pod.status?.podIP,
    "status.hostIP": pod.status?.hostIP,
  };
  const { path: field, subscript } = splitSubscriptedPath(path);
  if (subscript !== undefined && field === "metadata.labels") return pod.metadata.labels?.[subscript] ?? "";
  if (subscript !== undefined && field === "metadata.annotations") return pod.metadata.annotations?.[subscript] ?? "";
  return values[path] ?? "";
}

function labelLines(title: string, labels: Record<string, string> | undefined): string[] {
  const keys = Object.keys(labels ?? {}).sort();
  if (keys.length === 0) return [`${title}:\t<none>`];
  return keys.map((k, i) => `${i === 0 ? `${title}:` : ""}\t${k}=${labels?.[k] ?? ""}`);
}

function annotationLines(title: string, annotations: Record<string, string> | undefined): string[] {
  const keys = Object.keys(annotations ?? {}).filter((k) => k !== "kubectl.kubernetes.io/last-applied-configuration").sort();
  if (keys.length === 0) return [`${title}:\t<none>`];
  return keys.flatMap((key, i) => {
    const head = i === 0 ? `${title}:\t` : "\t";
    const value = (annotations?.[key] ?? "").replace(/\n$/, "");
    if (value.length + key.length + 2 <= MAX_ANNOTATION_LEN && !value.includes("\n")) return [`${head}${key}: ${value}`];
    const limit = MAX_ANNOTATION_LEN - 2;
    return [`${head}${key}:`, ...value.split("\n").map((s) => `\t  ${s.length > limit ? `${s.slice(0, limit)}...` : s}`)];
  });
}

/**
 * alignTabs lays out tab-separated lines as Go's text/tabwriter does with kubectl's settings
 * (minwidth 0, padding 2, padchar ' '): a column block is a run of consecutive lines that have a
 * tab-terminated cell in that column; each such cell is padded to the block's widest cell + 2.
 * The last cell of a line is never padded.
 */
export function alignTabs(lines: readonly string[]): string {
  const rows = lines.map((l) => l.split("\t"));
  const width = (s: string): number => [...s].length;
  const columns = Math.max(0, ...rows.map((r) => r.length - 1));
  for (let col = 0; col < columns; col++) {
    for (let start = 0; start < rows.length; ) {
      if ((rows[start]?.length ?? 0) - 1 <= col) {
        start++;
        continue;
      }
      let end = start;
      while (end < rows.length && (rows[end]?.length ?? 0) - 1 > col) end++;
      const block = rows.slice(start, end);
      const w = Math.max(...block.map((r) => width(r[col] ?? ""))) + 2;
      for (const r of block) r[col] = (r[col] ?? "") + " ".repeat(w - width(r[col] ?? ""));
      start = end;
    }
  }
  return rows.map((r) => r.join("")).join("\n") + "\n";
}

/** formatRfc1123z formats an RFC 3339 time as Go's time.RFC1123Z (`Mon, 02 Jan 2006 15:04:05 -0700`). */
export function formatRfc1123z(value: string | undefined, utcOffsetMinutes?: number): string {
  const ms = Date.parse(value ?? "");
  if (Number.isNaN(ms)) return GO_ZERO_TIME;
  const offset = utcOffsetMinutes ?? -new Date(ms).getTimezoneOffset();
  const d = new Date(ms + offset * 60_000);
  const days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
  const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  const p2 = (n: number): string => String(n).padStart(2, "0");
  const zone = `${offset < 0 ? "-" : "+"}${p2(Math.floor(Math.abs(offset) / 60))}${p2(Math.abs(offset) % 60)}`;
  return `${days[d.getUTCDay()]}, ${p2(d.getUTCDate())} ${months[d.getUTCMonth()]} ${d.getUTCFullYear()} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())} ${zone}`;
}

function joinHostPort(host: string, port: string): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

// Go's url.URL.EscapedPath: keep unreserved characters and $&+,/:;=@, percent-encode the rest.
function escapeUrlPath(path: string): string {
  return [...path].map((ch) => (/[A-Za-z0-9\-_.~$&+,/:;=@]/.test(ch) ? ch : [...Buffer.from(ch, "utf8")].map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join(""))).join("");
}
