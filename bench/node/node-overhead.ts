// Node overhead against the real kubelet: the same pods (node-pods.ts) on the kubelet v1.37
// (scripts/kubelet-anchor.sh) and on a probelet node (cluster mode, CRI runtime), each on its own
// containerd of the same version, one control plane; each agent's own CPU and RSS from the cgroup
// accounting of its process tree (containers and containerd excluded), kubelet and probelet
// alternated (A/B, the first of each pair alternating too). Reports per pod count the median of
// the per-pair ratios probelet/kubelet with their spread, and after how many pairs the running
// median settled. With -profile N, one more probelet run of N pods under `node --cpu-prof`, and
// where its CPU went (cpu-profile-breakdown.ts). Root only; results in docs/performance.md.
//
//   npm run --silent bench:node -- [-pods 10,50,110] [-pairs 3] [-window 60s] [-settle 15s] [-profile 50]
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as delay } from "node:timers/promises";
import { RestClient } from "../../src/client/rest-client.js";
import { loadKubeconfig } from "../../src/cluster/kubeconfig.js";
import { systemClock } from "../../src/util/clock.js";
import { anchorUnavailable } from "../../test/cluster/kubelet-anchor.js";
import { probeletNodeName, startKubeletNode, startProbeletNode, useControlPlane, type PairedNode } from "../../test/cluster/paired-nodes.js";
import { FlagError, parseGoFlags } from "../lib/go-flags.js";
import { formatRatio, median, ratio, round3 } from "../lib/stats.js";
import { AgentCgroup } from "./agent-cgroup.js";
import { breakdown, CATEGORIES, type CpuProfile } from "./cpu-profile-breakdown.js";
import { benchPod, probesPerSecond } from "./node-pods.js";

const FLAGS = {
  pods: { kind: "string", default: "10,50,110", help: "pod counts, comma-separated (110 is the kubelet's default maxPods)" },
  pairs: { kind: "int", default: "3", help: "A/B pairs per pod count" },
  window: { kind: "duration", default: "60s", help: "measured window after all pods are Ready and settled" },
  settle: { kind: "duration", default: "15s", help: "wait after all pods are Ready before the window" },
  profile: { kind: "int", default: "0", help: "pods of an extra probelet run under node --cpu-prof (0: none)" },
  out: { kind: "string", default: "", help: "JSON results file (default /tmp/probelet-bench-node-<time>.json)" },
} as const;

/** READY_TIMEOUT_MS bounds the wait for every pod of a run to be Ready. */
const READY_TIMEOUT_MS = 10 * 60_000;
/** GONE_TIMEOUT_MS bounds the wait for a run's pods to be gone. */
const GONE_TIMEOUT_MS = 5 * 60_000;
/** The running median of the ratios "settled" once later pairs move it less than this. */
const SETTLED = 0.05;

function log(message: string): void {
  process.stderr.write(`bench:node: ${message}\n`);
}

/** NotReadyError is a run whose pods did not all get Ready: the pair is left out and reported. */
class NotReadyError extends Error {}

/** Measured is one agent's run of n pods. */
interface Measured {
  agent: string;
  pods: number;
  /** CPU seconds in the window, and per second of it. */
  cpuSeconds: number;
  cpuPerSecond: number;
  /** Mean and max over the window of the processes' VmRSS, and the mean of the cgroup's anonymous memory. */
  rssMeanMiB: number;
  rssMaxMiB: number;
  anonMeanMiB: number;
  readySeconds: number;
  load: [number, number];
}

/**
 * withPods makes a namespace with n bench pods on `node` through the API server as admin, waits
 * until all are Ready, runs `body`, then deletes the pods (gracefully and waits for them to be
 * gone, or at once with `force` when the node's agent no longer runs) and the namespace.
 */
