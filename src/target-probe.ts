// The `probelet/probe` entry: probe a target with a core/v1 Probe spec, with the kubelet's
// semantics, without knowing the kubelet's internals. `waitUntilReady` runs the kubelet's own
// worker (initial delay, period, timeout, thresholds; no start jitter) against a synthetic
// running container at the target's address and settles once the result is Success (or, for a
// startup probe, once it failed failureThreshold times); `probeOnce` runs one probe through the
// kubelet's prober. The spec is defaulted and validated as the API server does it. Nothing of the
// agent, the runtimes or the API server is loaded (nor gRPC, until a grpc probe runs).
import { defaultProbe } from "./api/defaults.js";
import { formatFieldErrors } from "./api/field-errors.js";
import type { Probe } from "./api/types.js";
import { validateProbe } from "./api/validation.js";
import type { CommandRunner } from "./probe/command-runner.js";
import { HostCommandRunner } from "./probe/host-runner.js";
import type { ProbeResult } from "./probe/probe-result.js";
import { noopEventRecorder } from "./prober/event-recorder.js";
import { ProbeManager } from "./prober/manager.js";
import { Prober } from "./prober/prober.js";
import type { ProbeRecord } from "./prober/worker.js";
import { syntheticPod, SyntheticPodStatus } from "./prober/synthetic-container.js";
import { systemClock } from "./util/clock.js";

export type { Probe, ExecAction, HTTPGetAction, HTTPHeader, TCPSocketAction, GRPCAction, IntOrString } from "./api/types.js";

/** ProbeTargetOptions say where the probe goes and how the caller follows it. */
export interface ProbeTargetOptions {
  /**
   * The address a handler dials when its spec names no `host`: the pod IP to the kubelet
   * (default 127.0.0.1). An exec probe runs on this machine (or through `runner`).
   */
  host?: string;
  /** Ends the wait (or the probe) at once; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Runs exec probes (default: on this machine, each in its own process group, killed on timeout). */
  runner?: CommandRunner;
}

/** WaitOptions add the probe type and a callback per probe to ProbeTargetOptions. */
export interface WaitOptions extends ProbeTargetOptions {
  /**
   * readiness (default): wait until successThreshold probes in a row succeed, however many fail;
   * startup: the same, but give up (ProbeFailedError) after failureThreshold failures in a row,
   * as the kubelet then restarts the container.
   */
  type?: "readiness" | "startup";
  /** Called after every probe the worker counted (a probe that could not run is not counted). */
  onProbe?: (attempt: ProbeAttempt) => void;
}

/** ProbeAttempt is one finished probe. */
export interface ProbeAttempt {
  /** When it finished. */
  time: Date;
  /** The handler's verdict; "unknown" only from probeOnce, when the probe could not run. */
  result: ProbeResult;
  /** What the kubelet would show: the handler's output or failure text (at most 10 KiB). */
  output: string;
  durationMs: number;
  /** How many probes in a row had this result, counting this one (waitUntilReady only). */
  run?: number;
  /** The threshold `run` must reach to change the cached result (waitUntilReady only). */
  threshold?: number;
}

/** ReadyResult is how a successful wait went. */
export interface ReadyResult {
  /** How many probes were counted, the last included. */
  probes: number;
  /** The probe that made the target ready. */
  last: ProbeAttempt;
  elapsedMs: number;
}

/** ProbeSpecError is a Probe the API server would refuse; `errors` are its field errors (`periodSeconds: Invalid value: …`). */
export class ProbeSpecError extends Error {
  override readonly name = "ProbeSpecError";
  constructor(readonly errors: readonly string[]) {
    super(`probe is invalid: ${errors.join("; ")}`);
  }
}

/** ProbeFailedError is a startup probe that failed failureThreshold times in a row. */
export class ProbeFailedError extends Error {
  override readonly name = "ProbeFailedError";
  constructor(
    readonly last: ProbeAttempt,
    readonly probes: number,
  ) {
    super(`startup probe failed ${last.run ?? probes} times in a row: ${last.output.trimEnd()}`);
  }
}

/** checkedProbe defaults and validates a Probe as the API server does, or throws ProbeSpecError. */
function checkedProbe(probe: Probe, type: "liveness" | "readiness" | "startup"): Probe {
  const defaulted = defaultProbe(probe);
  const errors = validateProbe(defaulted, "", type);
  if (errors.length > 0) throw new ProbeSpecError(formatFieldErrors(errors));
  return defaulted;
}

