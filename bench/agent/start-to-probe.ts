// Agent start to first probe. Phase "early": `new Agent(...)`, then N pods admitted at once;
// each pod's readiness and liveness probes (httpGet on the bench's shared loopback server,
// periodSeconds 1) draw the kubelet's start jitter, a uniform [0, period) delay applied only
// while the probe manager is younger than one period (kubelet worker.go). Phase "late": N more
// pods admitted once the manager is older than a period, so no jitter is drawn. For every
// pod the bench takes: admit, the Started event, each worker's jitter (JitterClock), the first
// request of each probe at the server, and the first readiness Success result. It reports the
// raw figures and the figures minus the jitter (the startup latency without the intended delay).
//
//   node dist/bench/agent/start-to-probe.js [-pods 50] [-period 1s]
import { monitorEventLoopDelay } from "node:perf_hooks";
import { PROBE_TYPES } from "../../src/prober/probe-type.js";
import { httpProbedPod } from "./bench-pods.js";
import { AgentHarness } from "./harness.js";
import { startHealthServer, type HealthServer } from "./health-server.js";
import { JitterClock } from "./jitter-clock.js";
import { formatSummary, parseFlagsOrExit, printResult, sleep, summarize, todayUtc, waitUntil, type Summary } from "./report.js";
import { TallyLogger } from "./tally-logger.js";

const FLAGS = {
  pods: { kind: "int", default: "50", help: "pods per phase (early and late)" },
  period: { kind: "duration", default: "1s", help: "probe periodSeconds (whole seconds)" },
  resync: { kind: "duration", default: "1s", help: "the agent's resyncIntervalMs" },
} as const;

const NO_STATUS = "No status for pod";
type Phase = "early" | "late";
type Kind = "readiness" | "liveness";

interface PodTrack {
  name: string;
  phase: Phase;
  admitAt: number;
  readyAt?: number;
}

const flags = parseFlagsOrExit("start-to-probe", FLAGS);
if (flags.period % 1000 !== 0 || flags.period < 1000) {
  console.error("-period must be whole seconds (the API's periodSeconds)");
  process.exit(2);
}
const waitMs = 3 * flags.period + 20_000;
const server: HealthServer = await startHealthServer();
const clock = new JitterClock();
const logger = new TallyLogger(new Set([NO_STATUS]));

const newAgentAt = performance.now();
const harness = await AgentHarness.create({ name: "start-to-probe", deadlineMs: 2 * waitMs + 60_000, clock, logger, resyncIntervalMs: flags.resync });
const agentReadyMs = performance.now() - newAgentAt;
const { agent } = harness;

const tracks = new Map<string, PodTrack>();
const byUid = new Map<string, PodTrack>();
agent.probeManager.readinessManager.subscribe((u) => {
  const t = byUid.get(u.podUid);
  if (t && u.result === "Success") t.readyAt ??= performance.now();
});

function admitPhase(phase: Phase): PodTrack[] {
  const batch: PodTrack[] = [];
  for (let i = 0; i < flags.pods; i++) {
    const name = `${phase}-${String(i).padStart(3, "0")}`;
    const track: PodTrack = { name, phase, admitAt: performance.now() };
    const pod = httpProbedPod(name, server.port, flags.period / 1000, 2 * waitMs / 1000 + 120);
    const admitted = clock.runAs(name, () => agent.admit(pod, "bench"));
    if (!admitted.ok) throw new Error(`admit ${name}: ${admitted.errors.join("; ")}`);
    tracks.set(name, track);
    byUid.set(admitted.pod.metadata.uid ?? "", track);
    batch.push(track);
  }
  return batch;
}

const firstHit = (t: PodTrack, kind: Kind): number | undefined => server.firstHit(`/${kind === "readiness" ? "ready" : "live"}/${t.name}`);
const allProbed = (batch: readonly PodTrack[]) => () => batch.every((t) => t.readyAt !== undefined && firstHit(t, "liveness") !== undefined);

