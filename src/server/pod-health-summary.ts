// GET /probes/summary: every pod's health over the last minutes in one answer (beyond the
// kubelet, as its /stats/summary is for resources): per probe a strip of results in time
// buckets with counts and the last failure's output, and the containers' exits. The console's
// pod list draws it, so which pods flap, and why, shows without opening each one.
import type { Pod } from "../api/types.js";
import type { ContainerInstance } from "../api/container-instance.js";
import { failedExit } from "../agent/exit-status.js";
import { PODS } from "../apiserver/resources/pods.js";
import type { ProbeHistoryRange } from "../prober/probe-history.js";
import type { ProbeType } from "../prober/probe-type.js";
import type { Result } from "../prober/results/cached-result.js";
import { parseRangeQuery } from "./probe-range-query.js";
import { queryNonNegativeInt } from "../apiserver/endpoints/query.js";
import { sendJson } from "../apiserver/endpoints/respond.js";
import type { RequestContext } from "../apiserver/endpoints/request-context.js";
import { badRequestStatus, StatusError } from "../apiserver/endpoints/status-object.js";

/** DEFAULT_SUMMARY_MS is the range when `since` is not given: the last 10 minutes. */
export const DEFAULT_SUMMARY_MS = 10 * 60_000;
/** DEFAULT_BUCKETS and MAX_BUCKETS: how finely the range is cut (30 s each by default). */
export const DEFAULT_BUCKETS = 20;
export const MAX_BUCKETS = 120;
/** At most this many exits are listed per pod (the newest). */
const MAX_EXITS = 50;

/** ProbeHealth is one probe's results in the range. */
export interface ProbeHealth {
  container: string;
  probeType: ProbeType;
  /** One character per bucket, oldest first: "f" a failure, "u" an unknown and no failure, "s" successes only, "." no probe. */
  buckets: string;
  success: number;
  failure: number;
  unknown: number;
  /** The newest probe in the range. */
  last?: { time: string; result: Result; output: string };
  /** The newest failure in the range, with the handler's output: why it fails. */
  lastFailure?: { time: string; output: string };
}

/** ContainerExit is a container instance that ended in the range. */
export interface ContainerExit {
  container: string;
  /** When it ended (RFC 3339). */
  time: string;
  exitCode?: number;
  signal?: number;
  reason?: string;
}

/** PodHealth is one pod's probes (the worst first) and exits in the range. */
export interface PodHealth {
  namespace: string;
  name: string;
  probes: ProbeHealth[];
  /** Oldest first, the newest MAX_EXITS. */
  exits: ContainerExit[];
  /** Probe failures plus failed exits (failedExit) in the range: the pod list's "most failures lately". */
  failures: number;
}

/** PodHealthSummary is what GET /probes/summary answers. */
export interface PodHealthSummary {
  kind: "PodHealthSummary";
  apiVersion: "probelet/v1alpha1";
  since: string;
  until: string;
  bucketSeconds: number;
  items: PodHealth[];
}

const SEVERITY: Readonly<Record<string, number>> = { ".": 0, s: 1, u: 2, f: 3 };
const MARK: Readonly<Record<Result, string>> = { Success: "s", Unknown: "u", Failure: "f" };

