// The IPC protocol between the exec-cost runner and its load children (one fresh Node process
// per arm and round, so process.cpuUsage() covers that arm alone). The parent owns the clock
// of the measured window: it sends "begin" and "end" and samples containerd's /proc counters
// at the same moments; the child snapshots its own CPU and its probe counts at both messages.
// No probelet code here: the raw baseline child uses this file too.
import { performance } from "node:perf_hooks";
import { percentile, sortedCopy } from "../lib/stats.js";

/** ParentMessage is what the runner sends a child. */
export type ParentMessage = { type: "begin" } | { type: "end" } | { type: "stop" };

/** WindowStats is one child's account of the measured window. */
export interface WindowStats {
  wallMs: number;
  cpuUserMs: number;
  cpuSystemMs: number;
  /** Event-loop utilization over the window (0..1). */
  elu: number;
  /** ExecSync calls (raw) or exec probes (probelet) that finished inside the window. */
  ops: number;
  /** Of those, the ones that did not succeed (error, non-zero exit, failure result). */
  failures: number;
  latencyMs: { p50: number; p95: number; p99: number; max: number };
  /** Runtime calls by method made inside the window (probelet arms; empty for raw). */
  calls: Record<string, number>;
  /** Peak RSS of the child at the end of the window (MiB). */
  rssMb: number;
}

/** ChildMessage is what a child sends back. */
export type ChildMessage =
  | { type: "ready"; detail: Record<string, number | string> }
  | { type: "window"; stats: WindowStats }
  | { type: "stopped" }
  | { type: "error"; message: string };

/** WindowCounts are the raw counters a child keeps; the protocol resets them at "begin". */
export interface WindowCounts {
  ops: number;
  failures: number;
  latenciesMs: number[];
  calls: Record<string, number>;
}

/** newCounts returns zeroed counters. */
export function newCounts(): WindowCounts {
  return { ops: 0, failures: 0, latenciesMs: [], calls: {} };
}

/** ChildHooks are what a load child plugs into serveChild. */
export interface ChildHooks {
  /** Builds the load and starts it; resolves once it is warm. Returns details for the log. */
  setup(): Promise<Record<string, number | string>>;
  /** The live counters (replaced by fresh ones at "begin"). */
  counts(): WindowCounts;
  resetCounts(): void;
  /** Stops the load and releases everything the child made. */
  teardown(): Promise<void>;
}

function send(message: ChildMessage, then?: () => void): void {
  process.send?.(message, undefined, undefined, () => then?.());
}

/**
 * serveChild runs a load child: setup, "ready", then answers begin/end/stop from the parent.
 * Any failure is reported as an "error" message and the child exits non-zero after teardown.
 */
export function serveChild(hooks: ChildHooks): void {
  if (!process.send) throw new Error("this program is a child of bench/cri/run.js (it needs an IPC channel)");
  let cpu0 = process.cpuUsage();
  let t0 = performance.now();
  let elu0 = performance.eventLoopUtilization();
  let stopping = false;
  const fail = async (err: unknown): Promise<void> => {
    send({ type: "error", message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    await hooks.teardown().catch(() => undefined);
    process.exit(1);
  };
  process.on("message", (message: ParentMessage) => {
    if (message.type === "begin") {
      hooks.resetCounts();
      cpu0 = process.cpuUsage();
      elu0 = performance.eventLoopUtilization();
      t0 = performance.now();
    } else if (message.type === "end") {
      const cpu = process.cpuUsage(cpu0);
      const wallMs = performance.now() - t0;
      const elu = performance.eventLoopUtilization(elu0).utilization;
      const c = hooks.counts();
      const sorted = sortedCopy(c.latenciesMs);
      send({
        type: "window",
        stats: {
          wallMs,
          cpuUserMs: cpu.user / 1000,
          cpuSystemMs: cpu.system / 1000,
          elu,
          ops: c.ops,
          failures: c.failures,
          latencyMs: { p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), p99: percentile(sorted, 0.99), max: percentile(sorted, 1) },
          calls: { ...c.calls },
          rssMb: process.memoryUsage().rss / 2 ** 20,
        },
      });
    } else if (message.type === "stop" && !stopping) {
      stopping = true;
      hooks.teardown().then(
        // Exit once the message is out: nothing the load left behind may keep the child alive.
        () => send({ type: "stopped" }, () => process.exit(0)),
        (err: unknown) => void fail(err),
      );
    }
  });
  // The parent going away (crash, Ctrl-C) must not leave a child probing containerd forever.
  process.on("disconnect", () => {
    if (!stopping) void hooks.teardown().finally(() => process.exit(1));
  });
  hooks.setup().then(
    (detail) => send({ type: "ready", detail }),
    (err: unknown) => void fail(err),
  );
}