/** LOOP_RESOLUTION_MS is the event-loop monitor's timer; its samples include it. */
const LOOP_RESOLUTION_MS = 10;

/** withLoopDelay runs a phase and returns its result with the event-loop delay p99/max beyond the timer (ms). */
async function withLoopDelay<T>(run: () => Promise<T>): Promise<{ value: T; p99: number; max: number }> {
  const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  loop.enable();
  const value = await run();
  loop.disable();
  const ms = (ns: number) => Math.round((ns / 1e6 - LOOP_RESOLUTION_MS) * 10) / 10;
  return { value, p99: ms(loop.percentile(99)), max: ms(loop.max) };
}

const early = admitPhase("early");
const earlyRun = await withLoopDelay(() => waitUntil(allProbed(early), waitMs));
const earlyDone = earlyRun.value;
// The manager must be older than one period for the late pods (then no jitter is drawn).
await sleep(newAgentAt + flags.period + 200 - performance.now());
const late = admitPhase("late");
const lateRun = await withLoopDelay(() => waitUntil(allProbed(late), waitMs));
const lateDone = lateRun.value;
const closed = await harness.close();
await server.close();

/** jitterFor returns the worker's drawn jitter: sleeps come in PROBE_TYPES order of the probes present. */
function jitterFor(t: PodTrack, kind: Kind): { at: number; ms: number } | undefined {
  const present = PROBE_TYPES.filter((p) => p === "readiness" || p === "liveness");
  return clock.jitterOf(t.name)[present.indexOf(kind)];
}

interface PhaseFigures {
  admit_to_started_ms: Summary;
  admit_to_worker_start_ms: Summary;
  jitter_ms: Summary;
  readiness_result_ms: Summary;
  readiness_result_minus_jitter_ms: Summary;
  readiness_first_request_ms: Summary;
  liveness_first_request_ms: Summary;
  liveness_first_request_minus_jitter_ms: Summary;
  workers_without_jitter: number;
  first_step_found_no_status: Record<Kind, number>;
  loop_delay_p99_ms: number;
  loop_delay_max_ms: number;
}

function figures(batch: readonly PodTrack[], loop: { p99: number; max: number }): PhaseFigures {
  const minus = (kind: Kind, at: (t: PodTrack) => number | undefined) =>
    summarize(batch.map((t) => (at(t) ?? Number.NaN) - t.admitAt - (jitterFor(t, kind)?.ms ?? 0)));
  const noStatus = (kind: Kind) =>
    batch.filter((t) => {
      const seen = logger.first(NO_STATUS, t.name, kind);
      const probed = kind === "readiness" ? firstHit(t, "readiness") : firstHit(t, "liveness");
      return seen !== undefined && (probed === undefined || seen < probed);
    }).length;
  return {
    admit_to_started_ms: summarize(batch.map((t) => (harness.stamps(t.name, "Started")[0] ?? Number.NaN) - t.admitAt)),
    // A worker starts with its jitter sleep, or (no jitter) with a first step that finds no status.
    admit_to_worker_start_ms: summarize(batch.flatMap((t) => (["readiness", "liveness"] as const).map((k) => (jitterFor(t, k)?.at ?? logger.first(NO_STATUS, t.name, k) ?? Number.NaN) - t.admitAt))),
    jitter_ms: summarize(batch.flatMap((t) => (["readiness", "liveness"] as const).map((k) => jitterFor(t, k)?.ms ?? Number.NaN))),
    readiness_result_ms: summarize(batch.map((t) => (t.readyAt ?? Number.NaN) - t.admitAt)),
    readiness_result_minus_jitter_ms: minus("readiness", (t) => t.readyAt),
    readiness_first_request_ms: summarize(batch.map((t) => (firstHit(t, "readiness") ?? Number.NaN) - t.admitAt)),
    liveness_first_request_ms: summarize(batch.map((t) => (firstHit(t, "liveness") ?? Number.NaN) - t.admitAt)),
    liveness_first_request_minus_jitter_ms: minus("liveness", (t) => firstHit(t, "liveness")),
    workers_without_jitter: batch.reduce((n, t) => n + 2 - clock.jitterOf(t.name).length, 0),
    first_step_found_no_status: { readiness: noStatus("readiness"), liveness: noStatus("liveness") },
    loop_delay_p99_ms: loop.p99,
    loop_delay_max_ms: loop.max,
  };
}

