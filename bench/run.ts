// The A/B benchmark runner: builds the Go anchor (the kubelet's probe method), starts its
// loopback target, then for every scenario runs the anchor driver and the probelet driver
// alternately (A B A B A B), counts the TIME-WAIT sockets each run left on the prober's side,
// and compares probelet/anchor pair by pair. See bench/README.md.
//
//   node dist/bench/run.js [--quick] [--scenario http|tcp|exec|scale|grpc] [--pairs N]
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, release } from "node:os";
import { dirname, join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { buildAnchor, installBenchDeps, startTarget, type AnchorBuild, type RunningTarget } from "./lib/anchor.js";
import { AGENT_NODE_FLAGS } from "../src/cli/node-flags.js";
import { runDriver } from "./lib/driver-process.js";
import type { DriverResult } from "./lib/result-line.js";
import { buildGrpcAnchor, startGrpcTarget, type GrpcAnchorBuild } from "./lib/anchor-grpc.js";
import { metricValue, scenarios, TARGET_HOST, GRPC_PORT, HTTP_PORT, TCP_PORT, type MetricName, type Scenario } from "./lib/scenarios.js";
import { countTimeWait, timeWaitSockets, type TimeWaitCount } from "./lib/ss.js";
import { formatRatio, median, ratio } from "./lib/stats.js";

/** SETTLE_MS separates runs: CPU settles and the TIME-WAIT timer cut-off stays unambiguous. */
const SETTLE_MS = 2000;
/** RUN_SLACK_MS is how long a driver may outlive its nominal duration before it is killed. */
const RUN_SLACK_MS = 30_000;

type Side = "anchor" | "probelet";

interface SideRun {
  side: Side;
  /** The 1-minute load average just before the run (other work on the machine skews figures). */
  load1: number;
  exitCode: number | null;
  wallMs: number;
  result?: DriverResult;
  /** Prober/target-side TIME-WAIT sockets of the target port: before the run, and created during it. */
  timeWait?: { before: TimeWaitCount; during: TimeWaitCount };
  error?: string;
}

interface PairResult {
  pair: number;
  runs: Partial<Record<Side, SideRun>>;
  ratios: Partial<Record<MetricName, number>>;
}

interface Verdict {
  metric: MetricName;
  max: number;
  median: number;
  pass: boolean;
}

interface ScenarioResult {
  name: string;
  args: string[];
  pairs: PairResult[];
  medians: Partial<Record<MetricName, number>>;
  verdicts: Verdict[];
  skipped?: string;
}

const log = (line: string): void => void process.stdout.write(line + "\n");

function parseArgs(argv: readonly string[]): { quick: boolean; only: string | undefined; pairs: number } {
  let quick = false;
  let only: string | undefined;
  let pairs: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--quick") quick = true;
    else if (a === "--scenario") only = argv[++i];
    else if (a.startsWith("--scenario=")) only = a.slice("--scenario=".length);
    else if (a === "--pairs") pairs = Number(argv[++i]);
    else if (a.startsWith("--pairs=")) pairs = Number(a.slice("--pairs=".length));
    else throw new Error(`unknown argument ${a} (use --quick, --scenario NAME, --pairs N)`);
  }
  const n = pairs ?? (quick ? 1 : 3);
  if (!Number.isInteger(n) || n < 1 || n > 10) throw new Error("--pairs must be an integer in 1..10");
  return { quick, only, pairs: n };
}

function comparedMetrics(s: Scenario): MetricName[] {
  const metrics: MetricName[] = [s.cpuMetric, "lag_p99_ms", "peak_rss_mb"];
  if (s.port !== undefined) metrics.push("prober_time_wait");
  return metrics;
}

