// 500 pods × 3 probes on the process runtime. Each pod runs `sleep` and has a startup probe
// (exec `true`: runs once per container, then the worker holds), a liveness tcpSocket and a
// readiness httpGet against ONE shared loopback HTTP server in a child process (so the CPU and
// event-loop figures are the agent's alone), all with periodSeconds 10. After every pod is
// Ready and a warm-up, it measures over a window: the agent process's CPU (process.cpuUsage),
// reaped children's CPU (/proc/self/stat cutime + cstime: exec probes), RSS (VmRSS, VmHWM),
// probes per second (prober_probe_total), event-loop delay (monitorEventLoopDelay) and the
// agent's pod syncs (kubelet_pod_worker_duration_seconds). `-probes none` runs the same pods
// without probes: the agent's cost of merely keeping 500 pods. agent.close() and the runtime
// stop every container at the end; the harness checks that no process survives.
//
//   node dist/bench/agent/scale.js [-pods 500] [-period 10s] [-warmup 30s] [-duration 60s] [-probes all|none]
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { Agent } from "../../src/agent/agent.js";
import { childrenCpuSeconds, clockTicksPerSecond, cpuSince } from "../lib/rusage.js";
import { round3 } from "../lib/stats.js";
import { scalePod, type ScaleProbes } from "./bench-pods.js";
import { AgentHarness } from "./harness.js";
import { spawnHealthServer } from "./health-server-child.js";
import { parseFlagsOrExit, printResult, procStatusMb, sleep, todayUtc, waitUntil } from "./report.js";

const FLAGS = {
  pods: { kind: "int", default: "500", help: "pods (one sleep container each)" },
  period: { kind: "duration", default: "10s", help: "periodSeconds of every probe (whole seconds)" },
  warmup: { kind: "duration", default: "30s", help: "settling time after every pod is Ready" },
  duration: { kind: "duration", default: "60s", help: "measured window" },
  probes: { kind: "string", default: "all", help: "all (startup exec + liveness tcp + readiness http) or none" },
  resync: { kind: "duration", default: "1s", help: "the agent's resyncIntervalMs" },
  "ready-timeout": { kind: "duration", default: "180s", help: "bound on reaching all pods Ready" },
} as const;

/** LOOP_RESOLUTION_MS is monitorEventLoopDelay's sampling timer; its samples include it. */
const LOOP_RESOLUTION_MS = 10;

const flags = parseFlagsOrExit("scale", FLAGS);
if (flags.probes !== "all" && flags.probes !== "none") {
  console.error(`-probes must be "all" or "none", not ${JSON.stringify(flags.probes)}`);
  process.exit(2);
}
if (flags.period % 1000 !== 0 || flags.period < 1000) {
  console.error("-period must be whole seconds (the API's periodSeconds)");
  process.exit(2);
}
const probes: ScaleProbes = flags.probes;
const runBoundMs = flags["ready-timeout"] + flags.warmup + flags.duration + 180_000;

const ticks = clockTicksPerSecond();
const rssBaseline = procStatusMb("VmRSS");
const server = await spawnHealthServer(ticks);
const harness = await AgentHarness.create({ name: "scale", deadlineMs: runBoundMs, resyncIntervalMs: flags.resync });
const { agent } = harness;

const ready = new Set<string>();
agent.probeManager.readinessManager.subscribe((u) => {
  if (u.result === "Success") ready.add(u.podUid);
});
const names = Array.from({ length: flags.pods }, (_, i) => `scale-${String(i).padStart(4, "0")}`);
const admitStart = performance.now();
for (const name of names) {
  const admitted = agent.admit(scalePod(name, server.port, probes, flags.period / 1000, runBoundMs / 1000 + 60), "bench");
  if (!admitted.ok) throw new Error(`admit ${name}: ${admitted.errors.join("; ")}`);
}
const admitMs = performance.now() - admitStart;
const allStarted = await waitUntil(() => names.every((n) => harness.count(n, "Started") > 0), flags["ready-timeout"], 50);
const startedMs = performance.now() - admitStart;
const allReady = probes === "none" || (await waitUntil(() => ready.size >= flags.pods, flags["ready-timeout"], 50));
const readyMs = performance.now() - admitStart;
await sleep(flags.warmup);

