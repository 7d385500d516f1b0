// The probelet load driver: the anchor driver's command line and RESULT line, but the probes
// run through probelet's real machinery — a ProbeManager with N synthetic pods whose workers
// (start jitter, ticker, doProbe) call the real Prober and handlers, and for exec the real
// HostCommandRunner. See bench/README.md for the flags and fields.
//
//   node dist/bench/driver.js -kind http -target http://127.0.0.1:23080/healthz -n 1000 -period 1s -duration 20s
import { writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import type { CommandRunner } from "../src/probe/command-runner.js";
import type { CloseMode } from "../src/probe/connection.js";
import type { ProbeOutcome } from "../src/probe/probe-result.js";
import { HostCommandRunner, type SpawnerMode } from "../src/probe/host-runner.js";
import { probeEngineInfo, useProbeEngine } from "../src/probe/probe-engine.js";
import { ProbeManager } from "../src/prober/manager.js";
import { FlagError, flagUsage, parseGoFlags } from "./lib/go-flags.js";
import { LoadRecorder } from "./lib/probe-recorder.js";
import { formatReport, type DriverResult } from "./lib/result-line.js";
import { childrenCpuSeconds, clockTicksPerSecond, cpuSince, peakRssMb, threadCpuSeconds } from "./lib/rusage.js";
import { seededRandom, seedFrom } from "./lib/seeded-random.js";
import { percentile, round3 } from "./lib/stats.js";
import { podUid, runningStatus, syntheticPod, syntheticTarget, SyntheticStatusProvider, type ProbeKind, type SyntheticTarget } from "./lib/synthetic-pods.js";

const FLAGS = {
  kind: { kind: "string", default: "http", help: "http|tcp|exec|grpc" },
  target: { kind: "string", default: "", help: "URL (http), host:port (tcp, grpc), or command line (exec)" },
  n: { kind: "int", default: "1000", help: "number of concurrent probe workers (synthetic pods)" },
  period: { kind: "duration", default: "1s", help: "probe period per worker" },
  duration: { kind: "duration", default: "20s", help: "load duration" },
  timeout: { kind: "duration", default: "1s", help: "per-probe timeout" },
  mode: { kind: "string", default: "load", help: "load|seq" },
  count: { kind: "int", default: "20000", help: "seq mode: number of back-to-back probes" },
  seed: { kind: "int", default: "0", help: "random seed for the start offsets (0 = time based)" },
  dump: { kind: "string", default: "", help: "load mode: write per-probe CSV (start_ms,lag_ms,latency_ms,worker) to this file" },
  "close-mode": { kind: "string", default: "", help: "probelet only: graceful|reset socket close (default: the prober's default)" },
  handler: { kind: "string", default: "real", help: "probelet only: real|noop (noop: the kind's handler resolves success at once, to cost the worker/prober machinery alone)" },
  spawner: { kind: "string", default: "auto", help: "probelet only, exec: auto|helper|node (HostCommandRunner spawner)" },
  engine: { kind: "string", default: "auto", help: "probelet only: auto|native|js probe I/O engine of http and tcp (auto: native when built)" },
  "tick-coalesce": { kind: "int", default: "-1", help: "probelet only: ProbeManager tickCoalesceMs (-1: the manager's default)" },
  standing: { kind: "string", default: "on", help: "probelet only: on|off: tcpSocket probes in a steady Success stand on the native engine (ProbeManager standingProbes)" },
} as const;

const DEFAULT_TARGETS: Record<ProbeKind, string> = {
  http: "http://127.0.0.1:23080/healthz",
  tcp: "127.0.0.1:23080", // the anchor's default, kept for parity
  exec: "/bin/true",
  grpc: "127.0.0.1:23082", // the gRPC anchor's health server (bench/anchor-grpc)
};

/** WATCHDOG_SLACK_MS bounds a run to duration + timeout + this, whatever happens. */
const WATCHDOG_SLACK_MS = 10_000;

/** A runner for http/tcp runs: exec probes are never configured there. */
const noExecRunner: CommandRunner = {
  runInContainer: () => Promise.reject(new Error("exec runner not configured in this bench run")),
};

/** A diagnostic handler (-handler noop): success at once, no I/O. */
const noopHandler = (): Promise<ProbeOutcome> => Promise.resolve({ result: "success", output: "" });

interface RunFigures {
  effectiveN: number;
  wallS: number;
  expected: number;
  latencyMs: Float64Array;
  lagMs?: Float64Array;
  success: number;
  failure: number;
  lastError: string;
}

interface RunConfig {
  kind: ProbeKind;
  target: SyntheticTarget;
  n: number;
  periodMs: number;
  durationMs: number;
  timeoutMs: number;
  count: number;
  seed: number;
  dump: string;
  runner: CommandRunner;
  closeMode: CloseMode | undefined;
  noopHandler: boolean;
  spawner: SpawnerMode;
}

function newManager(cfg: RunConfig, extra: Partial<ConstructorParameters<typeof ProbeManager>[0]> & { statusProvider: SyntheticStatusProvider }): ProbeManager {
  return new ProbeManager({
    runner: cfg.runner,
    ...(tickCoalesceMs >= 0 ? { tickCoalesceMs } : {}),
    standingProbes,
    proberOptions: {
      ...(cfg.closeMode ? { closeMode: cfg.closeMode } : {}),
      ...(cfg.noopHandler ? { handlers: { [cfg.kind]: noopHandler } } : {}),
    },
    ...extra,
  });
}

/** tickCoalesceMs is the -tick-coalesce flag (-1: the manager's default). */
let tickCoalesceMs = -1;
/** standingProbes is the -standing flag. */
let standingProbes = true;

/** runLoad drives N workers for the duration and records every probe through onProbe. */
async function runLoad(cfg: RunConfig, t0: number): Promise<RunFigures> {
  const recorder = new LoadRecorder(cfg.periodMs, cfg.dump !== "", t0);
  const statuses = new SyntheticStatusProvider();
  const indexOf = new Map<string, number>();
  const rng = seededRandom(seedFrom(cfg.seed));
  let current = -1;
  const endAt = t0 + cfg.durationMs;
  const manager = newManager(cfg, {
    statusProvider: statuses,
    // The worker draws its start offset synchronously inside addPod: attribute it to that pod.
    random: () => {
      const f = rng();
      recorder.jitterDrawn(current, f);
      return f;
    },
    onProbe: (worker, record) => {
      // startedAt is on the system clock's monotonic scale, performance.now(). Probes that finish
      // after the load's end (in the stop) are not counted; standing probes report in batches, so
      // the test is on the probe's own times, not on when its record arrives.
      if (record.startedAt + record.durationMs > endAt) return;
      const index = indexOf.get(worker.pod.metadata.uid ?? "");
      if (index === undefined) return;
      recorder.record(index, record.startedAt, record.durationMs, record.result === "Success", record.outcome?.output);
    },
  });
  const startedAt = new Date().toISOString();
  const podOptions = { periodMs: cfg.periodMs, timeoutMs: cfg.timeoutMs };
  for (let i = 0; i < cfg.n; i++) {
    const pod = syntheticPod(i, cfg.target, podOptions);
    statuses.set(podUid(i), runningStatus(i, cfg.target, startedAt));
    indexOf.set(podUid(i), i);
    current = i;
    recorder.workerStarted(i, performance.now());
    manager.addPod(pod);
  }
  current = -1;
  await sleep(Math.max(0, t0 + cfg.durationMs - performance.now()));
  await manager.close();
  if (cfg.dump !== "") writeFileSync(cfg.dump, recorder.dumpCsv());
  const s = recorder.summary();
  return {
    effectiveN: cfg.n,
    wallS: cfg.durationMs / 1000,
    expected: Math.round((cfg.n * cfg.durationMs) / cfg.periodMs),
    latencyMs: s.latencyMs,
    lagMs: s.lagMs,
    success: s.success,
    failure: s.failure,
    lastError: s.lastError,
  };
}

/** runSeq runs `count` probes back to back through the Prober (no worker), bounded by the duration. */
async function runSeq(cfg: RunConfig, t0: number): Promise<RunFigures> {
  const statuses = new SyntheticStatusProvider();
  const manager = newManager(cfg, { statusProvider: statuses });
  const pod = syntheticPod(0, cfg.target, { periodMs: cfg.periodMs, timeoutMs: cfg.timeoutMs });
  const status = runningStatus(0, cfg.target, new Date().toISOString());
  const container = pod.spec.containers[0]!;
  const containerId = status.containerStatuses?.[0]?.containerID ?? "";
  const latency: number[] = [];
  let success = 0;
  let failure = 0;
  let lastError = "";
  const deadline = t0 + cfg.durationMs;
  for (let i = 0; i < cfg.count && performance.now() < deadline; i++) {
    const start = performance.now();
    const r = await manager.prober.probe("readiness", pod, status, container, containerId);
    latency.push(performance.now() - start);
    if (r.result === "Success" && !r.error) {
      success++;
    } else {
      failure++;
      lastError = r.error?.message ?? r.outcome?.output ?? lastError;
    }
  }
  const wallS = (performance.now() - t0) / 1000;
  await manager.close();
  return { effectiveN: 1, wallS, expected: cfg.count, latencyMs: Float64Array.from(latency).sort(), success, failure, lastError };
}

function parseCommandLine(): { cfg: RunConfig; mode: string } {
  const { values } = parseGoFlags(FLAGS, process.argv.slice(2));
  const kind = values.kind;
  if (kind !== "http" && kind !== "tcp" && kind !== "exec" && kind !== "grpc") throw new FlagError("bad -kind");
  if (values.mode !== "load" && values.mode !== "seq") throw new FlagError("bad -mode");
  const closeMode = values["close-mode"];
  if (closeMode !== "" && closeMode !== "graceful" && closeMode !== "reset") throw new FlagError("bad -close-mode");
  if (values.handler !== "real" && values.handler !== "noop") throw new FlagError("bad -handler");
  const spawner = values.spawner;
  if (spawner !== "auto" && spawner !== "helper" && spawner !== "node") throw new FlagError("bad -spawner");
  const engine = values.engine;
  if (engine !== "auto" && engine !== "native" && engine !== "js") throw new FlagError("bad -engine");
  if (engine !== "auto") useProbeEngine(engine);
  tickCoalesceMs = values["tick-coalesce"];
  if (values.standing !== "on" && values.standing !== "off") throw new FlagError("bad -standing");
  standingProbes = values.standing === "on";
  if (values.n < 1 || values.period <= 0 || values.duration <= 0 || values.timeout <= 0) throw new FlagError("-n, -period, -duration and -timeout must be positive");
  const cfg: RunConfig = {
    kind,
    target: syntheticTarget(kind, values.target === "" ? DEFAULT_TARGETS[kind] : values.target),
    n: values.n,
    periodMs: values.period,
    durationMs: values.duration,
    timeoutMs: values.timeout,
    count: values.count,
    seed: values.seed,
    dump: values.dump,
    runner: noExecRunner,
    closeMode: closeMode === "" ? undefined : closeMode,
    noopHandler: values.handler === "noop",
    spawner,
  };
  return { cfg, mode: values.mode };
}

async function main(): Promise<void> {
  let parsed: { cfg: RunConfig; mode: string };
  try {
    parsed = parseCommandLine();
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\nUsage of driver:\n${flagUsage(FLAGS)}\n`);
    process.exit(2);
  }
  const { cfg, mode } = parsed;
  setTimeout(() => {
    process.stderr.write("driver: watchdog: run exceeded its bound, exiting\n");
    process.exit(3);
  }, cfg.durationMs + cfg.timeoutMs + WATCHDOG_SLACK_MS).unref();

  const ticks = clockTicksPerSecond();
  const hostRunner = cfg.kind === "exec" ? new HostCommandRunner({ spawner: cfg.spawner }) : undefined;
  if (hostRunner) cfg.runner = hostRunner;

  const cpu0 = process.cpuUsage();
  const children0 = childrenCpuSeconds(ticks);
  const t0 = performance.now();
  const fig = mode === "seq" ? await runSeq(cfg, t0) : await runLoad(cfg, t0);
  const spawnerUsed = hostRunner?.spawner;
  // The runner's close ends and reaps its helper, so its (and its children's) CPU is counted.
  await hostRunner?.close();
  const cpu = cpuSince(cpu0);
  const childrenS = childrenCpuSeconds(ticks) - children0;
  const mem = process.memoryUsage();

  const completed = fig.success + fig.failure;
  const cpuS = cpu.user + cpu.system;
  const result: DriverResult = {
    driver: "probelet",
    mode,
    kind: cfg.kind,
    n: fig.effectiveN,
    period_s: cfg.periodMs / 1000,
    duration_s: round3(fig.wallS) ?? 0,
    probes_completed: completed,
    probes_expected: fig.expected,
    probes_per_s: round3(completed / fig.wallS) ?? 0,
    success: fig.success,
    failure: fig.failure,
    latency_p50_ms: round3(percentile(fig.latencyMs, 0.5)),
    latency_p99_ms: round3(percentile(fig.latencyMs, 0.99)),
    ...(fig.lagMs
      ? { lag_p50_ms: round3(percentile(fig.lagMs, 0.5)), lag_p99_ms: round3(percentile(fig.lagMs, 0.99)), lag_max_ms: round3(percentile(fig.lagMs, 1)) }
      : {}),
    cpu_user_s: round3(cpu.user) ?? 0,
    cpu_sys_s: round3(cpu.system) ?? 0,
    cpu_s: round3(cpuS) ?? 0,
    children_cpu_s: round3(childrenS) ?? 0,
    peak_rss_mb: round3(peakRssMb()) ?? 0,
    // Same formula as the anchor (driver/main.go): own CPU only; children are reported apart.
    cpu_us_per_probe: round3((cpuS * 1e6) / Math.max(1, completed)) ?? 0,
    extra: {
      node: process.version,
      node_flags: process.execArgv.join(" "),
      engine: probeEngineInfo().name,
      close_mode: cfg.closeMode ?? "default",
      standing: standingProbes ? "on" : "off",
      handler: cfg.noopHandler ? "noop" : "real",
      ...(spawnerUsed ? { spawner: spawnerUsed } : {}),
      cpu_us_per_probe_incl_children: round3(((cpuS + childrenS) * 1e6) / Math.max(1, completed)),
      thread_cpu_s: threadCpuSeconds(ticks),
      heap_used_mb: round3(mem.heapUsed / 1048576),
      heap_total_mb: round3(mem.heapTotal / 1048576),
      external_mb: round3(mem.external / 1048576),
      last_error: fig.lastError,
    },
  };
  process.stdout.write(formatReport(result), () => process.exit(0));
}

await main();
