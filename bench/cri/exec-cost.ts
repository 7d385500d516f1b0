// Benchmark 1: what an exec probe costs on CRI. N containers are probed at one exec per
// container per period by these arms, alternated within each round (order reversed every
// other round, so drift hits every arm alike):
//   raw      a bare grpc-js ExecSync loop (raw-exec-child.ts) on N pods made with raw CRI
//            calls: the floor any CRI client pays;
//   manager  probelet's ProbeManager → Prober → probeExec → CriRuntime (the probe path), on
//            the same raw pods;
//   agent    a whole Agent running its own N pods with the same probe (probe path, relist,
//            pod syncs; the raw pods are removed first, so the agent's relist sees only its own);
//   agent-resync10s  the same Agent relisting every 10 s instead of every 1 s: not a setting
//            to run with (the relist is how the agent sees containers exit), but it tells how
//            much of the agent's cost is the relist rather than probing.
// Per arm: the child's own CPU per exec (process.cpuUsage), containerd's and the shims' CPU per
// exec from /proc, and the rate achieved. probelet's overhead per exec probe = its CPU per exec
// minus the raw loop's in the same round; the figure reported is the median over rounds.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removePodCgroup } from "../../src/runtime/cri/pod-cgroups.js";
import { podCgroupParent } from "../../src/runtime/cri/convert.js";
import { silentLogger } from "../../src/util/logger.js";
import { systemClock } from "../../src/util/clock.js";
import { median } from "../lib/stats.js";
import { runArm, type ArmWindow } from "./arm-process.js";
import type { ProbeletExecConfig } from "./probelet-exec-child.js";
import type { RawExecConfig } from "./raw-exec-child.js";
import { RawCri } from "./raw-cri.js";
import { removeRawSandbox, startRawPod, type RawPod } from "./raw-pods.js";
import type { CriInstance } from "./containerd-instance.js";

/** ExecArm is one side of the comparison. */
export type ExecArm = "raw" | "manager" | "agent" | "agent-resync10s";

/** EXEC_ARMS lists every arm, in the order a round runs them. */
export const EXEC_ARMS: readonly ExecArm[] = ["raw", "manager", "agent", "agent-resync10s"];

/** ExecCostOptions size the benchmark. */
export interface ExecCostOptions {
  pairs: number;
  containers: number;
  durationSeconds: number;
  periodSeconds: number;
  timeoutSeconds: number;
  warmupSeconds: number;
  command: string[];
  arms: ExecArm[];
  /** Label value that marks this run's sandboxes (probelet.bench/run). */
  runId: string;
}

/** ArmResult is one arm run with its per-exec figures. */
export interface ArmResult {
  arm: ExecArm;
  round: number;
  window: ArmWindow;
  /** Execs per second achieved. */
  rate: number;
  /** The child's CPU per exec (ms): user + system. */
  clientCpuPerExecMs: number;
  containerdPerExecMs: number;
  /** Shims including the children they reaped (runc exec, runc init, the command). */
  shimsPerExecMs: number;
  podsCgroupPerExecMs: number;
  machinePerExecMs: number;
}

/** ExecCostResult is the whole benchmark. */
export interface ExecCostResult {
  options: ExecCostOptions;
  runs: ArmResult[];
  /** Medians over rounds, by arm. */
  medians: Record<string, Omit<ArmResult, "arm" | "round" | "window"> & { latencyP50Ms: number; latencyP99Ms: number }>;
  /** Median over rounds of (arm − raw) client CPU per exec, ms. */
  overheadMs: Record<string, number>;
  /**
   * Median over rounds of the probelet arms' calls per second besides the exec probes, by arm:
   * Runtime methods by name, CRI RPCs as "rpc:<Method>".
   */
  otherCallsPerSecond: Record<string, Record<string, number>>;
}

/** BENCH_LABEL marks every sandbox a bench run makes with raw CRI calls. */
export const BENCH_LABEL = "probelet.bench/run";