// ---- measured window ----
const probes0 = await probeCounts(agent);
const syncs0 = syncStats(await agent.agentMetrics());
const server0 = await server.stats();
const serverCpu0 = server.cpuSeconds();
const rssStart = procStatusMb("VmRSS");
const children0 = childrenCpuSeconds(ticks);
const cpu0 = process.cpuUsage();
const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
loop.enable();
let rssMax = rssStart;
const windowEnd = performance.now() + flags.duration;
while (performance.now() < windowEnd) {
  await sleep(Math.min(1000, windowEnd - performance.now()));
  rssMax = Math.max(rssMax, procStatusMb("VmRSS"));
}
loop.disable();
const cpu = cpuSince(cpu0);
const childrenCpu = childrenCpuSeconds(ticks) - children0;
const windowS = flags.duration / 1000;
const serverCpu = server.cpuSeconds() - serverCpu0;
const server1 = await server.stats();
const syncs1 = syncStats(await agent.agentMetrics());
const probes1 = await probeCounts(agent);
const rssEnd = procStatusMb("VmRSS");
const hwm = procStatusMb("VmHWM");

const closed = await harness.close();
const serverCpuTotal = server.cpuSeconds();
await server.close();
// Reaped by now: the containers, the exec helper and every exec probe, and the server child.
const childrenAfterClose = childrenCpuSeconds(ticks) - serverCpuTotal;

// ---- figures ----
const delta = (k: string) => (probes1.get(k) ?? 0) - (probes0.get(k) ?? 0);
const byType = { Liveness: delta("Liveness"), Readiness: delta("Readiness"), Startup: delta("Startup") };
const probesDone = byType.Liveness + byType.Readiness + byType.Startup;
const failed = delta("failed");
const expected = probes === "all" ? (2 * flags.pods * windowS) / (flags.period / 1000) : 0;
const cpuS = cpu.user + cpu.system;
const syncCount = syncs1.count - syncs0.count;
const lagMs = (q: number) => round3(loop.percentile(q) / 1e6 - LOOP_RESOLUTION_MS);
const ok = allStarted && allReady && closed.leftoverProcesses === 0;

