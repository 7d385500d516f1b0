// The probe timeline of one pod: per container (init containers and sidecars first, as they
// run), its runs as bars with each exit marked, a lane per probe type with a mark per probe
// (coloured by result; runs collapsed by the history store drawn as bars), the latency against
// the probe's timeout and the threshold crossings; restarts as lines across the container, kills
// (the Killing events) across the chart, and the pod's events, on one time axis with ticks on
// round times. Hover or arrow keys select a mark; drag selects a range to zoom into.
import { useMemo, useRef, useState } from "preact/hooks";
import type { ContainerInstance } from "../../src/api/container-instance";
import { failedExit } from "../../src/agent/exit-status";
import { describeRun, type ProbeHistoryEntry, type ProbeHistorySegment } from "../../src/prober/probe-history";
import { probeOf, type ProbeType } from "../../src/api/pod-rules";
import { eventTimeMs, exitText, podContainers, PROBE_ORDER, type KubeEvent, type Pod, type PodContainer } from "./model";
import { axisTicks, placeLabels } from "./timeline-axis";
import { timeText } from "./time-format";

/** HistoryEntry is one probe as GET …/probes serves it (the agent's own type). */
export type HistoryEntry = ProbeHistoryEntry;

/** HistorySegment is a run of identical results collapsed by the agent's history store. */
export type HistorySegment = ProbeHistorySegment;

const WIDTH = 1000;
const LEFT = 104;
const RIGHT_EDGE = WIDTH - 10;
const HEADER = 16;
const RUNS_LANE = 12;
const LANE = 16;
const LATENCY = 40;
/** Horizontal room a tick label needs, in chart units: it decides how many ticks fit. */
const TICK_ROOM = 110;
const MAX_NAME_CHARS = 15;

interface Mark {
  /** What the mark stands for, the same from one refresh to the next. */
  id: string;
  t: number;
  text: string;
}

/** Run is one container instance on the chart: when it ran, and how it ended. */
interface Run {
  containerID: string;
  start: number;
  end: number | undefined;
  instance: ContainerInstance | undefined;
}

/**
 * containerRuns merges what is known of a container's instances: the agent's instance log, its
 * status (the running and the last one), and the container IDs its probes saw (a history from
 * before the agent restarted). Oldest first.
 */
function containerRuns(c: PodContainer, instances: readonly ContainerInstance[], entries: readonly HistoryEntry[], segments: readonly HistorySegment[]): Run[] {
  const byId = new Map<string, Run>();
  const add = (id: string, start: number, end: number | undefined, instance?: ContainerInstance): void => {
    if (id === "" || Number.isNaN(start)) return;
    const known = byId.get(id);
    if (known === undefined) byId.set(id, { containerID: id, start, end, instance });
    else byId.set(id, { containerID: id, start: Math.min(known.start, start), end: known.end ?? end, instance: known.instance ?? instance });
  };
  for (const i of instances) if (i.container === c.spec.name) add(i.containerID, Date.parse(i.startedAt ?? ""), i.finishedAt !== undefined ? Date.parse(i.finishedAt) : undefined, i);
  const last = c.status?.lastState?.terminated;
  if (last?.containerID !== undefined) add(last.containerID, Date.parse(last.startedAt ?? ""), Date.parse(last.finishedAt ?? ""), { container: c.spec.name, containerID: last.containerID, exitCode: last.exitCode, ...(last.reason !== undefined ? { reason: last.reason } : {}), ...(last.finishedAt !== undefined ? { finishedAt: last.finishedAt } : {}) });
  if (c.status?.state?.running !== undefined && c.status.containerID !== undefined) add(c.status.containerID, Date.parse(c.status.state.running.startedAt ?? ""), undefined);
  for (const s of segments) if (s.container === c.spec.name && !byId.has(s.containerID)) add(s.containerID, Date.parse(s.start), undefined);
  for (const e of entries) if (e.container === c.spec.name && !byId.has(e.containerID)) add(e.containerID, Date.parse(e.time), undefined);
  return [...byId.values()].sort((a, b) => a.start - b.start);
}