async function runSide(side: Side, s: Scenario, command: string, args: string[]): Promise<SideRun> {
  await sleep(SETTLE_MS);
  const before = s.port === undefined ? undefined : countTimeWait(timeWaitSockets(), s.port);
  const load1 = Math.round(loadavg()[0]! * 100) / 100;
  const started = performance.now();
  const run = await runDriver(command, args, s.durationMs + RUN_SLACK_MS);
  const out: SideRun = { side, load1, exitCode: run.exitCode, wallMs: Math.round(run.wallMs) };
  if (before && s.port !== undefined) {
    const during = countTimeWait(timeWaitSockets(), s.port, (performance.now() - started) / 1000);
    out.timeWait = { before, during };
  }
  if (run.result) out.result = run.result;
  else out.error = `no RESULT line (exit ${String(run.exitCode)}): ${run.stderr.slice(-2000)}`;
  const r = run.result;
  log(
    r
      ? `  ${side.padEnd(8)} probes=${r.probes_completed}/${r.probes_expected} ok=${r.success} cpu_us/probe=${r.cpu_us_per_probe} children_s=${r.children_cpu_s} lag_p99=${String(r.lag_p99_ms)}ms rss=${r.peak_rss_mb}MB tw_prober=${out.timeWait?.during.proberSide ?? "-"} tw_target=${out.timeWait?.during.targetSide ?? "-"} load1=${load1}`
      : `  ${side.padEnd(8)} FAILED: ${out.error ?? ""}`,
  );
  return out;
}

function pairRatios(s: Scenario, runs: Partial<Record<Side, SideRun>>): Partial<Record<MetricName, number>> {
  const a = runs.anchor;
  const b = runs.probelet;
  const ratios: Partial<Record<MetricName, number>> = {};
  if (!a?.result || !b?.result) return ratios;
  for (const m of comparedMetrics(s)) {
    ratios[m] = ratio(metricValue(m, b.result, b.timeWait?.during.proberSide), metricValue(m, a.result, a.timeWait?.during.proberSide));
  }
  return ratios;
}

async function runScenario(s: Scenario, pairs: number, anchorDriver: string | undefined, probeletDriver: string): Promise<ScenarioResult> {
  const result: ScenarioResult = { name: s.name, args: s.args, pairs: [], medians: {}, verdicts: [] };
  log(`\n== ${s.name}: ${s.args.join(" ")}`);
  for (let p = 1; p <= pairs; p++) {
    log(` pair ${p}/${pairs}`);
    const runs: Partial<Record<Side, SideRun>> = {};
    if (anchorDriver) runs.anchor = await runSide("anchor", s, anchorDriver, s.args);
    // The probelet driver runs with the agent's V8 flags, as `probelet run` does.
    runs.probelet = await runSide("probelet", s, process.execPath, [...AGENT_NODE_FLAGS, probeletDriver, ...s.args]);
    const ratios = pairRatios(s, runs);
    result.pairs.push({ pair: p, runs, ratios });
    log(`  ratios probelet/anchor: ${comparedMetrics(s).map((m) => `${m}=${formatRatio(ratios[m] ?? Number.NaN)}`).join(" ")}`);
  }
  for (const m of comparedMetrics(s)) result.medians[m] = median(result.pairs.map((p) => p.ratios[m] ?? Number.NaN));
  log(`  medians: ${comparedMetrics(s).map((m) => `${m}=${formatRatio(result.medians[m] ?? Number.NaN)}`).join(" ")}`);
  result.verdicts = s.targets.map((t) => {
    const med = result.medians[t.metric] ?? Number.NaN;
    return { metric: t.metric, max: t.max, median: med, pass: med <= t.max };
  });
  return result;
}

function printTable(results: readonly ScenarioResult[]): void {
  log("\nscenario  metric                          median ratio  target   verdict");
  for (const r of results) {
    if (r.skipped) {
      log(`${r.name.padEnd(9)} (skipped: ${r.skipped})`);
      continue;
    }
    const rows = [...r.verdicts.map((v) => ({ metric: v.metric, med: v.median, target: `≤ ${v.max.toFixed(2)}×`, verdict: v.pass ? "PASS" : "FAIL" }))];
    for (const [metric, med] of Object.entries(r.medians)) {
      if (!r.verdicts.some((v) => v.metric === metric)) rows.push({ metric: metric as MetricName, med, target: "—", verdict: "info" });
    }
    for (const row of rows) log(`${r.name.padEnd(9)} ${row.metric.padEnd(31)} ${formatRatio(row.med).padStart(12)}  ${row.target.padEnd(8)} ${row.verdict}`);
  }
}