const earlyFigures = figures(early, earlyRun);
const lateFigures = figures(late, lateRun);
const fromNewAgent = summarize(early.map((t) => (t.readyAt ?? Number.NaN) - newAgentAt));
// Every early worker must show a jitter sleep: if none does, the instrumentation lost track of
// the agent's call paths (see jitter-clock.ts) and the "minus jitter" figures are meaningless.
const ok = earlyDone && lateDone && closed.leftoverProcesses === 0 && clock.unattributed === 0 && earlyFigures.workers_without_jitter === 0;

function phaseLines(title: string, f: PhaseFigures): string[] {
  return [
    `${title}: workers without a jitter sleep ${f.workers_without_jitter}/${2 * flags.pods}; first step found no pod status: readiness ${f.first_step_found_no_status.readiness}, liveness ${f.first_step_found_no_status.liveness}`,
    `  event-loop delay while waiting: p99 ${f.loop_delay_p99_ms} ms, max ${f.loop_delay_max_ms} ms`,
    formatSummary("  admit → Started event                 ", f.admit_to_started_ms),
    formatSummary("  admit → probe worker started         ", f.admit_to_worker_start_ms),
    formatSummary("  drawn jitter                          ", f.jitter_ms),
    formatSummary("  admit → readiness Success (raw)       ", f.readiness_result_ms),
    formatSummary("  admit → readiness Success − jitter    ", f.readiness_result_minus_jitter_ms),
    formatSummary("  admit → first readiness request (raw) ", f.readiness_first_request_ms),
    formatSummary("  admit → first liveness request (raw)  ", f.liveness_first_request_ms),
    formatSummary("  admit → first liveness request − jit. ", f.liveness_first_request_minus_jitter_ms),
  ];
}

printResult(
  [
    `start-to-probe ${todayUtc()}: ${flags.pods} pods per phase, readiness + liveness httpGet on one loopback server, period ${flags.period / 1000}s, resync ${flags.resync} ms`,
    `new Agent + start: ${agentReadyMs.toFixed(1)} ms; early pods admitted at once after it; late pods admitted ${((late[0]?.admitAt ?? 0) - newAgentAt).toFixed(0)} ms after new Agent`,
    formatSummary("new Agent → readiness Success (early)", fromNewAgent),
    ...phaseLines("early (jittered)", earlyFigures),
    ...phaseLines("late (manager older than a period)", lateFigures),
    `probe server: ${server.requests()} requests; jitter sleeps not attributed to a pod: ${clock.unattributed}`,
    `close: ${closed.closeMs.toFixed(0)} ms, running after agent.close()=${closed.runningAfterAgentClose}, leftover processes=${closed.leftoverProcesses}`,
    ...(earlyDone && lateDone ? [] : [`PROBLEM not every pod was probed within ${waitMs} ms (early ${earlyDone}, late ${lateDone})`]),
  ],
  {
    bench: "start-to-probe",
    date: todayUtc(),
    ok,
    pods_per_phase: flags.pods,
    period_s: flags.period / 1000,
    resync_ms: flags.resync,
    new_agent_ms: Math.round(agentReadyMs * 10) / 10,
    new_agent_to_readiness_ms: fromNewAgent,
    early: earlyFigures,
    late: lateFigures,
    unattributed_jitter_sleeps: clock.unattributed,
    close_ms: Math.round(closed.closeMs),
    leftover_processes: closed.leftoverProcesses,
  },
);
process.exitCode = ok ? 0 : 1;
