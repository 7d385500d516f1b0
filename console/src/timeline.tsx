// The probe timeline of one pod: per container, a lane per probe type with a mark per probe
// (coloured by result; collapsed runs of identical results drawn as bars), the latency against
// the probe's timeout, threshold crossings, restarts and kills, and the pod's events, on one
// time axis. Hover or arrow keys select a mark; drag selects a range to zoom into.
import { useMemo, useRef, useState } from "preact/hooks";
import { describeRun, type ProbeHistoryEntry, type ProbeHistorySegment } from "../../src/prober/probe-history";
import { eventTimeMs, type KubeEvent, type Pod, type ProbeSpec } from "./model";

/** HistoryEntry is one probe as GET …/probes serves it (the agent's own type). */
export type HistoryEntry = ProbeHistoryEntry;

/** HistorySegment is a run of identical results collapsed by the agent's history store. */
export type HistorySegment = ProbeHistorySegment;

const PROBE_TYPES = ["startup", "liveness", "readiness"] as const;
const WIDTH = 1000;
const LEFT = 90;
const LANE = 16;
const LATENCY = 44;

interface Mark {
  t: number;
  end: number;
  container: string;
  probeType: string;
  result: string;
  text: string;
}

function probeSpec(pod: Pod, container: string, type: string): ProbeSpec | undefined {
  const c = pod.spec?.containers?.find((x) => x.name === container);
  if (c === undefined) return undefined;
  return type === "startup" ? c.startupProbe : type === "liveness" ? c.livenessProbe : c.readinessProbe;
}

function entryText(e: HistoryEntry, timeoutMs: number | undefined): string {
  const output = e.output.trim() === "" ? "" : ` · output: ${e.output.trim()}`;
  return `${new Date(e.time).toLocaleTimeString()} ${e.container} ${e.probeType}: ${describeRun(e)} · ${e.latencyMs.toFixed(1)} ms${timeoutMs !== undefined ? ` of ${timeoutMs} ms timeout` : ""}${output}`;
}

function segmentText(s: HistorySegment): string {
  const mean = s.count > 0 ? s.latencySumMs / s.count : 0;
  return `${new Date(s.start).toLocaleTimeString()}–${new Date(s.end).toLocaleTimeString()} ${s.container} ${s.probeType}: ${s.count} × ${s.result.toLowerCase()} · latency ${s.latencyMinMs.toFixed(1)}–${s.latencyMaxMs.toFixed(1)} ms (mean ${mean.toFixed(1)})${s.lastOutput.trim() ? ` · last output: ${s.lastOutput.trim()}` : ""}`;
}