function perExec(arm: ExecArm, round: number, window: ArmWindow): ArmResult {
  const { stats, runtime } = window;
  const n = Math.max(1, stats.ops);
  return {
    arm,
    round,
    window,
    rate: stats.ops / (stats.wallMs / 1000),
    clientCpuPerExecMs: (stats.cpuUserMs + stats.cpuSystemMs) / n,
    containerdPerExecMs: runtime.containerdMs / n,
    shimsPerExecMs: runtime.shimsMs / n,
    podsCgroupPerExecMs: runtime.podsCgroupMs / n,
    machinePerExecMs: runtime.machineBusyMs / n,
  };
}

/**
 * RawPodSet holds the raw-CRI pods the raw and manager arms probe. They exist only around those
 * arms: the agent arms run on a node holding just the agent's own pods, since the agent relists
 * every container of the runtime (as the kubelet's PLEG does) and foreign ones would inflate it.
 */
class RawPodSet {
  pods: RawPod[] = [];
  private readonly uids: string[] = [];
  private generation = 0;

  constructor(
    private readonly raw: RawCri,
    private readonly cri: CriInstance,
    private readonly options: ExecCostOptions,
    private readonly logRoot: string,
  ) {}

  /** ensure creates the pods if `present` and there are none, or removes them if not `present`. */
  async ensure(present: boolean): Promise<void> {
    if (present && this.pods.length === 0) {
      const gen = this.generation++;
      for (let i = 0; i < this.options.containers; i++) {
        const uid = `bench-${this.options.runId}-exec-${gen}-${i}`;
        this.uids.push(uid);
        this.pods.push(await startRawPod(this.raw, { uid, name: `exec-${i}`, cgroupPrefix: this.cri.cgroupPrefix, logRoot: this.logRoot, labels: { [BENCH_LABEL]: this.options.runId } }));
      }
    } else if (!present) {
      await this.removeAll();
    }
  }

  /** removeAll removes every pod and pod cgroup this set made; errors are reported, not thrown. */
  async removeAll(log?: (line: string) => void): Promise<void> {
    for (const pod of this.pods.splice(0)) {
      await removeRawSandbox(this.raw, pod.sandboxId).catch((err: unknown) => log?.(`  could not remove sandbox ${pod.sandboxId}: ${String(err)}`));
    }
    for (const uid of this.uids.splice(0)) {
      await removePodCgroup(podCgroupParent(this.cri.cgroupPrefix, uid), { clock: systemClock, logger: silentLogger }).catch(() => undefined);
    }
  }
}

/** runExecCost runs the rounds; it always removes the containers it made. */
export async function runExecCost(cri: CriInstance, options: ExecCostOptions, log: (line: string) => void): Promise<ExecCostResult> {
  const raw = new RawCri(cri.socket);
  const logRoot = await mkdtemp(join(tmpdir(), "probelet-bench-cri-logs-"));
  const rawPods = new RawPodSet(raw, cri, options, logRoot);
  const target = { containerdPid: cri.containerdPid, socket: cri.socket, cgroupPrefix: cri.cgroupPrefix };
  const runs: ArmResult[] = [];
  try {
    log(`exec-cost: ${options.pairs} rounds of ${options.arms.join(", ")}, ${options.containers} containers, ${options.durationSeconds} s windows`);
    const durationMs = options.durationSeconds * 1000;
    for (let round = 0; round < options.pairs; round++) {
      const order = round % 2 === 0 ? options.arms : [...options.arms].reverse();
      for (const arm of order) {
        await rawPods.ensure(arm === "raw" || arm === "manager");
        const containerIds = rawPods.pods.map((p) => p.containerId);
        const window =
          arm === "raw"
            ? await runArm("raw-exec-child", rawConfig(cri, options, containerIds), durationMs, (options.warmupSeconds + 30) * 1000, target)
            : await runArm("probelet-exec-child", probeletConfig(cri, options, arm, containerIds, round), durationMs, (options.warmupSeconds + 120) * 1000, target);
        const result = perExec(arm, round, window);
        runs.push(result);
        log(
          `  round ${round + 1} ${arm.padEnd(15)} ${result.window.stats.ops} execs (${result.rate.toFixed(1)}/s, ${result.window.stats.failures} failed)` +
            `  client ${result.clientCpuPerExecMs.toFixed(2)} ms/exec  containerd ${result.containerdPerExecMs.toFixed(2)}  shims+children ${result.shimsPerExecMs.toFixed(2)}` +
            `  p50 ${result.window.stats.latencyMs.p50.toFixed(1)} ms`,
        );
      }
    }
  } finally {
    await rawPods.removeAll(log);
    raw.close();
    await rm(logRoot, { recursive: true, force: true });
  }
  return summarise(options, runs);
}