const result = {
  bench: "scale",
  date: todayUtc(),
  ok,
  pods: flags.pods,
  probes,
  period_s: flags.period / 1000,
  resync_ms: flags.resync,
  window_s: windowS,
  admit_ms: round3(admitMs),
  all_started_ms: round3(startedMs),
  all_ready_ms: round3(readyMs),
  probes_completed: probesDone,
  probes_by_type: byType,
  probes_failed: failed,
  probes_expected: expected,
  probes_per_s: round3(probesDone / windowS),
  cpu_user_s: round3(cpu.user),
  cpu_sys_s: round3(cpu.system),
  cpu_s: round3(cpuS),
  cpu_cores: round3(cpuS / windowS),
  children_cpu_s: round3(childrenCpu),
  server_cpu_s: round3(serverCpu),
  cpu_ms_per_pod_per_s: round3((cpuS * 1000) / windowS / flags.pods),
  cpu_us_per_probe_all_in: probesDone === 0 ? null : round3(((cpuS + childrenCpu) * 1e6) / probesDone),
  syncs_per_s: round3(syncCount / windowS),
  sync_mean_ms: syncCount === 0 ? null : round3(((syncs1.sum - syncs0.sum) * 1000) / syncCount),
  cpu_us_per_sync_all_in: syncCount === 0 ? null : round3((cpuS * 1e6) / syncCount),
  rss_baseline_mb: round3(rssBaseline),
  rss_start_mb: round3(rssStart),
  rss_max_mb: round3(rssMax),
  rss_end_mb: round3(rssEnd),
  vm_hwm_mb: round3(hwm),
  rss_kb_per_pod: round3(((rssEnd - rssBaseline) * 1024) / flags.pods),
  loop_delay_p50_ms: lagMs(50),
  loop_delay_p99_ms: lagMs(99),
  loop_delay_max_ms: round3(loop.max / 1e6 - LOOP_RESOLUTION_MS),
  server_requests: server1.requests - server0.requests,
  server_connections: server1.connections - server0.connections,
  close_ms: round3(closed.closeMs),
  running_after_agent_close: closed.runningAfterAgentClose,
  leftover_processes: closed.leftoverProcesses,
  children_cpu_whole_run_excl_server_s: round3(childrenAfterClose),
};
printResult(
  [
    `scale ${todayUtc()}: ${flags.pods} pods, probes=${probes}${probes === "all" ? " (startup exec true, liveness tcpSocket, readiness httpGet)" : ""}, period ${flags.period / 1000}s, resync ${flags.resync} ms`,
    `start: admit loop ${admitMs.toFixed(0)} ms; all Started after ${startedMs.toFixed(0)} ms; all Ready after ${readyMs.toFixed(0)} ms; warm-up ${flags.warmup / 1000} s; window ${windowS} s`,
    `probes: ${probesDone} in window (${result.probes_per_s}/s, expected ${expected / windowS}/s): liveness ${byType.Liveness}, readiness ${byType.Readiness}, startup ${byType.Startup}, failed ${failed}`,
    `agent CPU: user ${result.cpu_user_s} s + sys ${result.cpu_sys_s} s = ${result.cpu_cores} cores; reaped children ${result.children_cpu_s} s; server (other process) ${result.server_cpu_s} s`,
    `per pod: ${result.cpu_ms_per_pod_per_s} ms CPU per s, ${result.rss_kb_per_pod} KiB RSS; per probe (all-in, incl. the sync loop): ${result.cpu_us_per_probe_all_in} µs`,
    `syncs: ${result.syncs_per_s}/s, mean ${result.sync_mean_ms} ms wall each, ${result.cpu_us_per_sync_all_in} µs agent CPU per sync (all-in)`,
    `RSS MiB: baseline ${result.rss_baseline_mb}, window start ${result.rss_start_mb}, max ${result.rss_max_mb}, end ${result.rss_end_mb}, VmHWM ${result.vm_hwm_mb}`,
    `event-loop delay beyond the ${LOOP_RESOLUTION_MS} ms timer: p50 ${result.loop_delay_p50_ms} ms, p99 ${result.loop_delay_p99_ms} ms, max ${result.loop_delay_max_ms} ms`,
    `server saw ${result.server_requests} requests, ${result.server_connections} connections in the window`,
    `close: ${result.close_ms} ms, running after agent.close()=${closed.runningAfterAgentClose}, leftover processes=${closed.leftoverProcesses}; children CPU whole run (without the server) ${result.children_cpu_whole_run_excl_server_s} s`,
    ...(allStarted && allReady ? [] : [`PROBLEM not all pods started/ready within ${flags["ready-timeout"]} ms (started ${allStarted}, ready ${allReady}: ${ready.size})`]),
  ],
  result,
);
process.exitCode = ok ? 0 : 1;

/** probeCounts sums prober_probe_total by probe type and by result label. */
async function probeCounts(a: Agent): Promise<Map<string, number>> {
  const sums = new Map<string, number>();
  for (const { labels, value } of (await a.proberMetrics.probeTotal.get()).values) {
    for (const key of [String(labels["probe_type"]), String(labels["result"])]) sums.set(key, (sums.get(key) ?? 0) + value);
  }
  return sums;
}

/** syncStats reads the sync operation's count and sum from the agent's metrics text. */
function syncStats(text: string): { count: number; sum: number } {
  const read = (suffix: string) => Number(new RegExp(`^kubelet_pod_worker_duration_seconds_${suffix}\\{operation="sync"\\} (\\S+)$`, "m").exec(text)?.[1] ?? 0);
  return { count: read("count"), sum: read("sum") };
}
