// Benchmark 2: pod start latency, one pod at a time, agent and raw CRI alternated (order
// swapped every other pair). Agent: from Agent.admit() of a hostNetwork busybox pod to the
// first published status showing the container running, and to the pod's Ready condition
// (exec readiness probe, period 1 s). Raw: RunPodSandbox + CreateContainer + StartContainer
// made directly (the kubelet's minimum), then one ExecSync of the same probe command for the
// "ready" counterpart. Every pod is deleted before the next starts (not timed). One untimed
// warm-up pair runs first.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Agent } from "../../src/agent/agent.js";
import type { Pod } from "../../src/api/types.js";
import { podCgroupParent } from "../../src/runtime/cri/convert.js";
import { CriRuntime } from "../../src/runtime/cri/cri-runtime.js";
import { removePodCgroup } from "../../src/runtime/cri/pod-cgroups.js";
import { systemClock } from "../../src/util/clock.js";
import { silentLogger } from "../../src/util/logger.js";
import { percentile, sortedCopy } from "../lib/stats.js";
import { benchPod, instrumentRuntime, isContainerRunning, isPodReady } from "./bench-pods.js";
import type { CriInstance } from "./containerd-instance.js";
import { BENCH_LABEL } from "./exec-cost.js";
import { RawCri } from "./raw-cri.js";
import { removeRawSandbox, startRawPod } from "./raw-pods.js";
import { startLocalApiServer } from "../../src/apiserver/local-api-server.js";

/** PodStartOptions size the benchmark. */
export interface PodStartOptions {
  pods: number;
  command: string[];
  runId: string;
}

/** AgentStart is one agent pod's timeline (ms from admit). */
export interface AgentStart {
  /** When the agent's first RunPodSandbox call began (the sync picked the pod up). */
  sandboxCallStart: number;
  /** When StartContainer returned. */
  startContainerDone: number;
  /** First published status with the container running. */
  running: number;
  /** First published status with the pod Ready. */
  ready: number;
}

/** RawStart is one raw pod's timeline (ms from the RunPodSandbox call). */
export interface RawStart {
  runPodSandbox: number;
  createContainer: number;
  startContainer: number;
  /** = running: StartContainer returned. */
  running: number;
  /** running + one ExecSync of the probe command. */
  ready: number;
}

/** Quantiles is p50/p99/max of a sample. */
export interface Quantiles {
  p50: number;
  p99: number;
  max: number;
}

/** PodStartResult is the whole benchmark. */
export interface PodStartResult {
  options: PodStartOptions;
  agent: AgentStart[];
  raw: RawStart[];
  summary: {
    agentRunning: Quantiles;
    agentReady: Quantiles;
    agentStartContainerDone: Quantiles;
    agentSandboxCallStart: Quantiles;
    rawRunning: Quantiles;
    rawReady: Quantiles;
    /** agent p50 / raw p50, and the same for p99. */
    runningRatio: { p50: number; p99: number };
    readyRatio: { p50: number; p99: number };
  };
}