function rawConfig(cri: CriInstance, o: ExecCostOptions, containerIds: string[]): RawExecConfig {
  return { socket: cri.socket, containerIds, periodMs: o.periodSeconds * 1000, timeoutSeconds: o.timeoutSeconds, command: o.command, warmupSeconds: o.warmupSeconds };
}

function probeletConfig(cri: CriInstance, o: ExecCostOptions, arm: Exclude<ExecArm, "raw">, containerIds: string[], round: number): ProbeletExecConfig {
  return {
    mode: arm === "manager" ? "manager" : "agent",
    resyncIntervalMs: arm === "agent-resync10s" ? 10_000 : 1000,
    socket: cri.socket,
    cgroupPrefix: cri.cgroupPrefix,
    containerIds,
    pods: o.containers,
    // A fresh namespace per round: pod UIDs (and so CRI names) never repeat.
    namespace: `bench-${o.runId}-${arm === "agent-resync10s" ? "s" : ""}${round}`,
    command: o.command,
    periodSeconds: o.periodSeconds,
    timeoutSeconds: o.timeoutSeconds,
    warmupSeconds: o.warmupSeconds,
    readyTimeoutSeconds: 90,
  };
}

/** summarise takes medians over rounds, and the median of the per-round differences to raw. */
export function summarise(options: ExecCostOptions, runs: ArmResult[]): ExecCostResult {
  const medians: ExecCostResult["medians"] = {};
  const overheadMs: Record<string, number> = {};
  const otherCallsPerSecond: Record<string, Record<string, number>> = {};
  for (const arm of options.arms) {
    const mine = runs.filter((r) => r.arm === arm);
    const m = (f: (r: ArmResult) => number): number => median(mine.map(f));
    medians[arm] = {
      rate: m((r) => r.rate),
      clientCpuPerExecMs: m((r) => r.clientCpuPerExecMs),
      containerdPerExecMs: m((r) => r.containerdPerExecMs),
      shimsPerExecMs: m((r) => r.shimsPerExecMs),
      podsCgroupPerExecMs: m((r) => r.podsCgroupPerExecMs),
      machinePerExecMs: m((r) => r.machinePerExecMs),
      latencyP50Ms: m((r) => r.window.stats.latencyMs.p50),
      latencyP99Ms: m((r) => r.window.stats.latencyMs.p99),
    };
    if (arm !== "raw") {
      const diffs = mine.flatMap((r) => {
        const base = runs.find((b) => b.arm === "raw" && b.round === r.round);
        return base ? [r.clientCpuPerExecMs - base.clientCpuPerExecMs] : [];
      });
      overheadMs[arm] = median(diffs);
    }
  }
  for (const arm of options.arms.filter((a) => a !== "raw")) {
    const armRuns = runs.filter((r) => r.arm === arm);
    const methods = new Set(armRuns.flatMap((r) => Object.keys(r.window.stats.calls)));
    const perSecond: Record<string, number> = {};
    for (const method of methods) {
      if (method === "runInContainer" || method === "rpc:ExecSync") continue;
      perSecond[method] = median(armRuns.map((r) => (r.window.stats.calls[method] ?? 0) / (r.window.stats.wallMs / 1000)));
    }
    otherCallsPerSecond[arm] = perSecond;
  }
  return { options, runs, medians, overheadMs, otherCallsPerSecond };
}
