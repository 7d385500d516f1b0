// A probe's recent history as runs of identical results (`success ×18`), so the few failures
// that caused a kill stay in view next to it instead of scrolling away among successes. The
// agent's history store folds probes older than its newest 60 per probe into segments already;
// the newest whole entries are collapsed here, in this one function, until the API serves runs.
import type { ProbeHistoryEntry, ProbeHistorySegment } from "../../src/prober/probe-history";

/** ProbeRun is consecutive probes of one container instance with one result. */
export interface ProbeRun {
  container: string;
  probeType: string;
  containerID: string;
  result: string;
  /** First and last probe of the run (ms since the epoch). */
  start: number;
  end: number;
  count: number;
  lastOutput: string;
  /** The last probe's run and threshold ("failure 3 of 3"). */
  lastRun: number;
  threshold: number;
}

/** collapseRuns folds one probe's segments and entries (any order) into runs, oldest first. */
export function collapseRuns(segments: readonly ProbeHistorySegment[], entries: readonly ProbeHistoryEntry[]): ProbeRun[] {
  const pieces: ProbeRun[] = [
    ...segments.map((s) => ({ container: s.container, probeType: s.probeType, containerID: s.containerID, result: s.result, start: Date.parse(s.start), end: Date.parse(s.end), count: s.count, lastOutput: s.lastOutput, lastRun: s.lastRun, threshold: s.threshold })),
    ...entries.map((e) => ({ container: e.container, probeType: e.probeType, containerID: e.containerID, result: e.result, start: Date.parse(e.time), end: Date.parse(e.time), count: 1, lastOutput: e.output, lastRun: e.run, threshold: e.threshold })),
  ].sort((a, b) => a.start - b.start);
  const runs: ProbeRun[] = [];
  for (const piece of pieces) {
    const last = runs.at(-1);
    if (last !== undefined && last.result === piece.result && last.containerID === piece.containerID) {
      last.end = Math.max(last.end, piece.end);
      last.count += piece.count;
      last.lastOutput = piece.lastOutput;
      last.lastRun = piece.lastRun;
      last.threshold = piece.threshold;
    } else runs.push({ ...piece });
  }
  return runs;
}
