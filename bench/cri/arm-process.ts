// One arm of the exec-cost benchmark as a child process: fork it, wait until its load is warm,
// open the measured window (sampling containerd's counters at the same moment), close it after
// the duration, collect the child's own figures, and stop it. Every wait is bounded; a child
// that misbehaves is killed (its own teardown removes what it made; the runner's final cleanup
// catches the rest).
import { fork, type ChildProcess } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ChildMessage, ParentMessage, WindowStats } from "./child-protocol.js";
import { diffRuntimeCpu, sampleRuntimeCpu, type RuntimeCpuDelta, type RuntimeTarget } from "./proc-cpu.js";

/** ArmProgram names a child program in this directory. */
export type ArmProgram = "raw-exec-child" | "probelet-exec-child";

/** ArmWindow is what one arm run measured. */
export interface ArmWindow {
  stats: WindowStats;
  runtime: RuntimeCpuDelta;
  /** What the child reported when it became ready (e.g. agent: time until all pods Ready). */
  ready: Record<string, number | string>;
}

/** liveChildren holds the children now running, so a signal handler can kill them (only the ones we forked). */
export const liveChildren = new Set<ChildProcess>();

const here = dirname(fileURLToPath(import.meta.url));

function nextMessage(child: ChildProcess, want: ChildMessage["type"], timeoutMs: number): Promise<ChildMessage> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`child ${child.pid} sent no "${want}" within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
    const onMessage = (m: ChildMessage): void => {
      if (m.type === want) done(undefined, m);
      else if (m.type === "error") done(new Error(`child ${child.pid} failed: ${m.message}`));
    };
    const onExit = (code: number | null, signal: string | null): void => done(new Error(`child ${child.pid} exited (${signal ?? code}) before "${want}"`));
    const done = (err: Error | undefined, m?: ChildMessage): void => {
      clearTimeout(timer);
      child.off("message", onMessage);
      child.off("exit", onExit);
      if (err) reject(err);
      else resolve(m!);
    };
    child.on("message", onMessage);
    child.on("exit", onExit);
  });
}

function post(child: ChildProcess, message: ParentMessage): void {
  if (child.connected) child.send(message);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * runArm forks `program` with `config` (argv[2], JSON), waits up to `readyTimeoutMs` for it to
 * be warm, measures a window of `durationMs`, then stops it (teardown bounded by 60 s).
 */
export async function runArm(program: ArmProgram, config: object, durationMs: number, readyTimeoutMs: number, target: RuntimeTarget): Promise<ArmWindow> {
  // PROBELET_BENCH_CPU_PROF=DIR writes a V8 CPU profile of every child into DIR (node --cpu-prof).
  const profDir = process.env["PROBELET_BENCH_CPU_PROF"];
  const execArgv = profDir ? ["--cpu-prof", "--cpu-prof-dir", profDir, "--cpu-prof-name", `${program}-${Date.now()}.cpuprofile`] : [];
  const child = fork(join(here, `${program}.js`), [JSON.stringify(config)], { stdio: ["ignore", "inherit", "inherit", "ipc"], execArgv });
  liveChildren.add(child);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    const ready = await nextMessage(child, "ready", readyTimeoutMs);
    const before = sampleRuntimeCpu(target);
    post(child, { type: "begin" });
    await sleep(durationMs);
    const after = sampleRuntimeCpu(target);
    post(child, { type: "end" });
    const window = await nextMessage(child, "window", 10_000);
    const stopped = nextMessage(child, "stopped", 60_000);
    post(child, { type: "stop" });
    await stopped;
    await Promise.race([exited, sleep(10_000)]);
    if (ready.type !== "ready" || window.type !== "window") throw new Error("unexpected child messages");
    return { stats: window.stats, runtime: diffRuntimeCpu(before, after), ready: ready.detail };
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      // Ask for a clean teardown first; kill only if it does not come.
      post(child, { type: "stop" });
      await Promise.race([exited, sleep(30_000)]);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
    liveChildren.delete(child);
  }
}