/** summarizePodHealth folds one pod's history range and container instances into buckets over [since, until]. */
export function summarizePodHealth(pod: { namespace: string; name: string }, range: ProbeHistoryRange, instances: readonly ContainerInstance[], since: number, until: number, buckets: number): PodHealth {
  const bucketMs = Math.max(1, (until - since) / buckets);
  const probes = new Map<string, { health: ProbeHealth; marks: string[]; lastMs: number; lastFailureMs: number }>();
  const probeOf = (container: string, probeType: ProbeType) => {
    const key = `${container}/${probeType}`;
    let p = probes.get(key);
    if (p === undefined) {
      p = { health: { container, probeType, buckets: "", success: 0, failure: 0, unknown: 0 }, marks: new Array<string>(buckets).fill("."), lastMs: -Infinity, lastFailureMs: -Infinity };
      probes.set(key, p);
    }
    return p;
  };
  const mark = (marks: string[], from: number, to: number, result: Result): void => {
    const first = Math.max(0, Math.floor((from - since) / bucketMs));
    const last = Math.min(buckets - 1, Math.floor((to - since) / bucketMs));
    for (let i = first; i <= last; i++) if ((SEVERITY[marks[i] ?? "."] ?? 0) < (SEVERITY[MARK[result]] ?? 0)) marks[i] = MARK[result];
  };
  const count = (health: ProbeHealth, result: Result, n: number): void => {
    if (result === "Success") health.success += n;
    else if (result === "Failure") health.failure += n;
    else health.unknown += n;
  };
  // Runs collapsed by the history store count in proportion to their overlap with the range.
  for (const s of range.segments) {
    const start = Date.parse(s.start);
    const end = Date.parse(s.end);
    if (end < since || start > until) continue;
    const p = probeOf(s.container, s.probeType);
    const overlap = end > start ? (Math.min(end, until) - Math.max(start, since)) / (end - start) : 1;
    count(p.health, s.result, Math.max(1, Math.round(s.count * overlap)));
    mark(p.marks, Math.max(start, since), Math.min(end, until), s.result);
    if (end > p.lastMs) {
      p.lastMs = end;
      p.health.last = { time: s.end, result: s.result, output: s.lastOutput };
    }
    if (s.result === "Failure" && end > p.lastFailureMs) {
      p.lastFailureMs = end;
      p.health.lastFailure = { time: s.end, output: s.lastOutput };
    }
  }
  for (const e of range.items) {
    const t = Date.parse(e.time);
    if (t < since || t > until) continue;
    const p = probeOf(e.container, e.probeType);
    count(p.health, e.result, 1);
    mark(p.marks, t, t, e.result);
    if (t >= p.lastMs) {
      p.lastMs = t;
      p.health.last = { time: e.time, result: e.result, output: e.output };
    }
    if (e.result === "Failure" && t >= p.lastFailureMs) {
      p.lastFailureMs = t;
      p.health.lastFailure = { time: e.time, output: e.output };
    }
  }
  const exits: ContainerExit[] = [];
  for (const i of instances) {
    const t = Date.parse(i.finishedAt ?? "");
    if (!(t >= since && t <= until)) continue;
    exits.push({
      container: i.container,
      time: i.finishedAt ?? "",
      ...(i.exitCode !== undefined ? { exitCode: i.exitCode } : {}),
      ...(i.signal !== undefined ? { signal: i.signal } : {}),
      ...(i.reason !== undefined ? { reason: i.reason } : {}),
    });
  }
  exits.sort((a, b) => a.time.localeCompare(b.time));
  const list = [...probes.values()].map((p) => ({ ...p.health, buckets: p.marks.join("") }));
  list.sort((a, b) => b.failure - a.failure || b.unknown - a.unknown || a.container.localeCompare(b.container) || a.probeType.localeCompare(b.probeType));
  const failures = list.reduce((n, p) => n + p.failure, 0) + exits.filter(failedExit).length;
  return { namespace: pod.namespace, name: pod.name, probes: list, exits: exits.slice(-MAX_EXITS), failures };
}

/** podHealthSummary serves GET /probes/summary?since=&until=&buckets=&namespace= (times RFC 3339; default the last 10 minutes). */
export function podHealthSummary(ctx: RequestContext): void {
  const range = parseRangeQuery(ctx.query, ctx.api.probeHistoryWindowMs);
  const until = range.until ?? ctx.clock.now();
  const since = range.since ?? until - DEFAULT_SUMMARY_MS;
  if (since > until || until - since > ctx.api.probeHistoryWindowMs) {
    throw new StatusError(badRequestStatus(`invalid range: since must be before until and within the probe history window of ${ctx.api.probeHistoryWindowMs / 1000}s`));
  }
  const buckets = queryNonNegativeInt(ctx.query, "buckets") ?? DEFAULT_BUCKETS;
  if (buckets < 1 || buckets > MAX_BUCKETS) throw new StatusError(badRequestStatus(`invalid buckets ${buckets}: must be between 1 and ${MAX_BUCKETS}`));
  const namespace = ctx.query.get("namespace") ?? undefined;
  const pods = ctx.api.store.list<Pod>(PODS.name, namespace === undefined || namespace === "" ? {} : { namespace }).items;
  const items = pods.map((pod) => {
    const ns = pod.metadata.namespace ?? "default";
    const name = pod.metadata.name ?? "";
    const history = ctx.api.probeHistoryRange(ns, name, { ...range, since, until });
    return summarizePodHealth({ namespace: ns, name }, history, ctx.api.containerInstances(ns, name), since, until, buckets);
  });
  const summary: PodHealthSummary = {
    kind: "PodHealthSummary",
    apiVersion: "probelet/v1alpha1",
    since: new Date(since).toISOString(),
    until: new Date(until).toISOString(),
    bucketSeconds: (until - since) / buckets / 1000,
    items,
  };
  sendJson(ctx.res, 200, summary);
}
