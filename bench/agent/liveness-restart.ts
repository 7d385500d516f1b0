// Failure-to-restart latency: how long after an app becomes unhealthy the agent kills it and
// has a new container running. Each pod's app creates a health file when it starts; its
// liveness probe is exec `test -f <file>`. The bench deletes the file at T0 (a random moment
// 1–2 s after the container started, so T0 falls anywhere on the probe's tick grid) and takes
// the agent's own signals: the liveness Failure result (results manager), the Killing event and
// the new container's Started event. The probe spec's bound for noticing the failure is
// failureThreshold × periodSeconds + timeoutSeconds (the app exits on SIGTERM, so no kill grace
// is added). CrashLoopBackOff is scaled down (100 ms → 200 ms) so it does not delay restarts.
//
//   node dist/bench/agent/liveness-restart.js [-pods 20] [-failures 3] [-period 1s] …
import { existsSync, unlinkSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { APP_CONTAINER, BENCH_NAMESPACE, fileHealthPod } from "./bench-pods.js";
import { AgentHarness } from "./harness.js";
import { formatSummary, fraction, parseFlagsOrExit, printResult, sleep, summarize, todayUtc, waitUntil } from "./report.js";

const FLAGS = {
  pods: { kind: "int", default: "20", help: "pods, each failing its liveness probe -failures times" },
  failures: { kind: "int", default: "3", help: "liveness failures (and so restarts) per pod" },
  period: { kind: "duration", default: "1s", help: "liveness periodSeconds (whole seconds)" },
  timeout: { kind: "duration", default: "1s", help: "liveness timeoutSeconds (whole seconds)" },
  "failure-threshold": { kind: "int", default: "3", help: "liveness failureThreshold" },
  "settle-min": { kind: "duration", default: "1s", help: "least time from a container's start to T0" },
  "settle-max": { kind: "duration", default: "2s", help: "most time from a container's start to T0" },
  resync: { kind: "duration", default: "1s", help: "the agent's resyncIntervalMs" },
  "backoff-initial": { kind: "duration", default: "100ms", help: "CrashLoopBackOff initial delay (kubelet: 10s)" },
  "backoff-max": { kind: "duration", default: "200ms", help: "CrashLoopBackOff cap (kubelet: 300s)" },
} as const;

/** START_WAIT_MS bounds the wait for a container to start (first start or restart). */
const START_WAIT_MS = 20_000;

interface Sample {
  pod: string;
  round: number;
  detectMs: number;
  killMs: number;
  startMs: number;
}

const flags = parseFlagsOrExit("liveness-restart", FLAGS);
if (flags.period % 1000 !== 0 || flags.timeout % 1000 !== 0 || flags.period < 1000 || flags.timeout < 1000) {
  console.error("-period and -timeout must be whole seconds (the API's periodSeconds/timeoutSeconds)");
  process.exit(2);
}
const periodS = flags.period / 1000;
const timeoutS = flags.timeout / 1000;
const threshold = flags["failure-threshold"];
const boundMs = threshold * flags.period + flags.timeout;
const roundMs = flags["settle-max"] + 3 * boundMs + START_WAIT_MS;
const deadlineMs = 60_000 + flags.failures * roundMs;

const healthDir = await mkdtemp(join(tmpdir(), "probelet-bench-health-"));
const harness = await AgentHarness.create({
  name: "liveness-restart",
  deadlineMs,
  resyncIntervalMs: flags.resync,
  backoff: { initialMs: flags["backoff-initial"], maxMs: flags["backoff-max"] },
});
const { agent } = harness;

// The liveness Failure result, as the agent's sync loop receives it (§G.1).
const podByUid = new Map<string, string>();
const livenessFailures = new Map<string, number[]>();
agent.probeManager.livenessManager.subscribe((u) => {
  const pod = podByUid.get(u.podUid);
  if (pod !== undefined && u.result === "Failure") livenessFailures.get(pod)?.push(performance.now());
});

const names = Array.from({ length: flags.pods }, (_, i) => `live-${String(i).padStart(3, "0")}`);
const sleepSeconds = deadlineMs / 1000 + 60;
for (const name of names) {
  const admitted = agent.admit(fileHealthPod(name, join(healthDir, name), { periodSeconds: periodS, timeoutSeconds: timeoutS, failureThreshold: threshold }, sleepSeconds), "bench");
  if (!admitted.ok) throw new Error(`admit ${name}: ${admitted.errors.join("; ")}`);
  podByUid.set(admitted.pod.metadata.uid ?? "", name);
  livenessFailures.set(name, []);
}

const problems: string[] = [];

/** drivePod makes one pod's app fail `failures` times and measures each restart. */
async function drivePod(name: string): Promise<Sample[]> {
  const file = join(healthDir, name);
  const samples: Sample[] = [];
  for (let round = 0; round < flags.failures; round++) {
    // Container instance `round` is running once the pod has had round + 1 Started events.
    if (!(await waitUntil(() => harness.count(name, "Started") >= round + 1, START_WAIT_MS, 20))) {
      problems.push(`${name}: container #${round} did not start within ${START_WAIT_MS} ms`);
      break;
    }
    if (!(await waitUntil(() => existsSync(file), 5000, 20))) {
      problems.push(`${name}: container #${round} did not create its health file`);
      break;
    }
    const settle = flags["settle-min"] + Math.random() * (flags["settle-max"] - flags["settle-min"]);
    await sleep(settle - (performance.now() - harness.stamps(name, "Started")[round]!));
    const kills = harness.count(name, "Killing");
    const detected = livenessFailures.get(name)!.length;
    unlinkSync(file);
    const t0 = performance.now();
    const restarted = () => harness.count(name, "Killing") > kills && harness.count(name, "Started") >= round + 2;
    if (!(await waitUntil(restarted, 3 * boundMs + START_WAIT_MS, 5))) {
      problems.push(`${name}: no kill and restart within ${3 * boundMs + START_WAIT_MS} ms of failure #${round}`);
      break;
    }
    samples.push({
      pod: name,
      round,
      detectMs: (livenessFailures.get(name)![detected] ?? Number.NaN) - t0,
      killMs: harness.stamps(name, "Killing")[kills]! - t0,
      startMs: harness.stamps(name, "Started")[round + 1]! - t0,
    });
  }
  return samples;
}

const started = performance.now();
const samples = (await Promise.all(names.map(drivePod))).flat();
const wallS = (performance.now() - started) / 1000;

const restartCounts = names.map((n) => agent.getPod(BENCH_NAMESPACE, n).status?.containerStatuses?.find((c) => c.name === APP_CONTAINER)?.restartCount ?? -1);
const totals = (reason: string) => names.reduce((sum, n) => sum + harness.count(n, reason), 0);
const events = { Unhealthy: totals("Unhealthy"), Killing: totals("Killing"), Started: totals("Started"), BackOff: totals("BackOff") };
const closed = await harness.close();
await rm(healthDir, { recursive: true, force: true });

const detect = summarize(samples.map((s) => s.detectMs));
const kill = summarize(samples.map((s) => s.killMs));
const start = summarize(samples.map((s) => s.startMs));
const reaction = summarize(samples.map((s) => s.killMs - s.detectMs));
const restart = summarize(samples.map((s) => s.startMs - s.killMs));
// Restart #1 never meets CrashLoopBackOff; later ones do unless the back-off entry expired
// (kubelet: an entry idle for more than 2 × the cap is forgotten).
const restartByRound = Array.from({ length: flags.failures }, (_, r) => summarize(samples.filter((s) => s.round === r).map((s) => s.startMs - s.killMs)));
const killWithin = samples.filter((s) => s.killMs <= boundMs).length;
const startWithin = samples.filter((s) => s.startMs <= boundMs).length;
const spuriousKills = events.Killing - samples.length;
const ok = problems.length === 0 && closed.leftoverProcesses === 0 && samples.length === flags.pods * flags.failures;

const lines = [
  `liveness-restart ${todayUtc()}: ${flags.pods} pods × ${flags.failures} failures; exec liveness "test -f", period ${periodS}s, timeout ${timeoutS}s, failureThreshold ${threshold}`,
  `agent: process runtime, resync ${flags.resync} ms, CrashLoopBackOff scaled to ${flags["backoff-initial"]}→${flags["backoff-max"]} ms (kubelet: 10 s→300 s)`,
  `bound = failureThreshold × period + timeout = ${boundMs} ms (app exits on SIGTERM: no grace added)`,
  formatSummary("T0 → liveness Failure result", detect),
  formatSummary("T0 → Killing event          ", kill),
  formatSummary("T0 → new container Started  ", start),
  formatSummary("  Failure → Killing         ", reaction),
  formatSummary("  Killing → Started         ", restart),
  ...restartByRound.map((r, i) => formatSummary(`    restart #${i + 1}              `, r)),
  `within bound: Killing ${killWithin}/${samples.length}, Started ${startWithin}/${samples.length}`,
  `events: Unhealthy=${events.Unhealthy} Killing=${events.Killing} Started=${events.Started} BackOff=${events.BackOff}; kills without a T0: ${spuriousKills}`,
  `restartCount per pod: min=${Math.min(...restartCounts)} max=${Math.max(...restartCounts)}; wall ${wallS.toFixed(1)} s`,
  `close: ${closed.closeMs.toFixed(0)} ms, running after agent.close()=${closed.runningAfterAgentClose}, leftover processes=${closed.leftoverProcesses}`,
  ...problems.map((p) => `PROBLEM ${p}`),
];
printResult(lines, {
  bench: "liveness-restart",
  date: todayUtc(),
  ok,
  pods: flags.pods,
  failures_per_pod: flags.failures,
  period_s: periodS,
  timeout_s: timeoutS,
  failure_threshold: threshold,
  resync_ms: flags.resync,
  backoff_ms: [flags["backoff-initial"], flags["backoff-max"]],
  bound_ms: boundMs,
  samples: samples.length,
  detect_ms: detect,
  killing_ms: kill,
  started_ms: start,
  failure_to_killing_ms: reaction,
  killing_to_started_ms: restart,
  killing_to_started_by_restart_ms: restartByRound,
  killing_within_bound: fraction(killWithin, samples.length),
  started_within_bound: fraction(startWithin, samples.length),
  events,
  spurious_kills: spuriousKills,
  restart_count_min: Math.min(...restartCounts),
  wall_s: Math.round(wallS * 10) / 10,
  close_ms: Math.round(closed.closeMs),
  leftover_processes: closed.leftoverProcesses,
  problems,
});
process.exitCode = ok ? 0 : 1;
