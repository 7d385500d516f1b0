// The shapes the console reads from the API and the facts it derives from them. A pod's row is
// kubectl's own (pod-columns.ts, shared with the API server's tables and `probelet get`), so
// READY counts sidecars as kubectl does and STATUS and RESTARTS read the same everywhere.
import type { Container, ContainerStatus } from "../../src/api/types";
import type { ServedPod } from "../../src/apiserver/table/pod-columns";
import type { ProbeType } from "../../src/api/pod-rules";
import type { KubeObject } from "./api";

/** Pod is core/v1 Pod as the API serves it. */
export type Pod = ServedPod;

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

/** ContainerKind says how a container runs: a plain init container, a sidecar (a restartable init container) or a regular one. */
export type ContainerKind = "init" | "sidecar" | "container";

/** PodContainer is one container of a pod with its kind and status, in the order the pod runs them. */
export interface PodContainer {
  spec: Container;
  kind: ContainerKind;
  status: ContainerStatus | undefined;
}

/** podContainers lists init containers and sidecars (in spec order), then the regular containers. */
export function podContainers(pod: Pod): PodContainer[] {
  const inits = (pod.spec.initContainers ?? []).map((spec): PodContainer => ({
    spec,
    kind: spec.restartPolicy === "Always" ? "sidecar" : "init",
    status: pod.status?.initContainerStatuses?.find((c) => c.name === spec.name),
  }));
  const regular = pod.spec.containers.map((spec): PodContainer => ({ spec, kind: "container", status: pod.status?.containerStatuses?.find((c) => c.name === spec.name) }));
  return [...inits, ...regular];
}

/** PROBE_ORDER is the order probes are shown in: startup gates the others. */
export const PROBE_ORDER: readonly ProbeType[] = ["startup", "liveness", "readiness"];

/** readySince is when the pod's Ready condition last changed, and whether it is Ready now. */
export function readySince(pod: Pod): { ready: boolean; since: string | undefined } {
  const condition = pod.status?.conditions?.find((c) => c.type === "Ready");
  return { ready: condition?.status === "True", since: condition?.lastTransitionTime };
}

/** exitText says how a container instance ended: "exit 137 (Error)", "signal 9", "Completed". */
export function exitText(e: { exitCode?: number; signal?: number; reason?: string }): string {
  if (e.reason === "Completed" && (e.exitCode ?? 0) === 0) return "Completed";
  const how = e.signal !== undefined ? `signal ${e.signal}` : `exit ${e.exitCode ?? "?"}`;
  return e.reason !== undefined && e.reason !== "" ? `${how} (${e.reason})` : how;
}

/** podKey is "namespace/name", how the console names a pod in maps. */
export function podKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** podPath is the pod page's address. */
export function podPath(namespace: string, name: string): string {
  return `#/pods/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`;
}

/** podApiPath is the pod's URL in the API. */
export function podApiPath(namespace: string, name: string): string {
  return `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(name)}`;
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
