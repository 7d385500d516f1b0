// A pod's health at a glance in its list row: per probe (the worst first) a strip of its results
// over the last minutes, one cell per time bucket (red: a failure, grey: unknown, green: only
// successes, pale: no probe, empty: before the pod existed), the containers' exits as ticks
// across the strips, and beside them, in words, why: the newest failure's output, or the last
// failed exit.
import { Component } from "preact";
import { failedExit } from "../../src/agent/exit-status";
import type { PodHealth } from "../../src/server/pod-health-summary";
import { exitText } from "./model";
import { HEALTH_BUCKETS } from "./pod-health";
import { timeText } from "./time-format";

const CELL = 5;
const GAP = 1;
const ROW = 6;
const MAX_ROWS = 3;
const WIDTH = HEALTH_BUCKETS * (CELL + GAP);

const CELL_CLASS: Readonly<Record<string, string>> = { f: "r-failure", u: "r-unknown", s: "r-success", ".": "r-none" };

/** healthWhy is the one line that says why a pod is unhealthy lately, or "" when nothing failed. */
export function healthWhy(health: PodHealth | undefined): string {
  if (health === undefined) return "";
  const worst = health.probes[0];
  if (worst !== undefined && worst.failure > 0) {
    const output = worst.lastFailure?.output.trim() ?? "";
    return `${worst.container} ${worst.probeType} failed ×${worst.failure}${output !== "" ? `: ${output}` : ""}`;
  }
  const failed = health.exits.filter(failedExit);
  const last = failed.at(-1);
  if (last !== undefined) return `${last.container} ended ×${failed.filter((e) => e.container === last.container).length}: ${exitText(last)}`;
  return "";
}

/**
 * cellRuns groups equal neighbouring cells into one rectangle each: a strip is a few elements,
 * not one per bucket, so 500 rows stay light.
 */
function cellRuns(buckets: string, beforePod: (i: number) => boolean): { cls: string; first: number; count: number }[] {
  const runs: { cls: string; first: number; count: number }[] = [];
  [...buckets].forEach((mark, i) => {
    const cls = mark === "." && beforePod(i) ? "r-before" : (CELL_CLASS[mark] ?? "r-none");
    const last = runs.at(-1);
    if (last !== undefined && last.cls === cls) last.count++;
    else runs.push({ cls, first: i, count: 1 });
  });
  return runs;
}

interface StripProps {
  health: PodHealth | undefined;
  since: number;
  until: number;
  created: number;
}

/** HealthStrip draws one pod's summary; since and until bound the strip (ms). It draws again only when its props change. */
export class HealthStrip extends Component<StripProps> {
  override shouldComponentUpdate(next: StripProps): boolean {
    const p = this.props;
    return next.health !== p.health || next.since !== p.since || next.until !== p.until || next.created !== p.created;
  }

  override render() {
    return <Strip {...this.props} />;
  }
}

function Strip(props: StripProps) {
  const { health, since, until } = props;
  if (health === undefined) return <span class="muted">…</span>;
  const rows = health.probes.slice(0, MAX_ROWS);
  const height = Math.max(1, rows.length) * (ROW + GAP) - GAP;
  const bucketMs = (until - since) / HEALTH_BUCKETS;
  const x = (t: number): number => ((t - since) / Math.max(1, until - since)) * WIDTH;
  const label = rows.length === 0 ? "no probes" : rows.map((p) => `${p.container} ${p.probeType}: ${p.failure} failed, ${p.success} succeeded`).join("; ");
  const exits = health.exits.length > 0 ? `; ${health.exits.length} exit${health.exits.length === 1 ? "" : "s"}` : "";
  const why = healthWhy(health);
  return (
    <span class="health" data-testid="health" data-failures={health.failures}>
      <svg class="strip" width={WIDTH} height={height} viewBox={`0 0 ${WIDTH} ${height}`} role="img" aria-label={`last 10 minutes: ${label}${exits}`}>
        {rows.length === 0 ? <rect class="r-none" x={0} y={0} width={WIDTH} height={height} /> : null}
        {rows.map((p, row) => (
          <g key={`${p.container}/${p.probeType}`} data-probe={`${p.container}/${p.probeType}`}>
            <title>{`${p.container} ${p.probeType}: ${p.failure} failed, ${p.success} succeeded${p.unknown > 0 ? `, ${p.unknown} unknown` : ""} in the last 10 minutes`}</title>
            {cellRuns(p.buckets, (i) => since + (i + 1) * bucketMs < props.created).map((run) => (
              <rect class={run.cls} x={run.first * (CELL + GAP)} y={row * (ROW + GAP)} width={run.count * (CELL + GAP) - GAP} height={ROW} />
            ))}
          </g>
        ))}
        {health.exits.map((e) => (
          <line class={failedExit(e) ? "strip-exit" : "strip-exit clean"} x1={x(Date.parse(e.time))} x2={x(Date.parse(e.time))} y1={0} y2={height}>
            <title>{`${e.container} ${exitText(e)} at ${timeText(Date.parse(e.time), until)}`}</title>
          </line>
        ))}
      </svg>
      {why !== "" ? <span class="why" title={why}>{why}</span> : null}
    </span>
  );
}