async function withPods<T>(client: RestClient, node: PairedNode, n: number, body: (readySeconds: number) => Promise<T>, force = false): Promise<T> {
  const namespace = `bench-node-${randomBytes(3).toString("hex")}`;
  await client.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } } });
  try {
    for (let i = 0; i < 100; i++) {
      if (await client.request("GET", `/api/v1/namespaces/${namespace}/serviceaccounts/default`).then(() => true, () => false)) break;
      await delay(200);
    }
    const t0 = performance.now();
    for (let i = 0; i < n; i += 10) {
      await Promise.all(Array.from({ length: Math.min(10, n - i) }, (_, k) => client.request("POST", `/api/v1/namespaces/${namespace}/pods`, { body: benchPod(i + k, namespace, node.nodeName) })));
    }
    type Listed = { metadata: { name: string }; status?: { conditions?: { type: string; status: string }[]; containerStatuses?: { state?: Record<string, { reason?: string } | undefined>; restartCount?: number }[] } };
    for (;;) {
      const list = await client.request<{ items: Listed[] }>("GET", `/api/v1/namespaces/${namespace}/pods`);
      const unready = list.items.filter((p) => !(p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false));
      if (list.items.length === n && unready.length === 0) break;
      if (performance.now() - t0 > READY_TIMEOUT_MS) {
        const why = unready.map((p) => `${p.metadata.name} ${JSON.stringify(p.status?.containerStatuses?.map((c) => ({ state: c.state, restarts: c.restartCount })) ?? [])}`);
        throw new NotReadyError(`${node.label}: ${n - unready.length} of ${n} pods Ready after ${READY_TIMEOUT_MS / 1000} s; not Ready: ${why.join("; ")}`);
      }
      await delay(2000);
    }
    return await body((performance.now() - t0) / 1000);
  } finally {
    await client.request("DELETE", `/api/v1/namespaces/${namespace}/pods`, { body: { gracePeriodSeconds: force ? 0 : 1 } }).catch(() => undefined);
    const t0 = performance.now();
    while (performance.now() - t0 < GONE_TIMEOUT_MS) {
      const list = await client.request<{ items: unknown[] }>("GET", `/api/v1/namespaces/${namespace}/pods`).catch(() => ({ items: [] }));
      if (list.items.length === 0) break;
      await delay(2000);
    }
    await client.request("DELETE", `/api/v1/namespaces/${namespace}`).catch(() => undefined);
  }
}

/** measure reads the agent's cgroup over the window: CPU at both ends, memory every second. */
async function measure(cg: AgentCgroup, windowMs: number): Promise<{ cpuSeconds: number; rss: number[]; anon: number[] }> {
  const cpu0 = cg.cpuSeconds();
  const t0 = performance.now();
  const rss: number[] = [];
  const anon: number[] = [];
  while (performance.now() - t0 < windowMs) {
    const m = cg.memory();
    rss.push(m.rssBytes);
    anon.push(m.anonBytes);
    await delay(Math.min(1000, Math.max(0, t0 + windowMs - performance.now())));
  }
  return { cpuSeconds: cg.cpuSeconds() - cpu0, rss, anon };
}

const mean = (xs: readonly number[]): number => xs.reduce((x, y) => x + y, 0) / Math.max(1, xs.length);
const MIB = 1024 * 1024;

async function runOnce(client: RestClient, node: PairedNode, cg: AgentCgroup, n: number, settleMs: number, windowMs: number): Promise<Measured> {
  return withPods(client, node, n, async (readySeconds) => {
    await delay(settleMs);
    const load0 = loadavg()[0]!;
    const { cpuSeconds, rss, anon } = await measure(cg, windowMs);
    const m: Measured = {
      agent: node.label,
      pods: n,
      cpuSeconds,
      cpuPerSecond: cpuSeconds / (windowMs / 1000),
      rssMeanMiB: mean(rss) / MIB,
      rssMaxMiB: Math.max(...rss) / MIB,
      anonMeanMiB: mean(anon) / MIB,
      readySeconds,
      load: [load0, loadavg()[0]!],
    };
    log(`${node.label} ${n} pods: CPU ${m.cpuSeconds.toFixed(2)} s in ${windowMs / 1000} s, RSS ${m.rssMeanMiB.toFixed(1)} MiB (max ${m.rssMaxMiB.toFixed(1)}, anonymous ${m.anonMeanMiB.toFixed(1)}), Ready in ${readySeconds.toFixed(0)} s, load ${m.load[0].toFixed(1)} → ${m.load[1].toFixed(1)}`);
    return m;
  });
}

/** PairResult is one A/B pair's ratios probelet/kubelet. */
interface PairResult {
  kubelet: Measured;
  probelet: Measured;
  cpuRatio: number;
  rssRatio: number;
  anonRatio: number;
}

/** summary is the median of the ratios, their spread, and the pair after which the running median stayed within SETTLED. */
function summary(ratios: readonly number[]): { median: number; min: number; max: number; runningMedians: number[]; settledAfter: number | null } {
  const runningMedians = ratios.map((_, i) => median(ratios.slice(0, i + 1)));
  const final = runningMedians.at(-1) ?? Number.NaN;
  let settledAfter: number | null = null;
  for (let i = runningMedians.length - 1; i >= 0 && Math.abs(runningMedians[i]! - final) <= SETTLED * final; i--) settledAfter = i + 1;
  return { median: final, min: Math.min(...ratios), max: Math.max(...ratios), runningMedians, settledAfter: ratios.length >= 2 ? settledAfter : null };
}

