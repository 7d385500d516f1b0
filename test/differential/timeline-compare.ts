// Aligning the two recordings of one scenario: the statuses each node stored (a longest common
// subsequence of their normalized states, forgiving states too short-lived to be reliably seen),
// the times of Ready, restarts and the end (within a tolerance that grows with the time), the
// events each node posted (by type, reason and message, with their number of occurrences) and the
// status fields each node stores.

/** StatusSample is one stored status as the watch delivered it. */
export interface StatusSample {
  /** Milliseconds since the scenario's pods were created. */
  t: number;
  /** stateKey of the normalized state ("deleted" once the pod is gone). */
  key: string;
  /** Ready condition status ("True", "False" or "" when none). */
  ready: string;
  /** Restart counts by container name (init containers too). */
  restarts: Record<string, number>;
  /** The phase ("" when none). */
  phase: string;
  deleted: boolean;
  /** The status fields this copy stores (normalize.ts fieldPaths). */
  fields: readonly string[];
}

/** EventSample is an event's new occurrences as the watch delivered them. */
export interface EventSample {
  t: number;
  key: string;
  /** Occurrences this delivery adds (the increase of the event's count). */
  occurrences: number;
}

/** Recording is what one node did with one scenario's pod. */
export interface Recording {
  statuses: StatusSample[];
  events: EventSample[];
  /** How long the pod was recorded, in milliseconds. */
  windowMs: number;
}

/** Tolerances decide what counts as the same; the self-check (two kubelets) sets them. */
export interface Tolerances {
  /** A state seen on one node only, that lasted less than this, is not a difference. */
  transientMs: number;
  /** Milestone times may differ by this plus timeRelative × their time. */
  timeAbsoluteMs: number;
  timeRelative: number;
  /**
   * What one node did in the window's last this many milliseconds (plus the time tolerance: the
   * other may lag by that much) may be what the other does just after it: a state, milestone or
   * event seen on one node only that began then is not a difference.
   */
  endGraceMs: number;
  /** Event occurrence counts may differ by this, or by countRelative of the larger. */
  countAbsolute: number;
  countRelative: number;
  /** Compare the status sequences and the times of milestones (false: only which milestones both nodes reached). */
  sequence?: boolean;
}

/**
 * DEFAULT_TOLERANCES: two kubelets v1.37.2 on this 2-core machine under load differ within these
 * (docs/conformance.md, "Differential suite", the self-check runs that set them).
 */
export const DEFAULT_TOLERANCES: Tolerances = {
  transientMs: 2000,
  timeAbsoluteMs: 4000,
  timeRelative: 0.2,
  endGraceMs: 8000,
  countAbsolute: 2,
  countRelative: 0.5,
};

/** Collapsed is a run of equal states: when it began, how long it lasted, the fields its copies stored. */
interface Collapsed {
  sample: StatusSample;
  durationMs: number;
  fields: Set<string>;
}

/** collapse merges consecutive equal states. */
function collapse(samples: readonly StatusSample[], windowMs: number): Collapsed[] {
  const runs: { sample: StatusSample; fields: Set<string> }[] = [];
  for (const s of samples) {
    const last = runs[runs.length - 1];
    if (last === undefined || last.sample.key !== s.key) runs.push({ sample: s, fields: new Set(s.fields) });
    else for (const f of s.fields) last.fields.add(f);
  }
  return runs.map((run, i) => ({ ...run, durationMs: (runs[i + 1]?.sample.t ?? windowMs) - run.sample.t }));
}

/**
 * looseKey is a state with every container's waiting reason and message taken out. Between two
 * syncs the kubelet shows a restarting container waiting with the last sync's error
 * (PostStartHookError, RunContainerError…) or with CrashLoopBackOff, depending on how many syncs
 * its PLEG events caused; two kubelets differ on it (the self-check).
 */
