// What a probe worker costs in V8's heap, layer by layer, at N workers: the worker itself (its
// loop, wait slot and cached status lookups, probing with a no-op handler), then its prepared
// HTTP target (real httpGet probes against the bench target), its prober metric series, and its
// probe history. Each layer runs in a fresh child process of its own, so layers never share a
// heap; the synthetic pods and statuses (the bench's objects, not the prober's) are measured
// alone and subtracted.
//
//   node --expose-gc dist/bench/worker-memory.js [-n 10000] [-target http://127.0.0.1:23080/healthz] [-settle 12s]
//
// The real-target layers need the anchor target (`npm run bench` starts it; or
// `.bench/anchor-target -http 127.0.0.1:23080 -tcp 127.0.0.1:23081`); without one they are
// reported as skipped.
import { spawnSync } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { ProberMetrics } from "../src/prober/metrics.js";
import { ProbeHistory } from "../src/prober/probe-history.js";
import { ProbeManager, type ProbeManagerOptions } from "../src/prober/manager.js";
import type { ProbeOutcome } from "../src/probe/probe-result.js";
import { portAnswers } from "./lib/anchor.js";
import { FlagError, flagUsage, parseGoFlags } from "./lib/go-flags.js";
import { podUid, runningStatus, syntheticPod, syntheticTarget, SyntheticStatusProvider } from "./lib/synthetic-pods.js";

const FLAGS = {
  n: { kind: "int", default: "10000", help: "workers (synthetic pods, one readiness probe each)" },
  target: { kind: "string", default: "http://127.0.0.1:23080/healthz", help: "the httpGet target of the real-handler layers (loopback)" },
  settle: { kind: "duration", default: "12s", help: "how long the workers probe (period 10 s) before the heap is measured" },
  layer: { kind: "string", default: "", help: "internal: the one layer a child process measures" },
} as const;

/** LAYERS are measured in this order; each adds one thing to the one before. */
const LAYERS = ["pods", "worker", "target", "metrics", "history"] as const;
type Layer = (typeof LAYERS)[number];

const LAYER_TEXT: Record<Layer, string> = {
  pods: "the bench's pod + status (not the prober's)",
  worker: "worker (no-op handler: loop, wait slot, status lookup, result entry)",
  target: "+ prepared HTTP target (real probes)",
  metrics: "+ prober metric series (ProberMetrics: one record per worker)",
  history: "+ probe history (ProbeHistory, newest 10 per worker)",
};

/** A layer's child prints one line: `LAYER <json>`. */
interface LayerFigures {
  layer: Layer;
  /** How many workers (and synthetic pods, alive until the heap was weighed) were measured. */
  workers: number;
  bytesPerWorker: number;
  rssMb: number;
  heapTotalMb: number;
}

const noopHandler = (): Promise<ProbeOutcome> => Promise.resolve({ result: "success", output: "" });
const noRunner = { runInContainer: () => Promise.reject(new Error("no exec probes in this bench")) };

/** measureLayer builds n workers with the layer's parts, lets them probe, and weighs the heap. */
async function measureLayer(layer: Layer, n: number, targetUrl: string, settleMs: number): Promise<LayerFigures> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error("run with node --expose-gc");
  const statuses = new SyntheticStatusProvider();
  const target = syntheticTarget("http", targetUrl);
  const pods = [];
  gc();
  const before = process.memoryUsage().heapUsed;
  const startedAt = new Date().toISOString();
  for (let i = 0; i < n; i++) {
    statuses.set(podUid(i), runningStatus(i, target, startedAt));
    pods.push(syntheticPod(i, target, { periodMs: 10_000, timeoutMs: 1000 }));
  }
  let manager: ProbeManager | undefined;
  if (layer !== "pods") {
    const history = layer === "history" ? new ProbeHistory() : undefined;
    const options: ProbeManagerOptions = {
      statusProvider: statuses,
      runner: noRunner,
      ...(layer === "worker" ? { proberOptions: { handlers: { http: noopHandler } } } : {}),
      ...(layer === "metrics" || layer === "history" ? { metrics: new ProberMetrics() } : {}),
      ...(history ? { onProbe: (worker, record) => history.record(worker, record) } : {}),
    };
    manager = new ProbeManager(options);
    for (const pod of pods) manager.addPod(pod);
    await sleep(settleMs);
  }
  gc();
  gc();
  const after = process.memoryUsage();
  const figures = {
    layer,
    workers: pods.length,
    bytesPerWorker: Math.round((after.heapUsed - before) / n),
    rssMb: Math.round(after.rss / 1e5) / 10,
    heapTotalMb: Math.round(after.heapTotal / 1e5) / 10,
  };
  await manager?.close();
  return figures;
}

async function main(): Promise<void> {
  const { values } = parseGoFlags(FLAGS, process.argv.slice(2));
  if (values.n < 1 || values.n > 100_000) throw new FlagError("-n must be 1..100000");
  if (values.settle <= 0 || values.settle > 120_000) throw new FlagError("-settle must be above 0 and at most 2m");
  if (values.layer !== "") {
    if (!(LAYERS as readonly string[]).includes(values.layer)) throw new FlagError(`-layer must be one of ${LAYERS.join(", ")}`);
    const figures = await measureLayer(values.layer as Layer, values.n, values.target, values.settle);
    console.log(`LAYER ${JSON.stringify(figures)}`);
    return;
  }
  const { hostname, port } = new URL(values.target);
  const hasTarget = await portAnswers(hostname, Number(port || 80));
  const self = fileURLToPath(import.meta.url);
  let pods = 0;
  console.log(`${values.n} workers, period 10 s, heap after ${values.settle / 1000} s of probing and two full GCs (Node ${process.version})`);
  console.log("layer".padEnd(72), "B/worker".padStart(9), "prober B/worker".padStart(16), "RSS MB".padStart(8), "heap MB".padStart(8));
  for (const layer of LAYERS) {
    if (layer !== "pods" && layer !== "worker" && !hasTarget) {
      console.log(`${LAYER_TEXT[layer].padEnd(72)} skipped: no target answers at ${values.target}`);
      continue;
    }
    const args = ["--expose-gc", self, "-layer", layer, "-n", String(values.n), "-target", values.target, "-settle", `${values.settle}ms`];
    const child = spawnSync(process.execPath, args, { encoding: "utf8", timeout: values.settle + 60_000 });
    const line = child.stdout.split("\n").find((l) => l.startsWith("LAYER "));
    if (line === undefined) throw new Error(`layer ${layer} failed: ${(child.stderr || child.error?.message || "").trim()}`);
    const f = JSON.parse(line.slice("LAYER ".length)) as LayerFigures;
    if (layer === "pods") pods = f.bytesPerWorker;
    const prober = layer === "pods" ? "" : String(f.bytesPerWorker - pods);
    console.log(LAYER_TEXT[layer].padEnd(72), String(f.bytesPerWorker).padStart(9), prober.padStart(16), String(f.rssMb).padStart(8), String(f.heapTotalMb).padStart(8));
  }
}

main().catch((err: unknown) => {
  if (err instanceof FlagError) {
    console.error(`${err.message}\n${flagUsage(FLAGS)}`);
    process.exit(2);
  }
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