function quantiles(values: number[]): Quantiles {
  const s = sortedCopy(values);
  return { p50: percentile(s, 0.5), p99: percentile(s, 0.99), max: percentile(s, 1) };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** runPodStart runs the pairs; every pod and sandbox it made is gone when it returns or throws. */
export async function runPodStart(cri: CriInstance, options: PodStartOptions, log: (line: string) => void): Promise<PodStartResult> {
  const raw = new RawCri(cri.socket);
  const stateDir = await mkdtemp(join(tmpdir(), "probelet-bench-cri-start-"));
  const namespace = `start-${options.runId}`;
  // Timestamps of the agent's runtime calls, for the breakdown of the current pod.
  let marks: { method: string; started: number; ended: number }[] = [];
  const runtime = instrumentRuntime(new CriRuntime({ socket: cri.socket, cgroupPrefix: cri.cgroupPrefix }), (method, started, ended) => {
    marks.push({ method, started, ended });
  });
  const agent = new Agent({ api: startLocalApiServer(), runtime, stateDir, nodeName: "bench" });
  const agentStarts: AgentStart[] = [];
  const rawStarts: RawStart[] = [];
  try {
    agent.start();
    // Past the probe manager's first period, new workers probe at once with no start jitter
    // (kubelet worker.go jitters only right after the kubelet started).
    await sleep(1500);
    // Pair 0 warms up both sides (first-call costs in Node and containerd) and is not counted.
    for (let i = 0; i <= options.pods; i++) {
      const agentFirst = i % 2 === 0;
      const pod = benchPod({ name: `start-${i}`, namespace, probeCommand: options.command, periodSeconds: 1, timeoutSeconds: 1 });
      const a = agentFirst ? await startAgentPod(agent, pod) : undefined;
      const r = await startRaw(raw, cri, options, i, stateDir);
      const b = a ?? (await startAgentPod(agent, pod));
      if (i === 0) continue;
      agentStarts.push(b);
      rawStarts.push(r);
      log(`  pod ${String(i).padStart(2)}  agent running ${b.running.toFixed(0)} ms, Ready ${b.ready.toFixed(0)} ms  |  raw running ${r.running.toFixed(0)} ms, +exec ${r.ready.toFixed(0)} ms`);
    }
  } finally {
    await agent.close(5).catch((err: unknown) => log(`  agent close failed: ${String(err)}`));
    await runtime.close();
    raw.close();
    await rm(stateDir, { recursive: true, force: true });
  }

  async function startAgentPod(a: Agent, pod: Pod): Promise<AgentStart> {
    const name = pod.metadata.name ?? "";
    let running = Number.NaN;
    let ready = Number.NaN;
    let resolveReady: () => void = () => undefined;
    const readySeen = new Promise<void>((resolve) => (resolveReady = resolve));
    let t0 = 0;
    const unwatch = a.watchPods((event) => {
      if (event.object.metadata.name !== name || event.type === "DELETED") return;
      const now = performance.now() - t0;
      if (Number.isNaN(running) && isContainerRunning(event.object)) running = now;
      if (Number.isNaN(ready) && isPodReady(event.object)) {
        ready = now;
        resolveReady();
      }
    });
    marks = [];
    t0 = performance.now();
    try {
      const admitted = a.admit(pod, "bench");
      if (!admitted.ok) throw new Error(`admit failed: ${admitted.errors.join("; ")}`);
      const timeout = sleep(30_000).then(() => "timeout" as const);
      if ((await Promise.race([readySeen, timeout])) === "timeout") throw new Error(`pod ${name} not Ready within 30 s`);
    } finally {
      unwatch();
      await a.deletePodAndWait(namespace, name, 5);
    }
    const sandbox = marks.find((m) => m.method === "runPodSandbox");
    const started = marks.find((m) => m.method === "startContainer");
    return { sandboxCallStart: (sandbox?.started ?? Number.NaN) - t0, startContainerDone: (started?.ended ?? Number.NaN) - t0, running, ready };
  }

  const agentRunning = agentStarts.map((s) => s.running);
  const agentReady = agentStarts.map((s) => s.ready);
  const summary = {
    agentRunning: quantiles(agentRunning),
    agentReady: quantiles(agentReady),
    agentStartContainerDone: quantiles(agentStarts.map((s) => s.startContainerDone)),
    agentSandboxCallStart: quantiles(agentStarts.map((s) => s.sandboxCallStart)),
    rawRunning: quantiles(rawStarts.map((s) => s.running)),
    rawReady: quantiles(rawStarts.map((s) => s.ready)),
    runningRatio: { p50: 0, p99: 0 },
    readyRatio: { p50: 0, p99: 0 },
  };
  summary.runningRatio = { p50: summary.agentRunning.p50 / summary.rawRunning.p50, p99: summary.agentRunning.p99 / summary.rawRunning.p99 };
  summary.readyRatio = { p50: summary.agentReady.p50 / summary.rawReady.p50, p99: summary.agentReady.p99 / summary.rawReady.p99 };
  return { options, agent: agentStarts, raw: rawStarts, summary };
}

/** startRaw times one raw pod (sandbox, container, start, one exec) and removes it. */
async function startRaw(raw: RawCri, cri: CriInstance, options: PodStartOptions, i: number, logRoot: string): Promise<RawStart> {
  const uid = `bench-${options.runId}-start-${i}`;
  const pod = await startRawPod(raw, { uid, name: `raw-start-${i}`, cgroupPrefix: cri.cgroupPrefix, logRoot: join(logRoot, "raw"), labels: { [BENCH_LABEL]: options.runId } });
  try {
    const t = performance.now();
    const res = await raw.call("ExecSync", { container_id: pod.containerId, cmd: options.command, timeout: "1" }, 3000);
    if (res["exit_code"] !== 0) throw new Error(`raw exec exited ${String(res["exit_code"])}`);
    const exec = performance.now() - t;
    const { runPodSandbox, createContainer, startContainer, total } = pod.timings;
    return { runPodSandbox, createContainer, startContainer, running: total, ready: total + exec };
  } finally {
    await removeRawSandbox(raw, pod.sandboxId);
    await removePodCgroup(podCgroupParent(cri.cgroupPrefix, uid), { clock: systemClock, logger: silentLogger }).catch(() => undefined);
  }
}
