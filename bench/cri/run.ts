// bench/cri/run.ts — the CRI benchmarks (see bench/cri/README.md):
//   1. exec-probe cost: probelet's CPU per exec probe on containerd vs a raw grpc-js ExecSync loop;
//   2. pod start latency: Agent.admit → running/Ready vs RunPodSandbox+CreateContainer+StartContainer.
// It uses $PROBELET_CRI_SOCKET when set, otherwise starts its own containerd with
// scripts/containerd.sh and stops it at the end, also after a failure or a signal.
//
//   node dist/bench/cri/run.js [--pairs 3] [--containers 20] [--duration 60] [--pod-starts 20]
//                              [--only exec|start] [--arms raw,manager,agent,agent-resync10s] [--out FILE]
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { liveChildren } from "./arm-process.js";
import { ensureContainerd, repoRoot, stopContainerd, whyNotRunnable, type CriInstance } from "./containerd-instance.js";
import { BENCH_LABEL, EXEC_ARMS, runExecCost, type ExecArm, type ExecCostResult } from "./exec-cost.js";
import { runPodStart, type PodStartResult } from "./pod-start.js";
import { RawCri } from "./raw-cri.js";
import { removeRawSandbox } from "./raw-pods.js";
import { formatExecCost, formatPodStart } from "./report.js";

/** RunFlags are the command-line options. */
export interface RunFlags {
  pairs: number;
  containers: number;
  durationSeconds: number;
  warmupSeconds: number;
  podStarts: number;
  only: "exec" | "start" | undefined;
  arms: ExecArm[];
  out: string | undefined;
}

/** PROBE_COMMAND is the exec readiness probe of every bench pod: a file only the image has. */
export const PROBE_COMMAND = ["cat", "/etc/probelet-image"];

/** UsageError is a bad command line: printed without a stack, exit code 2. */
class UsageError extends Error {}

const USAGE = "usage: npm run bench:cri -- [--only exec|start] [--pairs N] [--containers N] [--duration S] [--warmup S] [--pod-starts N] [--arms raw,manager,agent[,agent-resync10s]] [--out FILE] (see bench/cri/README.md)";

/** parseFlags reads `--name value` pairs; numbers are bounded so a run always ends. */
export function parseFlags(argv: readonly string[]): RunFlags {
  const flags: RunFlags = { pairs: 3, containers: 20, durationSeconds: 60, warmupSeconds: 3, podStarts: 20, only: undefined, arms: ["raw", "manager", "agent"], out: undefined };
  const int = (name: string, value: string | undefined, min: number, max: number): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be an integer in [${min}, ${max}]`);
    return n;
  };
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i];
    const value = argv[i + 1];
    switch (name) {
      case "--pairs":
        flags.pairs = int("pairs", value, 1, 10);
        break;
      case "--containers":
        flags.containers = int("containers", value, 1, 60);
        break;
      case "--duration":
        flags.durationSeconds = int("duration", value, 5, 300);
        break;
      case "--warmup":
        flags.warmupSeconds = int("warmup", value, 1, 60);
        break;
      case "--pod-starts":
        flags.podStarts = int("pod-starts", value, 2, 200);
        break;
      case "--only":
        if (value !== "exec" && value !== "start") throw new UsageError("--only takes exec or start");
        flags.only = value;
        break;
      case "--arms": {
        const arms = (value ?? "").split(",");
        if (!arms.includes("raw") || arms.some((a) => !(EXEC_ARMS as readonly string[]).includes(a))) throw new UsageError(`--arms lists raw plus any of ${EXEC_ARMS.slice(1).join(", ")}`);
        flags.arms = arms as ExecArm[];
        break;
      }
      case "--out":
        if (!value) throw new UsageError("--out needs a file");
        flags.out = value;
        break;
      default:
        throw new UsageError(name === "--help" || name === "-h" ? "" : `unknown flag ${String(name)}`);
    }
  }
  return flags;
}

const log = (line: string): void => void process.stderr.write(`${line}\n`);

/** cleanupRun removes any sandbox this run made that is still there (its label or its namespaces). */
async function cleanupRun(cri: CriInstance, runId: string): Promise<number> {
  const raw = new RawCri(cri.socket);
  try {
    const { items } = (await raw.call("ListPodSandbox", {})) as { items: { id: string; labels: Record<string, string>; metadata: { namespace: string } | null }[] };
    const mine = items.filter((s) => s.labels[BENCH_LABEL] === runId || (s.metadata?.namespace ?? "").includes(`-${runId}`));
    for (const s of mine) await removeRawSandbox(raw, s.id);
    return mine.length;
  } finally {
    raw.close();
  }
}

async function main(): Promise<number> {
  let flags: RunFlags;
  try {
    flags = parseFlags(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    log(err.message === "" ? USAGE : `bench/cri: ${err.message}\n${USAGE}`);
    return err.message === "" ? 0 : 2;
  }
  const skip = whyNotRunnable();
  if (skip) {
    log(`bench/cri: skipped: ${skip}`);
    return 2;
  }
  const runId = Math.random().toString(36).slice(2, 8);
  const date = new Date().toISOString();
  let cri: CriInstance | undefined;
  let stopping = false;
  const emergency = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    log(`bench/cri: ${signal}: cleaning up`);
    for (const child of liveChildren) child.kill("SIGKILL");
    const finish = (): never => {
      if (cri) stopContainerd(cri, log);
      process.exit(130);
    };
    if (cri) void cleanupRun(cri, runId).then(finish, finish);
    else finish();
  };
  process.on("SIGINT", emergency);
  process.on("SIGTERM", emergency);
  try {
    cri = ensureContainerd(log);
    log(`bench/cri: run ${runId}, containerd pid ${cri.containerdPid ?? "?"} on ${cri.socket}${cri.owned ? ` (started in ${Math.round(cri.startMs)} ms)` : " (already running)"}`);
    let exec: ExecCostResult | undefined;
    let start: PodStartResult | undefined;
    if (flags.only !== "start") {
      exec = await runExecCost(
        cri,
        { pairs: flags.pairs, containers: flags.containers, durationSeconds: flags.durationSeconds, periodSeconds: 1, timeoutSeconds: 1, warmupSeconds: flags.warmupSeconds, command: PROBE_COMMAND, arms: flags.arms, runId },
        log,
      );
    }
    if (flags.only !== "exec") {
      log(`pod-start: ${flags.podStarts} pods, agent and raw alternated`);
      start = await runPodStart(cri, { pods: flags.podStarts, command: PROBE_COMMAND, runId }, log);
    }
    const out = flags.out ?? join(repoRoot(), ".bench", `cri-${date.replace(/[:.]/g, "-")}.json`);
    mkdirSync(join(out, ".."), { recursive: true });
    writeFileSync(out, `${JSON.stringify({ date, argv: process.argv.slice(2), node: process.version, socket: cri.socket, exec, start }, null, 2)}\n`);
    const text = [`CRI benchmarks, ${date} (run ${runId}); raw results in ${out}`, ""];
    if (exec) text.push(formatExecCost(exec), "");
    if (start) text.push(formatPodStart(start), "");
    process.stdout.write(`${text.join("\n")}\n`);
    return 0;
  } finally {
    if (cri && !stopping) {
      const left = await cleanupRun(cri, runId).catch(() => 0);
      if (left > 0) log(`bench/cri: removed ${left} leftover sandboxes`);
      stopContainerd(cri, log);
    }
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(`bench/cri: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