function jsonSafe(_key: string, value: unknown): unknown {
  if (typeof value === "number" && !Number.isFinite(value)) return Number.isNaN(value) ? null : "inf";
  return value;
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
  const benchDir = join(root, ".bench");
  mkdirSync(benchDir, { recursive: true });
  const probeletDriver = join(root, "dist", "bench", "driver.js");
  if (!existsSync(probeletDriver)) throw new Error(`${probeletDriver} is missing: run \`npm run build\` first`);
  const selected = scenarios(opts.quick).filter((s) => opts.only === undefined || s.name === opts.only);
  if (selected.length === 0) throw new Error(`unknown scenario ${String(opts.only)}`);

  const anchorsDir = resolve(root, "../shared/anchors");
  if (!installBenchDeps(root)) log("bench dependencies missing: the scenarios without them are skipped");
  const anchor: AnchorBuild = existsSync(anchorsDir) ? buildAnchor(anchorsDir, benchDir, log) : { ok: false, reason: `${anchorsDir} does not exist` };
  if (!anchor.ok) log(`anchor skipped: ${anchor.reason} — only target-free scenarios run, without ratios`);
  const estimateS = selected.reduce((t, s) => t + opts.pairs * (anchor.ok ? 2 : 1) * (s.durationMs / 1000 + 4), 0);
  log(`${selected.length} scenario(s), ${opts.pairs} pair(s) each: about ${Math.ceil(estimateS / 60)} min`);

  const wantsGrpc = selected.some((s) => s.anchor === "grpc");
  const grpcAnchor: GrpcAnchorBuild = wantsGrpc && anchor.ok ? buildGrpcAnchor(join(root, "bench", "anchor-grpc"), benchDir, log) : { ok: false, reason: "not needed" };
  if (wantsGrpc && !grpcAnchor.ok) log(`gRPC anchor skipped: ${grpcAnchor.reason}`);

  let target: RunningTarget | undefined;
  let grpcTarget: { stop(): Promise<void> } | undefined;
  const stopTarget = async (): Promise<void> => {
    await target?.stop();
    await grpcTarget?.stop();
    target = grpcTarget = undefined;
  };
  for (const sig of ["SIGINT", "SIGTERM"] as const) {
    process.once(sig, () => void stopTarget().finally(() => process.exit(130)));
  }
  const results: ScenarioResult[] = [];
  const startedAt = new Date();
  try {
    if (anchor.ok) target = await startTarget(anchor.binaries.target, TARGET_HOST, HTTP_PORT, TCP_PORT);
    if (grpcAnchor.ok) grpcTarget = await startGrpcTarget(grpcAnchor.binary, TARGET_HOST, GRPC_PORT);
    for (const s of selected) {
      const anchorOk = s.anchor === "grpc" ? grpcAnchor.ok : anchor.ok;
      if (!anchorOk && s.port !== undefined) {
        results.push({ name: s.name, args: s.args, pairs: [], medians: {}, verdicts: [], skipped: "needs the anchor target" });
        continue;
      }
      const anchorDriver = s.anchor === "grpc" ? (grpcAnchor.ok ? grpcAnchor.binary : undefined) : anchor.ok ? anchor.binaries.driver : undefined;
      results.push(await runScenario(s, opts.pairs, anchorDriver, probeletDriver));
    }
  } finally {
    await stopTarget();
  }
  printTable(results);

  const file = join(benchDir, `results-${startedAt.toISOString().replace(/[:.]/g, "-")}.json`);
  const machine = { nproc: availableParallelism(), cpu_model: cpus()[0]?.model ?? "unknown", kernel: release(), node: process.version };
  const doc = { started_at: startedAt.toISOString(), finished_at: new Date().toISOString(), argv: process.argv.slice(2), machine, anchor: anchor.ok ? { go: anchor.binaries.goVersion } : { skipped: anchor.reason }, scenarios: results };
  writeFileSync(file, JSON.stringify(doc, jsonSafe, 2) + "\n");
  log(`\nresults: ${file}`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
