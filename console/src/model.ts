// The shapes the console reads from the API (the parts of core/v1 it shows) and how a pod's
// status column reads, as kubectl get pods prints it.
import type { KubeObject } from "./api";

/** ContainerState is core/v1 ContainerState. */
export interface ContainerState {
  waiting?: { reason?: string; message?: string };
  running?: { startedAt?: string };
  terminated?: { reason?: string; exitCode?: number; startedAt?: string; finishedAt?: string; message?: string };
}

/** ProbeSpec is the part of core/v1 Probe the timeline needs. */
export interface ProbeSpec {
  timeoutSeconds?: number;
  periodSeconds?: number;
  failureThreshold?: number;
  successThreshold?: number;
}

/** Pod is the part of core/v1 Pod the console shows. */
export interface Pod extends KubeObject {
  metadata: KubeObject["metadata"] & { labels?: Record<string, string>; creationTimestamp?: string; deletionTimestamp?: string };
  spec?: {
    nodeName?: string;
    containers?: { name: string; image?: string; livenessProbe?: ProbeSpec; readinessProbe?: ProbeSpec; startupProbe?: ProbeSpec }[];
  };
  status?: {
    phase?: string;
    reason?: string;
    conditions?: { type: string; status: string; lastTransitionTime?: string; reason?: string; message?: string }[];
    containerStatuses?: {
      name: string;
      ready?: boolean;
      started?: boolean;
      restartCount?: number;
      state?: ContainerState;
      lastState?: ContainerState;
      containerID?: string;
    }[];
  };
}

/** KubeEvent is core/v1 Event as the agent serves it. */
export interface KubeEvent extends KubeObject {
  involvedObject: { kind?: string; name?: string; namespace?: string; uid?: string; fieldPath?: string };
  reason?: string;
  message?: string;
  type?: string;
  count?: number;
  firstTimestamp?: string;
  lastTimestamp?: string;
  eventTime?: string;
}

/** podStatusText is kubectl's STATUS column: a container's waiting or terminated reason, else the phase. */
export function podStatusText(pod: Pod): string {
  if (pod.metadata.deletionTimestamp) return "Terminating";
  let reason = pod.status?.reason ?? pod.status?.phase ?? "Pending";
  for (const c of pod.status?.containerStatuses ?? []) {
    const waiting = c.state?.waiting?.reason;
    const terminated = c.state?.terminated;
    if (waiting && waiting !== "") reason = waiting;
    else if (terminated) reason = terminated.reason ?? `ExitCode:${terminated.exitCode ?? 0}`;
  }
  return reason;
}

/** readyText is kubectl's READY column ("1/2"). */
export function readyText(pod: Pod): string {
  const statuses = pod.status?.containerStatuses ?? [];
  const total = pod.spec?.containers?.length ?? statuses.length;
  return `${statuses.filter((c) => c.ready).length}/${total}`;
}

/** restartsOf sums the containers' restart counts. */
export function restartsOf(pod: Pod): number {
  return (pod.status?.containerStatuses ?? []).reduce((n, c) => n + (c.restartCount ?? 0), 0);
}

/** age renders a duration like kubectl: 45s, 3m12s, 5h, 2d. */
export function age(since: string | undefined, now: number): string {
  if (since === undefined) return "<unknown>";
  const s = Math.max(0, Math.floor((now - Date.parse(since)) / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return `${m}m${s % 60}s`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h`;
  return `${Math.floor(h / 24)}d`;
}

/** LabelTerm is one requirement of a label selector. */
export interface LabelTerm {
  key: string;
  op: "=" | "!=" | "exists" | "!exists";
  value: string;
}

/** parseLabelSelector reads "app=web,tier!=db,canary,!legacy"; it returns an error text for bad input. */
export function parseLabelSelector(text: string): LabelTerm[] | string {
  const terms: LabelTerm[] = [];
  for (const raw of text.split(",")) {
    const part = raw.trim();
    if (part === "") continue;
    const m = /^(!?)([A-Za-z0-9_./-]+)\s*(?:(==|!=|=)\s*([A-Za-z0-9_.-]*))?$/.exec(part);
    if (m === null) return `invalid label selector term "${part}"`;
    const [, not, key = "", op, value = ""] = m;
    if (op === undefined) terms.push({ key, op: not ? "!exists" : "exists", value: "" });
    else if (not) return `invalid label selector term "${part}"`;
    else terms.push({ key, op: op === "!=" ? "!=" : "=", value });
  }
  return terms;
}

/** matchesLabels reports whether labels satisfy every term. */
export function matchesLabels(labels: Record<string, string> | undefined, terms: readonly LabelTerm[]): boolean {
  return terms.every((t) => {
    const v = labels?.[t.key];
    switch (t.op) {
      case "exists":
        return v !== undefined;
      case "!exists":
        return v === undefined;
      case "=":
        return v === t.value;
      case "!=":
        return v !== t.value;
    }
  });
}

/** eventTime is when an event last happened, in ms. */
export function eventTimeMs(e: KubeEvent): number {
  return Date.parse(e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? "") || 0;
}