async function profileRun(client: RestClient, cp: ReturnType<typeof useControlPlane>["env"], n: number, settleMs: number, windowMs: number): Promise<Record<string, number> & { busyMs: number }> {
  const dir = mkdtempSync(join(tmpdir(), "probelet-bench-prof-"));
  const node = await startProbeletNode("probelet-profiled", cp, {
    criDir: "/tmp/probelet-cri-bench-prof", node: probeletNodeName(cp, "probelet-bench"), subnet: "10.244.97.0/24",
    nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${dir}`],
  });
  try {
    let stopAt = 0;
    let stoppedAt = 0;
    await withPods(client, node, n, async () => {
      await delay(settleMs + windowMs);
      // The profile is written when the agent exits: SIGTERM now, and take the window before it.
      const pid = node.pid();
      if (pid === undefined) throw new Error("the profiled agent is not running");
      stopAt = performance.now();
      process.kill(pid, "SIGTERM");
      for (let i = 0; i < 600 && node.pid() !== undefined; i++) await delay(100);
      stoppedAt = performance.now();
    }, true);
    const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
    if (file === undefined) throw new Error(`no CPU profile in ${dir}`);
    const profile = JSON.parse(readFileSync(join(dir, file), "utf8")) as CpuProfile;
    const shutdownUs = (stoppedAt - stopAt) * 1000;
    const to = profile.endTime - shutdownUs;
    const result = breakdown(profile, to - windowMs * 1000, to);
    return { busyMs: result.busyMs, ...result.byCategory };
  } finally {
    await node.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<number> {
  let flags;
  try {
    flags = parseGoFlags(FLAGS, process.argv.slice(2)).values;
  } catch (err) {
    if (err instanceof FlagError) {
      log(err.message);
      return 2;
    }
    throw err;
  }
  const podCounts = flags.pods.split(",").map((s) => Number(s.trim()));
  if (podCounts.some((n) => !Number.isInteger(n) || n < 0 || n > 110)) {
    log(`-pods: Invalid value: "${flags.pods}": pod counts from 0 to 110`);
    return 2;
  }
  if (flags.pairs < 1 || flags.pairs > 20) {
    log(`-pairs: Invalid value: ${flags.pairs}: from 1 to 20`);
    return 2;
  }
  const unavailable = anchorUnavailable();
  if (unavailable) {
    log(`cannot run: ${unavailable}`);
    return 2;
  }
  const out = flags.out !== "" ? flags.out : `/tmp/probelet-bench-node-${new Date().toISOString().replace(/[:.]/g, "-")}.json`;
  const cleanups: (() => Promise<void>)[] = [];
  const onSignal = (): void => {
    log("interrupted: stopping what the run started");
    void (async () => {
      for (const c of cleanups.reverse()) await c().catch(() => undefined);
      process.exit(130);
    })();
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    const plane = useControlPlane("/tmp/probelet-cp-bench", ["probelet-bench"]);
    cleanups.push(async () => plane.stop());
    const cp = plane.env;
    const kubelet = await startKubeletNode("kubelet", cp, { cpDir: cp.dir, dir: "/tmp/probelet-anchor-bench", node: "kubelet-bench", subnet: "10.244.95.0/24" });
    cleanups.push(() => kubelet.stop());
    const probeletCg = AgentCgroup.create(`/probelet-bench-agent-${process.pid}`);
    cleanups.push(async () => probeletCg.remove());
    const probelet = await startProbeletNode("probelet", cp, { criDir: "/tmp/probelet-cri-bench", node: probeletNodeName(cp, "probelet-bench"), subnet: "10.244.96.0/24", onStart: (pid) => probeletCg.join(pid) });
    cleanups.push(() => probelet.stop());
    const kubeletCg = new AgentCgroup(kubelet.agentCgroup!);
    const client = new RestClient({ credentials: await loadKubeconfig(cp.adminKubeconfig), clock: systemClock, userAgent: "probelet-bench-node" });
    cleanups.push(async () => client.close());
    log(`nodes ${kubelet.nodeName} and ${probelet.nodeName} Ready; load average ${loadavg().map((l) => l.toFixed(1)).join(" ")}`);

    const results: { pods: number; probesPerSecond: number; pairs: PairResult[]; cpu: ReturnType<typeof summary>; rss: ReturnType<typeof summary>; anon: ReturnType<typeof summary> }[] = [];
    const notReady: { pods: number; pair: number; message: string }[] = [];
    for (const n of podCounts) {
      const pairs: PairResult[] = [];
      for (let p = 0; p < flags.pairs; p++) {
        // The first of each pair alternates, so neither agent always runs on the warmer machine.
        const order = p % 2 === 0 ? (["kubelet", "probelet"] as const) : (["probelet", "kubelet"] as const);
        const got: Partial<Record<"kubelet" | "probelet", Measured>> = {};
        try {
          for (const which of order) {
            got[which] = which === "kubelet"
              ? await runOnce(client, kubelet, kubeletCg, n, flags.settle, flags.window)
              : await runOnce(client, probelet, probeletCg, n, flags.settle, flags.window);
          }
        } catch (err) {
          if (!(err instanceof NotReadyError)) throw err;
          log(`${n} pods, pair ${p + 1} left out: ${err.message}`);
          notReady.push({ pods: n, pair: p + 1, message: err.message });
          continue;
        }
        const pair = { kubelet: got.kubelet!, probelet: got.probelet!, cpuRatio: ratio(got.probelet!.cpuSeconds, got.kubelet!.cpuSeconds), rssRatio: ratio(got.probelet!.rssMeanMiB, got.kubelet!.rssMeanMiB), anonRatio: ratio(got.probelet!.anonMeanMiB, got.kubelet!.anonMeanMiB) };
        pairs.push(pair);
        log(`${n} pods, pair ${p + 1}: CPU ${formatRatio(pair.cpuRatio)}x, RSS ${formatRatio(pair.rssRatio)}x, anonymous memory ${formatRatio(pair.anonRatio)}x`);
      }
      results.push({ pods: n, probesPerSecond: round3(probesPerSecond(n)) ?? 0, pairs, cpu: summary(pairs.map((x) => x.cpuRatio)), rss: summary(pairs.map((x) => x.rssRatio)), anon: summary(pairs.map((x) => x.anonRatio)) });
    }
    // The profiled agent takes the probelet node's name (and its pods): the measured one stops first.
    await probelet.stop();
    const profile = flags.profile > 0 ? await profileRun(client, cp, flags.profile, flags.settle, flags.window) : undefined;

    process.stdout.write(`node overhead, probelet / kubelet v1.37.2, ${flags.window / 1000} s windows (CPU of each agent's cgroup; RSS: VmRSS of its processes; anon: the cgroup's anonymous memory)\n`);
    process.stdout.write("pods  probes/s  kubelet CPU s  probelet CPU s  CPU ratio median [min-max] (settled after)  kubelet RSS MiB  probelet RSS MiB  RSS ratio median [min-max]  anon ratio median [min-max]\n");
    for (const r of results) {
      const k = median(r.pairs.map((x) => x.kubelet.cpuSeconds));
      const pr = median(r.pairs.map((x) => x.probelet.cpuSeconds));
      const km = median(r.pairs.map((x) => x.kubelet.rssMeanMiB));
      const pm = median(r.pairs.map((x) => x.probelet.rssMeanMiB));
      process.stdout.write(`${String(r.pods).padStart(4)}  ${r.probesPerSecond.toFixed(1).padStart(8)}  ${k.toFixed(2).padStart(13)}  ${pr.toFixed(2).padStart(14)}  ${formatRatio(r.cpu.median)} [${formatRatio(r.cpu.min)}-${formatRatio(r.cpu.max)}] (${r.cpu.settledAfter ?? "-"} of ${r.pairs.length})  ${km.toFixed(1).padStart(15)}  ${pm.toFixed(1).padStart(16)}  ${formatRatio(r.rss.median)} [${formatRatio(r.rss.min)}-${formatRatio(r.rss.max)}]  ${formatRatio(r.anon.median)} [${formatRatio(r.anon.min)}-${formatRatio(r.anon.max)}]\n`);
    }
    if (profile) {
      process.stdout.write(`probelet CPU profile, ${flags.profile} pods, ${flags.window / 1000} s window: ${(profile.busyMs / 1000).toFixed(2)} s sampled busy\n`);
      const names = [...CATEGORIES.map((c) => c.name), "runtime client (CRI over gRPC)", "timers (Node)", "garbage collector", "V8 and native (program)", "Node internals (no probelet frame)"];
      for (const name of [...new Set(names)]) {
        const ms = profile[name] ?? 0;
        if (ms > 0) process.stdout.write(`  ${name.padEnd(42)} ${(ms / 1000).toFixed(2).padStart(6)} s  ${((100 * ms) / profile.busyMs).toFixed(1).padStart(5)}%\n`);
      }
    }
    for (const f of notReady) process.stdout.write(`left out: ${f.pods} pods, pair ${f.pair}: ${f.message}\n`);
    writeFileSync(out, JSON.stringify({ flags, load: loadavg(), results, notReady, profile }, null, 1), { mode: 0o600 });
    log(`results in ${out}`);
    return 0;
  } finally {
    for (const c of cleanups.reverse()) await c().catch((err: unknown) => log(`cleanup: ${err instanceof Error ? err.message : String(err)}`));
  }
}

main().then((code) => (process.exitCode = code), (err: unknown) => {
  log(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
});
