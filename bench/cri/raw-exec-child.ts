// The "raw CRI" arm of the exec-cost benchmark, run as a child of run.ts: one loop per
// container, each firing ExecSync every period from a random phase (as probe workers spread
// out), with the probe's timeout (whole seconds) and a deadline 2 s longer, like an exec
// probe. A tick that falls while the previous call is still running is dropped (a Go ticker
// keeps at most one). Only @grpc/grpc-js and the bench's own helpers; no probelet code.
import { performance } from "node:perf_hooks";
import { newCounts, serveChild, type WindowCounts } from "./child-protocol.js";
import { RawCri } from "./raw-cri.js";

/** RawExecConfig is the child's argv[2], as JSON. */
export interface RawExecConfig {
  socket: string;
  containerIds: string[];
  periodMs: number;
  timeoutSeconds: number;
  command: string[];
  /** Seconds of load before "ready" (the loops spread over the first period). */
  warmupSeconds: number;
}

const config = JSON.parse(process.argv[2] ?? "{}") as RawExecConfig;
const cri = new RawCri(config.socket);
let counts: WindowCounts = newCounts();
const timers: NodeJS.Timeout[] = [];
const inFlight = new Set<Promise<void>>();
let stopped = false;

function execOnce(containerId: string): Promise<void> {
  const started = performance.now();
  const request = { container_id: containerId, cmd: config.command, timeout: String(config.timeoutSeconds) };
  return cri.call("ExecSync", request, config.timeoutSeconds * 1000 + 2000).then(
    (res) => {
      counts.ops++;
      counts.latenciesMs.push(performance.now() - started);
      if (res["exit_code"] !== 0) counts.failures++;
    },
    () => {
      counts.ops++;
      counts.failures++;
    },
  );
}

function startLoop(containerId: string): void {
  let busy = false;
  const tick = (): void => {
    if (busy || stopped) return;
    busy = true;
    const call = execOnce(containerId).finally(() => {
      busy = false;
      inFlight.delete(call);
    });
    inFlight.add(call);
  };
  timers.push(
    setTimeout(() => {
      if (stopped) return;
      tick();
      timers.push(setInterval(tick, config.periodMs));
    }, Math.random() * config.periodMs),
  );
}

serveChild({
  async setup() {
    for (const id of config.containerIds) startLoop(id);
    await new Promise((resolve) => setTimeout(resolve, config.warmupSeconds * 1000));
    return { loops: config.containerIds.length };
  },
  counts: () => counts,
  resetCounts() {
    counts = newCounts();
  },
  async teardown() {
    stopped = true;
    for (const timer of timers) clearTimeout(timer);
    await Promise.allSettled([...inFlight]);
    cri.close();
  },
});
