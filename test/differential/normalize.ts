// What the differential suite compares of a pod status and of an event, with everything that
// differs between two nodes for reasons other than behaviour taken out: names of the namespace,
// node and pod UID, IP addresses, container and sandbox IDs, network namespace paths, times.
// The API objects are read as plain JSON (the API server's answer), not through probelet's types,
// so a field probelet does not know is still seen.

/** Json is a decoded JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** JsonObject is a decoded JSON object. */
export type JsonObject = { [key: string]: Json };

/** Side names what is specific to one node's copy of a scenario, to be replaced in texts. */
export interface Side {
  namespace: string;
  node: string;
  /** Pod UIDs seen on this side (a pod made again gets a new one). */
  uids: Set<string>;
}

function obj(v: Json | undefined): JsonObject | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? v : undefined;
}

function arr(v: Json | undefined): Json[] {
  return Array.isArray(v) ? v : [];
}

function str(v: Json | undefined): string {
  return typeof v === "string" ? v : "";
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * normalizeText replaces what differs between the two nodes in a message: the side's namespace,
 * node name and pod UIDs, 64-hex IDs (containers, sandboxes, images), IPv4 addresses, CNI network
 * namespace paths, containerd run directories and Go's random temporary suffixes.
 */
export function normalizeText(text: string, side: Side): string {
  let out = text;
  for (const uid of side.uids) out = out.split(uid).join("<uid>");
  // Names are whole when no name character touches them (pod_namespace(uid) joins them with "_").
  const whole = (name: string): RegExp => new RegExp(`(?<![a-z0-9.-])${escapeRegExp(name)}(?![a-z0-9-])`, "g");
  if (side.namespace !== "") out = out.replace(whole(side.namespace), "<ns>");
  if (side.node !== "") out = out.replace(whole(side.node), "<node>");
  return out
    .replace(/\b[0-9a-f]{64}\b/g, "<id>")
    .replace(/\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b/g, "<ip>")
    .replace(/\/var\/run\/netns\/cni-[0-9a-f-]+/g, "<netns>")
    .replace(/\/tmp\/[^\s"':]+?\/cri\//g, "<cri>/")
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, "<uid>");
}

/** stateText is one container state as a short text: waiting(Reason), running, terminated(Reason, exit N, "message"). */
function stateText(state: JsonObject | undefined, side: Side): string {
  if (state === undefined) return "none";
  const waiting = obj(state["waiting"]);
  if (waiting) {
    const message = str(waiting["message"]);
    return `waiting(${str(waiting["reason"])}${message !== "" ? `, "${normalizeText(message, side)}"` : ""})`;
  }
  if (obj(state["running"])) return "running";
  const terminated = obj(state["terminated"]);
  if (terminated) {
    const message = str(terminated["message"]);
    const signal = typeof terminated["signal"] === "number" ? `, signal ${terminated["signal"]}` : "";
    return `terminated(${str(terminated["reason"])}, exit ${String(terminated["exitCode"])}${signal}${message !== "" ? `, "${normalizeText(message, side)}"` : ""})`;
  }
  return "none";
}

/** containerText is what is compared of one container status. */
function containerText(status: JsonObject, side: Side): string {
  const last = obj(status["lastState"]);
  const lastText = last !== undefined && Object.keys(last).length > 0 ? ` last=${stateText(last, side)}` : "";
  const started = typeof status["started"] === "boolean" ? ` started=${status["started"]}` : "";
  return `${stateText(obj(status["state"]), side)}${lastText} ready=${String(status["ready"])}${started} restarts=${String(status["restartCount"])}`;
}

/**
 * PodState is the comparable part of a stored pod status: the phase (with the pod's reason and
 * message when set), each condition as type=status(reason), and each container's state, last
 * state, ready, started and restart count, by container name.
 */
export interface PodState {
  phase: string;
  conditions: string[];
  initContainers: Record<string, string>;
  containers: Record<string, string>;
}

/** podState normalizes a pod's status; `deleting` marks a pod whose deletionTimestamp is set. */
export function podState(pod: JsonObject, side: Side): PodState {
  const status = obj(pod["status"]) ?? {};
  const metadata = obj(pod["metadata"]) ?? {};
  let phase = str(status["phase"]);
  if (str(status["reason"]) !== "") phase += `(${str(status["reason"])})`;
  if (str(status["message"]) !== "") phase += ` "${normalizeText(str(status["message"]), side)}"`;
  if (metadata["deletionTimestamp"] !== undefined && metadata["deletionTimestamp"] !== null) phase += " deleting";
  const conditions = arr(status["conditions"])
    .map((c) => obj(c) ?? {})
    .map((c) => `${str(c["type"])}=${str(c["status"])}${str(c["reason"]) !== "" ? `(${str(c["reason"])})` : ""}`)
    .sort();
  const byName = (list: Json | undefined): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const s of arr(list)) {
      const cs = obj(s);
      if (cs) out[str(cs["name"])] = containerText(cs, side);
    }
    return out;
  };
  return { phase, conditions, initContainers: byName(status["initContainerStatuses"]), containers: byName(status["containerStatuses"]) };
}

