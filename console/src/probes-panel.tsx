// The pod page's probes: each probe as `probelet describe` summarises it, a "Probe now" button
// with the result in place, and its recent history as runs of identical results, newest first,
// with the container's restarts between them.
import { useState } from "preact/hooks";
import { collapseRuns, type ProbeHistoryEntry, type ProbeHistorySegment } from "../../src/prober/probe-history";
import { describeProbe, describeProbeRun } from "../../src/describe/describe-pod";
import { probeOf } from "../../src/api/pod-rules";
import { podContainers, type Pod } from "./model";
import { podProbes, ProbeNowButton } from "./pod-actions";
import { timeText, timeTitle } from "./time-format";

/** Runs shown per probe before "more". */
const RUNS_SHOWN = 6;

/** ProbesPanel lists the pod's probes with their runs. */
export function ProbesPanel(props: { pod: Pod; entries: readonly ProbeHistoryEntry[]; segments: readonly ProbeHistorySegment[]; now: number }) {
  const probes = podProbes(props.pod);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  if (probes.length === 0) return <p class="muted" data-testid="probes">No probes: the agent watches this pod's containers only for exits.</p>;
  const specs = new Map(podContainers(props.pod).map((c) => [c.spec.name, c.spec]));
  return (
    <div class="probes" data-testid="probes">
      {probes.map((p) => {
        const key = `${p.container}/${p.probeType}`;
        const container = specs.get(p.container);
        const spec = container === undefined ? undefined : probeOf(container, p.probeType);
        // The agent's rule for runs (describe's too), over this probe's segments and probes, oldest first.
        const mine = (x: { container: string; probeType: string }): boolean => x.container === p.container && x.probeType === p.probeType;
        const parts = [...props.segments.filter(mine).map((s) => ({ at: s.start, part: s })), ...props.entries.filter(mine).map((e) => ({ at: e.time, part: e }))];
        const runs = collapseRuns(parts.sort((a, b) => Date.parse(a.at) - Date.parse(b.at)).map((x) => x.part)).reverse();
        const shown = expanded.has(key) ? runs : runs.slice(0, RUNS_SHOWN);
        return (
          <div class="probe" key={key} data-probe={key}>
            <div class="probe-head">
              <strong>{p.container}</strong> <span class={`probe-type t-${p.probeType}`}>{p.probeType}</span>{" "}
              <code class="probe-spec">{spec !== undefined ? describeProbe(spec) : ""}</code>{" "}
              <ProbeNowButton pod={props.pod} probes={[p]} />
            </div>
            <ol class="runs" data-testid="runs">
              {shown.map((run, i) => {
                const newer = shown[i - 1];
                const restarted = newer !== undefined && newer.containerID !== run.containerID;
                return [
                  restarted ? <li class="run-restart" key={`r${run.start}`}>container restarted</li> : null,
                  <li key={run.start} class={`run r-${run.result.toLowerCase()}`}>
                    <span class="run-time" title={timeTitle(Date.parse(run.end), props.now)}>{timeText(Date.parse(run.start), props.now)}{run.end !== run.start ? `–${timeText(Date.parse(run.end), props.now)}` : ""}</span>{" "}
                    <span class="run-result">{describeProbeRun(run)}</span>
                    {run.lastOutput.trim() !== "" ? <span class="run-output" title={run.lastOutput}> · {run.lastOutput.trim()}</span> : null}
                  </li>,
                ];
              })}
              {runs.length === 0 ? <li class="muted">no probes in this range yet</li> : null}
            </ol>
            {runs.length > RUNS_SHOWN ? (
              <button type="button" class="link" onClick={() => setExpanded(new Set([...expanded, key].filter((k) => k !== key || !expanded.has(key))))}>
                {expanded.has(key) ? "fewer" : `${runs.length - RUNS_SHOWN} older runs`}
              </button>
            ) : null}
          </div>
        );
      })}
    </div>
  );
}