/** Timeline draws one pod's probes and events between from and to (ms since the epoch). */
export function Timeline(props: {
  pod: Pod;
  entries: readonly HistoryEntry[];
  segments: readonly HistorySegment[];
  events: readonly KubeEvent[];
  from: number;
  to: number;
  onZoom: (from: number, to: number) => void;
}) {
  const { pod, from, to } = props;
  const [selected, setSelected] = useState<number>(-1);
  const [drag, setDrag] = useState<{ x0: number; x1: number } | undefined>(undefined);
  const svgRef = useRef<SVGSVGElement>(null);
  const span = Math.max(1, to - from);
  const x = (t: number): number => LEFT + ((t - from) / span) * (WIDTH - LEFT - 10);
  const containers = useMemo(() => {
    const names = new Set<string>((pod.spec?.containers ?? []).map((c) => c.name));
    for (const e of props.entries) names.add(e.container);
    return [...names];
  }, [pod, props.entries]);

  const marks: Mark[] = [];
  const blocks = containers.map((container) => {
    const types = PROBE_TYPES.filter((t) => probeSpec(pod, container, t) !== undefined || props.entries.some((e) => e.container === container && e.probeType === t));
    return { container, types };
  });
  let y = 24;
  const body: preact.JSX.Element[] = [];
  for (const block of blocks) {
    if (block.types.length === 0) continue;
    const top = y;
    body.push(<text class="tl-container" x={4} y={y + 10}>{block.container}</text>);
    y += 16;
    const laneY = new Map<string, number>();
    for (const type of block.types) {
      laneY.set(type, y);
      body.push(<text class="tl-label" x={8} y={y + 11}>{type}</text>);
      body.push(<line class="tl-lane" x1={LEFT} x2={WIDTH - 10} y1={y + LANE / 2} y2={y + LANE / 2} />);
      y += LANE + 4;
    }
    const entries = props.entries.filter((e) => e.container === block.container);
    const segments = props.segments.filter((s) => s.container === block.container);
    // Latency band: the scale reaches the largest timeout, so "creeping toward the timeout" shows.
    const timeouts = block.types.map((t) => (probeSpec(pod, block.container, t)?.timeoutSeconds ?? 1) * 1000);
    const maxLatency = Math.max(...timeouts, ...entries.map((e) => e.latencyMs), ...segments.map((s) => s.latencyMaxMs), 1);
    const latencyTop = y;
    const ly = (ms: number): number => latencyTop + LATENCY - (Math.min(ms, maxLatency) / maxLatency) * LATENCY;
    body.push(<text class="tl-label" x={8} y={latencyTop + 12}>latency</text>);
    body.push(<text class="tl-axis" x={LEFT - 4} y={latencyTop + 8} text-anchor="end">{`${Math.round(maxLatency)} ms`}</text>);
    body.push(<rect class="tl-band" x={LEFT} y={latencyTop} width={WIDTH - LEFT - 10} height={LATENCY} />);
    for (const type of block.types) {
      const timeout = (probeSpec(pod, block.container, type)?.timeoutSeconds ?? 1) * 1000;
      body.push(<line class={`tl-timeout tl-${type}`} x1={LEFT} x2={WIDTH - 10} y1={ly(timeout)} y2={ly(timeout)}><title>{`${type} timeout ${timeout} ms`}</title></line>);
      const points = entries.filter((e) => e.probeType === type).map((e) => `${x(Date.parse(e.time)).toFixed(1)},${ly(e.latencyMs).toFixed(1)}`);
      if (points.length > 1) body.push(<polyline class={`tl-latency tl-${type}`} points={points.join(" ")} />);
    }
    y += LATENCY + 6;
    for (const s of segments) {
      const ry = laneY.get(s.probeType);
      if (ry === undefined) continue;
      const t0 = Date.parse(s.start);
      const t1 = Date.parse(s.end);
      if (t1 < from || t0 > to) continue;
      const index = marks.push({ t: t0, end: t1, container: s.container, probeType: s.probeType, result: s.result, text: segmentText(s) }) - 1;
      body.push(
        <rect class={`tl-mark tl-segment r-${s.result.toLowerCase()}${index === selected ? " selected" : ""}`} x={x(t0)} y={ry + 3} width={Math.max(2, x(t1) - x(t0))} height={LANE - 6} onMouseEnter={() => setSelected(index)} />,
      );
    }
    let previousId = "";
    const crossingsDrawn = new Set<string>();
    for (const e of entries) {
      const t = Date.parse(e.time);
      const ry = laneY.get(e.probeType);
      if (e.probeType !== "readiness" && previousId !== "" && e.containerID !== previousId && t >= from && t <= to) {
        body.push(<line class="tl-restart" x1={x(t)} x2={x(t)} y1={top} y2={y - 4}><title>{`${block.container} restarted (${e.containerID.slice(0, 24)})`}</title></line>);
        body.push(<text class="tl-restart-label" x={x(t) + 2} y={top + 10}>restart</text>);
      }
      if (e.probeType !== "readiness") previousId = e.containerID;
      if (ry === undefined || t < from || t > to) continue;
      const timeout = (probeSpec(pod, block.container, e.probeType)?.timeoutSeconds ?? 1) * 1000;
      const index = marks.push({ t, end: t, container: e.container, probeType: e.probeType, result: e.result, text: entryText(e, timeout) }) - 1;
      body.push(
        <rect class={`tl-mark r-${e.result.toLowerCase()}${index === selected ? " selected" : ""}`} data-result={e.result} data-type={e.probeType} x={x(t) - 1.5} y={ry + 2} width={3} height={LANE - 4} onMouseEnter={() => setSelected(index)} />,
      );
      const key = `${e.probeType}/${e.containerID}/${e.time}`;
      if (e.result === "Failure" && e.run === e.threshold && !crossingsDrawn.has(key)) {
        crossingsDrawn.add(key);
        body.push(<path class="tl-crossing" d={`M${x(t) - 5},${ry - 3} L${x(t) + 5},${ry - 3} L${x(t)},${ry + 3} Z`}><title>{`${e.probeType} failureThreshold reached (${e.threshold})`}</title></path>);
      }
    }
  }
  // The pod's events on the same axis; kills as lines across the chart.
  const eventsY = y;
  body.push(<text class="tl-label" x={8} y={eventsY + 11}>events</text>);
  body.push(<line class="tl-lane" x1={LEFT} x2={WIDTH - 10} y1={eventsY + LANE / 2} y2={eventsY + LANE / 2} />);
  for (const ev of props.events) {
    const t = eventTimeMs(ev);
    if (t < from || t > to) continue;
    const text = `${new Date(t).toLocaleTimeString()} ${ev.type} ${ev.reason}: ${ev.message ?? ""}${(ev.count ?? 1) > 1 ? ` (x${ev.count}, last shown)` : ""}`;
    const index = marks.push({ t, end: t, container: "", probeType: "event", result: ev.type ?? "Normal", text }) - 1;
    if (ev.reason === "Killing") body.push(<line class="tl-kill" x1={x(t)} x2={x(t)} y1={20} y2={eventsY + LANE}><title>{text}</title></line>);
    body.push(<circle class={`tl-event e-${(ev.type ?? "normal").toLowerCase()}${index === selected ? " selected" : ""}`} data-reason={ev.reason} cx={x(t)} cy={eventsY + LANE / 2} r={4} onMouseEnter={() => setSelected(index)} />);
  }
  y = eventsY + LANE + 18;
  // Time axis ticks.
  const ticks: preact.JSX.Element[] = [];
  for (let i = 0; i <= 6; i++) {
    const t = from + (span * i) / 6;
    ticks.push(<line class="tl-grid" x1={x(t)} x2={x(t)} y1={18} y2={y - 14} />);
    ticks.push(<text class="tl-axis" x={x(t)} y={12} text-anchor="middle">{new Date(t).toLocaleTimeString([], span > 6 * 3600_000 ? { hour: "2-digit", minute: "2-digit" } : {})}</text>);
  }
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
    return from + ((vx - LEFT) / (WIDTH - LEFT - 10)) * span;
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
      <svg
        ref={svgRef}
        viewBox={`0 0 ${WIDTH} ${y}`}
        role="img"
        aria-label={`probe timeline of ${pod.metadata.name}: arrow keys step through probes, + and - zoom, drag to zoom`}
        tabIndex={0}
        data-testid="timeline"
        onKeyDown={onKey}
        onMouseDown={(e) => setDrag({ x0: e.clientX, x1: e.clientX })}
        onMouseMove={(e) => drag && setDrag({ ...drag, x1: e.clientX })}
        onMouseUp={() => {
          if (drag && Math.abs(drag.x1 - drag.x0) > 6) {
            const a = timeAt(Math.min(drag.x0, drag.x1));
            const b = timeAt(Math.max(drag.x0, drag.x1));
            props.onZoom(a, b);
          }
          setDrag(undefined);
        }}
      >
        {ticks}
        {body}
      </svg>
      <div class="tl-detail" data-testid="timeline-detail" aria-live="polite">
        {chosen ? chosen.text : "Hover a mark (or focus the chart and use ← →) to see the probe's output and where it stands against its threshold."}
      </div>
      <div class="tl-legend">
        <span class="swatch r-success" /> success <span class="swatch r-failure" /> failure <span class="swatch r-unknown" /> unknown
        <span class="swatch tl-crossing" /> threshold reached <span class="swatch tl-kill" /> kill <span class="swatch tl-restart" /> restart
      </div>
    </div>
  );
}