/** stateKey is a PodState as one line, equal for equal states. */
export function stateKey(state: PodState): string {
  const part = (record: Record<string, string>): string => Object.keys(record).sort().map((k) => `${k}: ${record[k]}`).join("; ");
  const init = part(state.initContainers);
  return `${state.phase} [${state.conditions.join(", ")}]${init !== "" ? ` init {${init}}` : ""} {${part(state.containers)}}`;
}

/**
 * NOT_COMPARED_FIELDS are status fields left out of the comparison of stored fields: the pod-level
 * status.resources the kubelet 1.37 fills in from a read of the pod's cgroup at some syncs and not
 * others (kubelet_pods.go convertToAPIPodLevelResourcesStatus): two kubelets differ on it.
 */
export const NOT_COMPARED_FIELDS: readonly string[] = ["status.resources."];

/**
 * fieldPaths lists the paths of every field a status stores, lists of named items by name
 * (containerStatuses[c].state.running.startedAt), other lists as [] (so "which fields does each
 * node store" can be compared without their values).
 */
export function fieldPaths(value: Json | undefined, prefix = "status"): string[] {
  if (NOT_COMPARED_FIELDS.some((f) => prefix.startsWith(f))) return [];
  const o = obj(value);
  if (o !== undefined) return Object.keys(o).flatMap((k) => fieldPaths(o[k], `${prefix}.${k}`));
  if (Array.isArray(value)) {
    return value.flatMap((item) => {
      const named = obj(item);
      const name = named !== undefined && typeof named["name"] === "string" ? named["name"] : named !== undefined && typeof named["type"] === "string" ? named["type"] : "";
      // The ServiceAccount admission's volume has a random suffix per pod.
      const key = name.replace(/^kube-api-access-[a-z0-9]{5}$/, "kube-api-access-<random>");
      return fieldPaths(item, `${prefix}[${key}]`);
    });
  }
  return [prefix];
}

/**
 * NOT_COMPARED_EVENTS are events left out: a kubelet's TokenRequest for a pod the API server's Node
 * authorizer has not yet seen (or no longer sees) fails with `pod "<name>" not found`, a race of
 * the authorizer's graph that two kubelets hit at random (the self-check).
 */
export const NOT_COMPARED_EVENTS: readonly RegExp[] = [/^Warning FailedMount: MountVolume\.SetUp failed for volume "kube-api-access-[a-z0-9]+" : failed to fetch token: pod "[^"]+" not found$/];

/** EventKey is what is compared of an event: its type, reason and normalized message (and the container it names). */
export function eventKey(event: JsonObject, side: Side): string {
  const involved = obj(event["involvedObject"]) ?? {};
  const fieldPath = str(involved["fieldPath"]);
  return `${str(event["type"])} ${str(event["reason"])}${fieldPath !== "" ? ` (${fieldPath})` : ""}: ${normalizeText(str(event["message"]), side)}`;
}