/** RunnerLease is the exec runner to use and how to let it go. */
function leaseRunner(probe: Probe, given: CommandRunner | undefined): { runner: CommandRunner; release: () => Promise<void> } {
  if (given !== undefined) return { runner: given, release: async () => undefined };
  if (probe.exec === undefined) return { runner: { runInContainer: () => Promise.reject(new Error("this probe has no exec handler")) }, release: async () => undefined };
  const host = new HostCommandRunner();
  return { runner: host, release: () => host.close() };
}

/**
 * holdProcess keeps the process alive until `until` aborts: the worker's waits between probes do
 * not (workers never hold a process), but a program awaiting waitUntilReady must not end there.
 */
async function holdProcess(until: AbortSignal): Promise<void> {
  while (!until.aborted) await systemClock.sleep(3_600_000, until);
}

/** attemptOf turns a worker's record into a ProbeAttempt. */
function attemptOf(record: ProbeRecord): ProbeAttempt {
  return { time: new Date(record.time), result: record.outcome?.result ?? "unknown", output: record.outcome?.output ?? "", durationMs: record.durationMs, run: record.resultRun, threshold: record.threshold };
}

/**
 * waitUntilReady probes the target on the probe's schedule, as the kubelet's worker does, until
 * its result is Success; see WaitOptions.type. Rejects with ProbeSpecError for an invalid spec,
 * ProbeFailedError for a startup probe that failed for good, or the signal's reason.
 */
export async function waitUntilReady(probe: Probe, options: WaitOptions = {}): Promise<ReadyResult> {
  const type = options.type ?? "readiness";
  const spec = checkedProbe(probe, type);
  options.signal?.throwIfAborted();
  const { runner, release } = leaseRunner(spec, options.runner);
  const status = new SyntheticPodStatus(options.host ?? "127.0.0.1", type, systemClock);
  const started = performance.now();
  const held = new AbortController();
  const holding = holdProcess(held.signal);
  let probes = 0;
  let last: ProbeAttempt | undefined;
  const manager = new ProbeManager({
    statusProvider: status,
    runner,
    random: () => 0, // the first probe right after initialDelaySeconds
    onProbe: (_worker, record) => {
      probes++;
      last = attemptOf(record);
      options.onProbe?.(last);
    },
  });
  try {
    return await new Promise<ReadyResult>((resolve, reject) => {
      const onAbort = (): void => reject(options.signal?.reason);
      options.signal?.addEventListener("abort", onAbort, { once: true });
      const unsubscribe = manager.resultsFor(type).subscribe((update) => {
        if (last === undefined) return;
        if (update.result === "Success") resolve({ probes, last, elapsedMs: performance.now() - started });
        else if (update.result === "Failure" && type === "startup") reject(new ProbeFailedError(last, probes));
        else return;
        unsubscribe();
        options.signal?.removeEventListener("abort", onAbort);
      });
      manager.addPod(syntheticPod(type, spec));
    });
  } finally {
    held.abort();
    await holding;
    await manager.close();
    await release();
  }
}

/**
 * probeOnce runs the probe one time through the kubelet's prober (a probe that could not run is
 * tried again, up to 3 times, as the kubelet does) and returns its verdict; "unknown" with the
 * reason as output when it could not run. Rejects with ProbeSpecError for an invalid spec.
 */
export async function probeOnce(probe: Probe, options: ProbeTargetOptions & { type?: "liveness" | "readiness" | "startup" } = {}): Promise<ProbeAttempt> {
  const type = options.type ?? "readiness";
  const spec = checkedProbe(probe, type);
  options.signal?.throwIfAborted();
  const { runner, release } = leaseRunner(spec, options.runner);
  try {
    const status = new SyntheticPodStatus(options.host ?? "127.0.0.1", type, systemClock);
    const pod = syntheticPod(type, spec);
    const started = performance.now();
    const probed = await new Prober({ runner, recorder: noopEventRecorder }).probe(type, pod, status.current, pod.spec.containers[0]!, status.containerId, options.signal);
    const durationMs = performance.now() - started;
    if (probed.error !== undefined) return { time: new Date(), result: "unknown", output: probed.error.message, durationMs };
    return { time: new Date(), result: probed.outcome?.result ?? "unknown", output: probed.outcome?.output ?? "", durationMs };
  } finally {
    await release();
  }
}