function looseKey(key: string): string {
  return key.replace(/waiting\((\w*)(, "(?:[^"\\]|\\.)*")?\)/g, "waiting(*)");
}

/** lcs pairs equal keys of two lists in order (longest common subsequence). */
function lcs(a: readonly string[], b: readonly string[]): [number, number][] {
  const n = a.length;
  const m = b.length;
  const table: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i]![j] = a[i] === b[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
    }
  }
  const pairs: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      pairs.push([i, j]);
      i++;
      j++;
    } else if (table[i + 1]![j]! >= table[i]![j + 1]!) {
      i++;
    } else {
      j++;
    }
  }
  return pairs;
}

/** Milestone is a moment the brief compares in time: Ready changes, restarts, the end. */
interface Milestone {
  name: string;
  t: number;
}

/**
 * milestones lists a recording's Ready changes (to True, and back to False after True: the first
 * status's False is when the node wrote it, not a behaviour), restart count increases, terminal
 * phase and deletion, numbered.
 */
function milestones(samples: readonly StatusSample[]): Milestone[] {
  const out: Milestone[] = [];
  const seen = new Map<string, number>();
  const add = (name: string, t: number): void => {
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    out.push({ name: `${name} #${n}`, t });
  };
  let ready = "";
  let phase = "";
  const restarts: Record<string, number> = {};
  for (const s of samples) {
    if (s.ready !== ready && (s.ready === "True" || (s.ready === "False" && ready === "True"))) add(`Ready=${s.ready}`, s.t);
    ready = s.ready !== "" ? s.ready : ready;
    for (const [name, count] of Object.entries(s.restarts)) {
      for (let n = (restarts[name] ?? 0) + 1; n <= count; n++) out.push({ name: `restart ${name} #${n}`, t: s.t });
      restarts[name] = Math.max(restarts[name] ?? 0, count);
    }
    if (s.phase !== phase && (s.phase === "Succeeded" || s.phase === "Failed")) add(`phase ${s.phase}`, s.t);
    phase = s.phase;
    if (s.deleted) add("deleted", s.t);
  }
  return out;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/**
 * compareRecordings lists the differences between two recordings of one scenario ([] = the same):
 * states stored by one node only (unless short-lived or at the window's end), milestones apart by
 * more than the tolerance or on one node only, events by occurrence count, and the status fields
 * one node stores and the other does not in the same state.
 */
export function compareRecordings(names: readonly [string, string], a: Recording, b: Recording, tol: Tolerances = DEFAULT_TOLERANCES): string[] {
  const diffs: string[] = [];
  const end = Math.min(a.windowMs, b.windowMs);
  // What began after `late` on one node only may come just after the window on the other.
  const late = end - tol.endGraceMs;
  const timeTol = (t: number): number => tol.timeAbsoluteMs + tol.timeRelative * t;
  const isLate = (t: number): boolean => t > late - timeTol(t);
  const inWindow = <T extends { t: number }>(list: readonly T[]): T[] => list.filter((x) => x.t <= end);

  // Statuses: align, then report what one side stored and the other did not, unless short-lived
  // or late in the window.
  const ca = collapse(inWindow(a.statuses), end);
  const cb = collapse(inWindow(b.statuses), end);
  const pairs = lcs(ca.map((c) => c.sample.key), cb.map((c) => c.sample.key));
  const matchedA = new Set(pairs.map(([i]) => i));
  const matchedB = new Set(pairs.map(([, j]) => j));
  const unmatched = (list: Collapsed[], matched: Set<number>, other: Collapsed[], name: string): void => {
    list.forEach((c, i) => {
      if (matched.has(i) || c.durationMs < tol.transientMs || isLate(c.sample.t)) return;
      // The same state but for a waiting reason, on the other node at about the same time.
      const from = c.sample.t - timeTol(c.sample.t);
      const to = c.sample.t + c.durationMs + timeTol(c.sample.t);
      const loose = looseKey(c.sample.key);
      if (other.some((o) => o.sample.t <= to && o.sample.t + o.durationMs >= from && looseKey(o.sample.key) === loose)) return;
      diffs.push(`status only on ${name} at ${seconds(c.sample.t)} for ${seconds(c.durationMs)}: ${c.sample.key}`);
    });
  };
  if (tol.sequence !== false) {
    unmatched(ca, matchedA, cb, names[0]);
    unmatched(cb, matchedB, ca, names[1]);
  }

  // Times of Ready, restarts and the end.
  const ma = milestones(inWindow(a.statuses));
  const mb = milestones(inWindow(b.statuses));
  const byName = new Map(mb.map((m) => [m.name, m]));
  for (const m of ma) {
    const other = byName.get(m.name);
    byName.delete(m.name);
    if (other === undefined) {
      if (!isLate(m.t)) diffs.push(`${m.name} only on ${names[0]} (at ${seconds(m.t)})`);
    } else if (tol.sequence !== false && Math.abs(m.t - other.t) > Math.max(timeTol(m.t), timeTol(other.t))) {
      diffs.push(`${m.name} at ${seconds(m.t)} on ${names[0]}, ${seconds(other.t)} on ${names[1]}`);
    }
  }
  for (const m of byName.values()) {
    if (!isLate(m.t)) diffs.push(`${m.name} only on ${names[1]} (at ${seconds(m.t)})`);
  }

  // Events: occurrences per type, reason and message, and when each was first seen.
  const count = (events: readonly EventSample[]): Map<string, { n: number; first: number }> => {
    const out = new Map<string, { n: number; first: number }>();
    for (const e of inWindow(events)) {
      const seen = out.get(e.key);
      if (seen) seen.n += e.occurrences;
      else out.set(e.key, { n: e.occurrences, first: e.t });
    }
    return out;
  };
  const ea = count(a.events);
  const eb = count(b.events);
  for (const key of [...new Set([...ea.keys(), ...eb.keys()])].sort()) {
    const na = ea.get(key);
    const nb = eb.get(key);
    if (na === undefined || nb === undefined) {
      const only = (na ?? nb)!;
      if (!isLate(only.first)) diffs.push(`event only on ${na === undefined ? names[1] : names[0]} (×${only.n}): ${key}`);
    } else if (Math.abs(na.n - nb.n) > Math.max(tol.countAbsolute, tol.countRelative * Math.max(na.n, nb.n))) {
      diffs.push(`event ×${na.n} on ${names[0]}, ×${nb.n} on ${names[1]}: ${key}`);
    }
  }

  // Which status fields each node stores: a field a node stored in a state both reached, that the
  // other never stored in the window (when a field first appears differs between two kubelets).
  const everA = new Set(ca.flatMap((c) => [...c.fields]));
  const everB = new Set(cb.flatMap((c) => [...c.fields]));
  const onlyA = new Set<string>();
  const onlyB = new Set<string>();
  for (const [i, j] of pairs) {
    for (const f of ca[i]!.fields) if (!everB.has(f)) onlyA.add(f);
    for (const f of cb[j]!.fields) if (!everA.has(f)) onlyB.add(f);
  }
  if (onlyA.size > 0) diffs.push(`fields only on ${names[0]}: ${[...onlyA].sort().join(", ")}`);
  if (onlyB.size > 0) diffs.push(`fields only on ${names[1]}: ${[...onlyB].sort().join(", ")}`);
  return diffs;
}

/**
 * differenceKind is a difference without its counts and times, so the same kind of difference
 * in several scenarios can be counted once ("event only on probelet (×n): Normal Created …").
 */
export function differenceKind(difference: string): string {
  return difference
    .replace(/×\d+/g, "×n")
    .replace(/\b\d+(\.\d+)? s\b/g, "t")
    .replace(/ #\d+/g, " #n")
    .replace(/ in pod [^ ]+$/, " in pod …");
}