/** Timeline draws one pod's containers, probes and events between from and to (ms since the epoch). */
export function Timeline(props: {
  pod: Pod;
  entries: readonly HistoryEntry[];
  segments: readonly HistorySegment[];
  instances: readonly ContainerInstance[];
  events: readonly KubeEvent[];
  from: number;
  to: number;
  now: number;
  onZoom: (from: number, to: number) => void;
}) {
  const { pod, from, to, now } = props;
  // The selected mark by what it is, not by its place: a refresh that adds marks keeps it.
  const [selectedKey, setSelectedKey] = useState("");
  const [drag, setDrag] = useState<{ x0: number; x1: number } | undefined>(undefined);
  const svgRef = useRef<SVGSVGElement>(null);
  const span = Math.max(1, to - from);
  const x = (t: number): number => LEFT + ((t - from) / span) * (RIGHT_EDGE - LEFT);
  const clampX = (t: number): number => Math.max(LEFT, Math.min(RIGHT_EDGE, x(t)));
  const visible = (t: number): boolean => t >= from && t <= to;
  const containers = useMemo(() => podContainers(pod), [pod]);

  const marks: Mark[] = [];
  const select = (mark: Mark): number => marks.push(mark) - 1;
  const keyOf = (index: number): string => marks[index]?.id ?? "";
  const isSelected = (index: number): boolean => selectedKey !== "" && keyOf(index) === selectedKey;
  const setSelected = (index: number): void => setSelectedKey(keyOf(index));
  const body: preact.JSX.Element[] = [];
  let y = 22;
  for (const c of containers) {
    const name = c.spec.name;
    const types = PROBE_ORDER.filter((t) => probeOf(c.spec, t) !== undefined || props.entries.some((e) => e.container === name && e.probeType === t));
    const entries = props.entries.filter((e) => e.container === name);
    const segments = props.segments.filter((s) => s.container === name);
    const runs = containerRuns(c, props.instances, entries, segments);
    const top = y;
    const shortName = name.length > MAX_NAME_CHARS ? `${name.slice(0, MAX_NAME_CHARS - 1)}…` : name;
    body.push(<text class="tl-container" x={4} y={y + 11}><title>{name}</title>{shortName}</text>);
    const labelY = y + 11;
    y += HEADER;
    // The runs of the container: a bar while it ran, a mark where it ended.
    const runsY = y;
    body.push(<text class={c.kind === "container" ? "tl-label" : "tl-label tl-kind"} x={20} y={runsY + 9}>{c.kind === "container" ? "runs" : c.kind}</text>);
    body.push(<line class="tl-lane" x1={LEFT} x2={RIGHT_EDGE} y1={runsY + RUNS_LANE / 2} y2={runsY + RUNS_LANE / 2} />);
    runs.forEach((run, i) => {
      const end = run.end ?? runs[i + 1]?.start ?? now;
      if (end < from || run.start > to) return;
      const exited = run.instance?.finishedAt !== undefined;
      body.push(<rect class={`tl-run${exited ? " ended" : ""}`} x={clampX(run.start)} y={runsY + 3} width={Math.max(1, clampX(end) - clampX(run.start))} height={RUNS_LANE - 6} />);
      if (exited && run.instance !== undefined && run.end !== undefined && visible(run.end)) {
        const text = `${timeText(run.end, now)} ${name} ended: ${exitText(run.instance)}`;
        const index = select({ id: `exit ${run.containerID}`, t: run.end, text });
        const failed = failedExit(run.instance);
        body.push(
          <path class={`tl-exit${failed ? " failed" : ""}${isSelected(index) ? " selected" : ""}`} data-exit-code={run.instance.exitCode} d={`M${x(run.end)},${runsY} l4,${RUNS_LANE / 2} l-4,${RUNS_LANE / 2} l-4,${-RUNS_LANE / 2} Z`} onMouseEnter={() => setSelected(index)}>
            <title>{text}</title>
          </path>,
        );
      }
    });
    y += RUNS_LANE + 2;
    const laneY = new Map<string, number>();
    for (const type of types) {
      laneY.set(type, y);
      body.push(<text class="tl-label" x={20} y={y + 11}>{type}</text>);
      body.push(<line class="tl-lane" x1={LEFT} x2={RIGHT_EDGE} y1={y + LANE / 2} y2={y + LANE / 2} />);
      y += LANE + 2;
    }
    if (types.length > 0) {
      // Latency band: the scale reaches the largest timeout, so "creeping toward the timeout" shows.
      const timeoutOf = (type: ProbeType): number => (probeOf(c.spec, type)?.timeoutSeconds ?? 1) * 1000;
      const maxLatency = Math.max(...types.map(timeoutOf), ...entries.map((e) => e.latencyMs), ...segments.map((s) => s.latencyMaxMs), 1);
      const latencyTop = y + 2;
      const ly = (ms: number): number => latencyTop + LATENCY - (Math.min(ms, maxLatency) / maxLatency) * LATENCY;
      body.push(<text class="tl-label" x={20} y={latencyTop + 12}>latency</text>);
      body.push(<text class="tl-axis" x={LEFT + 3} y={latencyTop + 9}>{`${Math.round(maxLatency)} ms`}</text>);
      body.push(<rect class="tl-band" x={LEFT} y={latencyTop} width={RIGHT_EDGE - LEFT} height={LATENCY} />);
      for (const type of types) {
        body.push(<line class={`tl-timeout tl-${type}`} x1={LEFT} x2={RIGHT_EDGE} y1={ly(timeoutOf(type))} y2={ly(timeoutOf(type))}><title>{`${type} timeout ${timeoutOf(type)} ms`}</title></line>);
        const points = entries.filter((e) => e.probeType === type && visible(Date.parse(e.time))).map((e) => `${x(Date.parse(e.time)).toFixed(1)},${ly(e.latencyMs).toFixed(1)}`);
        if (points.length > 1) body.push(<polyline class={`tl-latency tl-${type}`} points={points.join(" ")} />);
      }
      y = latencyTop + LATENCY + 2;
      for (const s of segments) {
        const ry = laneY.get(s.probeType);
        const t0 = Date.parse(s.start);
        const t1 = Date.parse(s.end);
        if (ry === undefined || t1 < from || t0 > to) continue;
        const mean = s.count > 0 ? s.latencySumMs / s.count : 0;
        const text = `${timeText(t0, now)}–${timeText(t1, now)} ${name} ${s.probeType}: ${s.result.toLowerCase()} ×${s.count} · latency ${s.latencyMinMs.toFixed(1)}–${s.latencyMaxMs.toFixed(1)} ms (mean ${mean.toFixed(1)})${s.lastOutput.trim() ? ` · last output: ${s.lastOutput.trim()}` : ""}`;
        const index = select({ id: `segment ${name} ${s.probeType} ${s.start}`, t: t0, text });
        body.push(<rect class={`tl-mark tl-segment r-${s.result.toLowerCase()}${isSelected(index) ? " selected" : ""}`} x={clampX(t0)} y={ry + 3} width={Math.max(2, clampX(t1) - clampX(t0))} height={LANE - 6} onMouseEnter={() => setSelected(index)} />);
      }
      const crossings = new Set<string>();
      for (const e of entries) {
        const t = Date.parse(e.time);
        const ry = laneY.get(e.probeType);
        if (ry === undefined || !visible(t)) continue;
        const output = e.output.trim() === "" ? "" : ` · output: ${e.output.trim()}`;
        const text = `${timeText(t, now)} ${name} ${e.probeType}: ${describeRun(e)} · ${e.latencyMs.toFixed(1)} ms of ${timeoutOf(e.probeType)} ms timeout${output}`;
        const index = select({ id: `probe ${name} ${e.probeType} ${e.time}`, t, text });
        body.push(<rect class={`tl-mark r-${e.result.toLowerCase()}${isSelected(index) ? " selected" : ""}`} data-result={e.result} data-type={e.probeType} x={x(t) - 1.5} y={ry + 2} width={3} height={LANE - 4} onMouseEnter={() => setSelected(index)} />);
        const key = `${e.probeType}/${e.containerID}/${e.time}`;
        if (e.result === "Failure" && e.run === e.threshold && !crossings.has(key)) {
          crossings.add(key);
          body.push(<path class="tl-crossing" d={`M${x(t) - 5},${ry - 3} L${x(t) + 5},${ry - 3} L${x(t)},${ry + 3} Z`}><title>{`${e.probeType} failureThreshold reached (${e.threshold})`}</title></path>);
        }
      }
    }
    // Restarts: each run after the first began with one; labels that would overlap are merged.
    const restarts = runs.slice(1).filter((r) => visible(r.start));
    for (const r of restarts) {
      body.push(<line class="tl-restart" x1={x(r.start)} x2={x(r.start)} y1={top + HEADER - 2} y2={y}><title>{`${timeText(r.start, now)} ${name} restarted (${r.containerID.replace(/^\w+:\/\//, "").slice(0, 12)})`}</title></line>);
    }
    const groups: { x: number; count: number }[] = [];
    for (const r of restarts) {
      const last = groups.at(-1);
      if (last !== undefined && x(r.start) - last.x < (last.count > 1 ? 70 : 50)) last.count++;
      else groups.push({ x: x(r.start), count: 1 });
    }
    const labels = groups.map((g) => ({ item: g, x: g.x + 2 + (g.count > 1 ? 33 : 21), text: g.count > 1 ? `restarts ×${g.count}` : "restart" }));
    for (const placed of placeLabels(labels, LEFT, RIGHT_EDGE)) {
      body.push(<text class="tl-restart-label" x={placed.x} y={labelY} text-anchor={placed.anchor}>{placed.item.count > 1 ? `restarts ×${placed.item.count}` : "restart"}</text>);
    }
    y += 8;
  }
  // The pod's events on the same axis; kills as lines across the chart.
  const eventsY = y;
  body.push(<text class="tl-label" x={4} y={eventsY + 11}>events</text>);
  body.push(<line class="tl-lane" x1={LEFT} x2={RIGHT_EDGE} y1={eventsY + LANE / 2} y2={eventsY + LANE / 2} />);
  for (const ev of props.events) {
    const t = eventTimeMs(ev);
    if (!visible(t)) continue;
    const text = `${timeText(t, now)} ${ev.type} ${ev.reason}: ${ev.message ?? ""}${(ev.count ?? 1) > 1 ? ` (×${ev.count}, the last shown)` : ""}`;
    const index = select({ id: `event ${ev.metadata?.name ?? t} ${ev.reason ?? ""}`, t, text });
    if (ev.reason === "Killing") body.push(<line class="tl-kill" x1={x(t)} x2={x(t)} y1={20} y2={eventsY + LANE}><title>{text}</title></line>);
    body.push(<circle class={`tl-event e-${(ev.type ?? "normal").toLowerCase()}${isSelected(index) ? " selected" : ""}`} data-reason={ev.reason} cx={x(t)} cy={eventsY + LANE / 2} r={4} onMouseEnter={() => setSelected(index)} />);
  }
  y = eventsY + LANE + 6;
  // Time axis: ticks on round times; labels kept inside the chart and apart.
  const ticks = axisTicks(from, to, Math.max(2, Math.floor((RIGHT_EDGE - LEFT) / TICK_ROOM)), now);
  const grid = ticks.map((tick) => <line class="tl-grid" x1={x(tick.t)} x2={x(tick.t)} y1={16} y2={y} />);
  const tickLabels = placeLabels(ticks.map((tick) => ({ item: tick, x: x(tick.t), text: tick.label })), LEFT, RIGHT_EDGE).map((p) => (
    <text class="tl-axis tl-tick" x={p.x} y={12} text-anchor={p.anchor}>{p.item.label}</text>
  ));

  const selected = marks.findIndex((_mark, i) => isSelected(i));
  const order = marks.map((_mark, i) => i).sort((a, b) => (marks[a]?.t ?? 0) - (marks[b]?.t ?? 0));
  const step = (dir: number): void => {
    const pos = order.indexOf(selected);
    const next = order[Math.max(0, Math.min(order.length - 1, pos < 0 ? (dir > 0 ? 0 : order.length - 1) : pos + dir))];
    if (next !== undefined) setSelected(next);
  };
  const timeAt = (clientX: number): number => {
    const box = svgRef.current?.getBoundingClientRect();
    if (box === undefined) return from;
    const vx = ((clientX - box.left) / box.width) * WIDTH;
    return from + ((vx - LEFT) / (RIGHT_EDGE - LEFT)) * span;
  };
  const onKey = (e: KeyboardEvent): void => {
    if (e.key === "ArrowRight") step(1);
    else if (e.key === "ArrowLeft") step(-1);
    else if (e.key === "+" || e.key === "=") props.onZoom(from + span / 4, to - span / 4);
    else if (e.key === "-") props.onZoom(from - span / 2, to + span / 2);
    else return;
    e.preventDefault();
  };
  const chosen = marks[selected];
  return (
    <div class="timeline">
      <div class="timeline-scroll">
        <svg
          ref={svgRef}
          viewBox={`0 0 ${WIDTH} ${y}`}
          role="img"
          aria-label={`probe timeline of ${pod.metadata.name}: arrow keys step through probes, + and - zoom, drag to zoom`}
          tabIndex={0}
          data-testid="timeline"
          data-from={Math.round(from)}
          data-to={Math.round(to)}
          onKeyDown={onKey}
          onMouseDown={(e) => setDrag({ x0: e.clientX, x1: e.clientX })}
          onMouseMove={(e) => drag && setDrag({ ...drag, x1: e.clientX })}
          onMouseUp={() => {
            if (drag && Math.abs(drag.x1 - drag.x0) > 6) props.onZoom(timeAt(Math.min(drag.x0, drag.x1)), timeAt(Math.max(drag.x0, drag.x1)));
            setDrag(undefined);
          }}
        >
          {grid}
          {tickLabels}
          {body}
        </svg>
      </div>
      <div class="tl-detail" data-testid="timeline-detail" aria-live="polite">
        {chosen ? chosen.text : "Hover a mark (or focus the chart and use ← →) to see the probe's output and where it stands against its threshold."}
      </div>
      <div class="tl-legend">
        <span class="swatch r-success" /> success <span class="swatch r-failure" /> failure <span class="swatch r-unknown" /> unknown
        <span class="swatch tl-crossing" /> threshold reached <span class="swatch tl-run" /> running <span class="swatch tl-exit" /> exit
        <span class="swatch tl-kill" /> kill <span class="swatch tl-restart" /> restart
      </div>
    </div>
  );
}
