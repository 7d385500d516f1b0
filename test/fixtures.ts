// Shared builders for prober tests: the analogue of the kubelet's prober common_test.go.
import type { Container, ContainerStatus, Pod, PodStatus, Probe } from "../src/api/types.js";
import type { CommandResult, CommandRunner } from "../src/probe/command-runner.js";
import type { ProbeOutcome } from "../src/probe/probe-result.js";
import { MemoryEventRecorder } from "../src/prober/event-recorder.js";
import { ProbeManager, type ProbeManagerOptions } from "../src/prober/manager.js";
import { Prober, type ProbeHandlers } from "../src/prober/prober.js";
import type { ProbeType } from "../src/prober/probe-type.js";
import type { WorkerSeries } from "../src/prober/metrics.js";
import { ResultsManager } from "../src/prober/results/results-manager.js";
import { Worker, type PodStatusProvider, type WorkerContext } from "../src/prober/worker.js";
import { DEFAULT_WORKER_FEATURES } from "../src/prober/worker-policy.js";
import { silentLogger } from "../src/util/logger.js";
import { FakeClock } from "./fakes/fake-clock.js";

/** Fixture names from kubelet common_test.go. */
export const testContainerName = "cOnTaInEr_NaMe";
export const testPodUID = "pOd_UiD";
export const testContainerID = "test://cOnTaInEr_Id";

/** defaultTestProbe is exec with timeout 1, period 1, success 1, failure 1. */
export function defaultTestProbe(overrides: Partial<Probe> = {}): Probe {
  return {
    exec: { command: ["/bin/true"] },
    timeoutSeconds: 1,
    periodSeconds: 1,
    successThreshold: 1,
    failureThreshold: 1,
    initialDelaySeconds: 0,
    ...overrides,
  };
}

/** getTestPod returns a pod with one container and restartPolicy Never. */
export function getTestPod(container: Partial<Container> = {}): Pod {
  return {
    metadata: { name: "test_pod", namespace: "test_ns", uid: testPodUID },
    spec: { restartPolicy: "Never", containers: [{ name: testContainerName, ...container }] },
  };
}

/** testPodWithProbe returns the test pod with one probe of the given type set. */
export function testPodWithProbe(probeType: ProbeType, probe: Probe = defaultTestProbe()): Pod {
  const field = probeType === "liveness" ? "livenessProbe" : probeType === "readiness" ? "readinessProbe" : "startupProbe";
  return getTestPod({ [field]: probe });
}

/** FIXTURE_NOW is where every FakeClock of these fixtures starts. */
export const FIXTURE_NOW = Date.UTC(2026, 0, 1);

/** runningStatus returns a status with the test container running since `startedAt` (default FIXTURE_NOW). */
export function runningStatus(options: { started?: boolean; startedAt?: number; containerId?: string } = {}): PodStatus {
  const container: ContainerStatus = {
    name: testContainerName,
    containerID: options.containerId ?? testContainerID,
    state: { running: { startedAt: new Date(options.startedAt ?? FIXTURE_NOW).toISOString() } },
    ready: false,
    restartCount: 0,
  };
  if (options.started !== undefined) container.started = options.started;
  return { phase: "Running", podIP: "127.0.0.1", containerStatuses: [container] };
}

/** runningStatusFor marks the status started for liveness/readiness, not for startup (TestDoProbe). */
export function runningStatusFor(probeType: ProbeType, startedAt = FIXTURE_NOW): PodStatus {
  return runningStatus({ started: probeType !== "startup", startedAt });
}

/** FakeStatusProvider is an in-memory PodStatusProvider. */
export class FakeStatusProvider implements PodStatusProvider {
  readonly statuses = new Map<string, PodStatus>();
  getPodStatus(podUid: string): PodStatus | undefined {
    return this.statuses.get(podUid);
  }
  set(podUid: string, status: PodStatus): void {
    this.statuses.set(podUid, status);
  }
}

/** FakeExec is a swappable exec handler: set `outcome`, `panic` or a custom `impl`; calls are recorded. */
export class FakeExec {
  outcome: ProbeOutcome = { result: "success", output: "" };
  panic = false;
  impl: ProbeHandlers["exec"] | undefined;
  calls: { containerId: string; argv: readonly string[] }[] = [];
  readonly handler: ProbeHandlers["exec"] = async (runner, containerId, argv, options) => {
    this.calls.push({ containerId, argv });
    if (this.panic) throw new Error("fake exec panicked");
    if (this.impl) return this.impl(runner, containerId, argv, options);
    return this.outcome;
  };
}

/** noopRunner is a CommandRunner that must never be called. */
export const noopRunner: CommandRunner = {
  runInContainer: async (): Promise<CommandResult> => {
    throw new Error("runner should not be called");
  },
};

/** TestEnv bundles the fakes a worker or manager test needs. */
export interface TestEnv {
  clock: FakeClock;
  status: FakeStatusProvider;
  exec: FakeExec;
  recorder: MemoryEventRecorder;
  prober: Prober;
}

/** newTestEnv builds fresh fakes; the clock starts well after the epoch. */
export function newTestEnv(handlers: Partial<ProbeHandlers> = {}): TestEnv {
  const clock = new FakeClock(FIXTURE_NOW);
  const exec = new FakeExec();
  const recorder = new MemoryEventRecorder();
  const prober = new Prober({ runner: noopRunner, recorder, handlers: { exec: exec.handler, ...handlers } });
  return { clock, status: new FakeStatusProvider(), exec, recorder, prober };
}

/** newTestWorker builds a worker outside any manager, for doProbe-level tests. */
export function newTestWorker(
  env: TestEnv,
  probeType: ProbeType,
  pod: Pod,
  results = new ResultsManager(),
  overrides: Partial<WorkerContext> = {},
  series?: WorkerSeries,
): { worker: Worker; results: ResultsManager } {
  const ctx: WorkerContext = {
    clock: env.clock,
    prober: env.prober,
    statusProvider: env.status,
    results,
    logger: silentLogger,
    managerStart: env.clock.now() - 3_600_000,
    random: () => 0,
    features: DEFAULT_WORKER_FEATURES,
    onExit: () => undefined,
    ...overrides,
  };
  const all = [...(pod.spec.initContainers ?? []), ...pod.spec.containers];
  const container = all.find((c) => c.name === testContainerName) ?? pod.spec.containers[0]!;
  return { worker: new Worker(ctx, probeType, pod, container, series), results };
}

/** newTestManager builds a ProbeManager over the env's fakes. */
export function newTestManager(env: TestEnv, options: Partial<ProbeManagerOptions> = {}): ProbeManager {
  return new ProbeManager({ statusProvider: env.status, prober: env.prober, clock: env.clock, random: () => 0, ...options });
}

/** waitFor polls a condition with real time, bounded; throws with `what` on timeout. */
export async function waitFor(what: string, condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}
