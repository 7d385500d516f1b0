// E2eEnv: one node e2e case's world. It starts an Agent on a fresh runtime from a
// RuntimeFactory in a fresh temp dir (resync every 1 s, the kubelet's relist period), admits the
// pods a case builds, records every pod update and event as the API server's watchers would see
// them, polls pod status, and cleans up after the case: pods deleted (grace 0, as upstream's
// DeferCleanup), agent and runtime closed, temp dir removed, no sandbox of the case's pods and
// no container process left; assertNoDescendantsAfterAll adds the process check for the whole
// test file.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import assert from "node:assert/strict";
import { after, type TestContext } from "node:test";
import { Agent } from "../../src/agent/agent.js";
import type { KubeEvent } from "../../src/apiserver/endpoints/host-interface.js";
import type { BackoffOptions } from "../../src/kuberuntime/crash-loop-backoff.js";
import type { ContainerLogPolicy } from "../../src/kuberuntime/container-log-manager.js";
import type { ContainerStatus, Pod } from "../../src/api/types.js";
import type { Runtime } from "../../src/runtime/runtime.js";
import type { ConfigObjects } from "../../src/volumes/config-objects.js";
import { createLogger } from "../../src/util/logger.js";
import { createPodKit, type PodKit } from "./pod-kit.js";
import { descendants, freePort, isProcessGroupAlive, sleep } from "./host.js";
import type { RuntimeFactory } from "./runtime-factory.js";
import { createdPodUids, describeLeftovers, sweepSandboxes, type LeftoverSandbox } from "./sandbox-cleanup.js";
import { startLocalApiServer } from "../../src/apiserver/local-api-server.js";

/** NAMESPACE is where every case's pods live (upstream: the framework's "container-probe-…"). */
export const NAMESPACE = "container-probe";

/**
 * UPSTREAM_PORTS are the fixed ports the upstream cases use; each env maps them to free host
 * ports (process pods and hostNetwork CRI pods both share the host's ports).
 */
export const UPSTREAM_PORTS = [80, 81, 2333, 5000, 8080] as const;

/** Seen is one watch notification with the wall-clock time (ms) the test observed it. */
export interface Seen<T> {
  at: number;
  type: string;
  object: T;
}

/** E2eOptions tune the agent of one case. */
export interface E2eOptions {
  /** Scaled CrashLoopBackOff (only case 165/188). */
  backoff?: BackoffOptions;
  /** The ConfigMaps and Secrets the agent reads (config-volumes cases). */
  configObjects?: ConfigObjects;
  /** Container log rotation (the log cases rotate small logs often). */
  containerLogs?: ContainerLogPolicy;
}

/** E2eEnv is an agent, its runtime and its temp dir for one case. */
export class E2eEnv {
  /** Every pod notification, in order. */
  readonly podLog: Seen<Pod>[] = [];
  /** Every event notification (ADDED and MODIFIED on aggregation), in order. */
  readonly eventLog: Seen<KubeEvent>[] = [];
  /** Process groups of every container started (process runtime only). */
  private readonly groups = new Set<number>();
  /** UIDs of the pods this case admitted: their sandboxes must be gone after close. */
  private readonly podUids = new Set<string>();
  private closed = false;

  private constructor(
    readonly factory: RuntimeFactory,
    readonly runtime: Runtime,
    readonly agent: Agent,
    /** The case's temp dir: agent state and the pods' scratch files. */
    readonly dir: string,
    readonly kit: PodKit,
    /** The agent's warnings and errors, for failure messages. */
    readonly agentLog: string[],
  ) {}

  /** E2eEnv.start builds the env and registers its cleanup on the test context. */
  static async start(t: TestContext, factory: RuntimeFactory, options: E2eOptions = {}): Promise<E2eEnv> {
    const dir = await mkdtemp(join(tmpdir(), "probelet-e2e-"));
    const workDir = join(dir, "work");
    await mkdir(workDir);
    const ports = new Map<number, number>();
    for (const upstream of UPSTREAM_PORTS) ports.set(upstream, await freePort());
    const kit = createPodKit(factory.name, workDir, ports);
    const agentLog: string[] = [];
    const runtime = await factory.create().catch(async (err: unknown) => {
      await rm(dir, { recursive: true, force: true });
      throw err;
    });
    const agent = new Agent({
      api: startLocalApiServer(),
      runtime: trackStarts(runtime, (pid) => env.groups.add(pid)),
      stateDir: join(dir, "state"),
      resyncIntervalMs: 1000,
      logger: createLogger({ level: "warn", trace: [], write: (line) => agentLog.push(line.trimEnd()) }),
      ...(options.backoff ? { backoff: options.backoff } : {}),
      ...(options.configObjects ? { configObjects: options.configObjects } : {}),
      ...(options.containerLogs ? { containerLogs: options.containerLogs } : {}),
    });
    const env: E2eEnv = new E2eEnv(factory, runtime, agent, dir, kit, agentLog);
    agent.watchPods((e) => env.podLog.push({ at: Date.now(), type: e.type, object: structuredClone(e.object) }));
    agent.watchEvents((e) => env.eventLog.push({ at: Date.now(), type: e.type, object: structuredClone(e.object) }));
    agent.start();
    t.after(async () => {
      const started = Date.now();
      await env.close();
      if (Date.now() - started > 3000) t.diagnostic(`cleanup (delete with grace 0, close) took ${Date.now() - started} ms`);
    });
    return env;
  }

  /** create admits a pod as the API would (source "api"); throws with the validation errors. */
  create(pod: Pod): Pod {
    const admitted = this.agent.admit(structuredClone(pod), "api");
    if (!admitted.ok) throw new Error(`pod ${admitted.name} rejected: ${admitted.errors.join("; ")}`);
    const uid = admitted.pod.metadata.uid ?? "";
    this.podUids.add(uid);
    createdPodUids.add(uid);
    return admitted.pod;
  }

  /** get returns the pod with its status, or undefined once it is gone. */
  get(name: string): Pod | undefined {
    try {
      return this.agent.getPod(NAMESPACE, name);
    } catch {
      return undefined;
    }
  }

  /**
   * waitFor polls the pod every `intervalMs` until `check` returns a value (not undefined), and
   * returns it; fails with the pod's state after `timeoutMs`. `check` sees undefined once the pod is gone.
   */
  async waitFor<T>(name: string, what: string, timeoutMs: number, check: (pod: Pod | undefined) => T | undefined, intervalMs = 250): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (let i = 0; i <= Math.ceil(timeoutMs / intervalMs) + 1; i++) {
      const value = check(this.get(name));
      if (value !== undefined) return value;
      if (Date.now() >= deadline) break;
      await sleep(Math.min(intervalMs, Math.max(1, deadline - Date.now())));
    }
    throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}\n${this.describe(name)}`);
  }

  /** events lists the events of a pod seen so far (each event's latest version). */
  events(name: string): KubeEvent[] {
    const latest = new Map<string, KubeEvent>();
    for (const e of this.eventLog) if (e.object.involvedObject.name === name) latest.set(e.object.metadata.name ?? "", e.object);
    return [...latest.values()];
  }

  /** describe renders a pod's status, events and the agent's warnings for failure messages. */
  describe(name: string): string {
    const pod = this.get(name) ?? this.podLog.filter((p) => p.object.metadata.name === name).at(-1)?.object;
    const events = this.events(name).map((e) => `  ${e.type} ${e.reason} x${e.count} [${e.involvedObject.fieldPath ?? ""}] ${e.message}`);
    return [`pod ${name} status: ${JSON.stringify(pod?.status ?? null)}`, "events:", ...events, "agent warnings:", ...this.agentLog.slice(-20).map((l) => `  ${l}`)].join("\n");
  }

  /**
   * close deletes every pod at once and stops the agent; then removes (and reports) any sandbox of
   * the case's pods still in the runtime, closes the runtime, checks for leftover container
   * processes and removes the temp dir. The sweep runs even when the agent's close fails.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    let leftSandboxes: LeftoverSandbox[] = [];
    try {
      await this.agent.close(0);
    } finally {
      try {
        leftSandboxes = await sweepSandboxes(this.runtime, this.podUids);
      } finally {
        await this.runtime.close();
      }
    }
    const leftover: number[] = [];
    for (const pgid of this.groups) {
      for (let i = 0; i < 20 && isProcessGroupAlive(pgid); i++) await sleep(100);
      if (isProcessGroupAlive(pgid)) leftover.push(pgid);
    }
    await rm(this.dir, { recursive: true, force: true });
    if (leftSandboxes.length > 0) {
      const warnings = this.agentLog.slice(-20).map((l) => `  ${l}`).join("\n");
      throw new Error(`sandboxes still in the runtime after the agent closed (removed now):\n${describeLeftovers(leftSandboxes)}\nagent warnings:\n${warnings}`);
    }
    if (leftover.length > 0) throw new Error(`container process groups still alive after cleanup: ${leftover.join(", ")}`);
  }
}

/** trackStarts reports the process group of every started container, when the runtime can tell (pidOf). */
function trackStarts(runtime: Runtime, onStart: (pgid: number) => void): Runtime {
  const pidOf = (runtime as Partial<{ pidOf(id: string): number | undefined }>).pidOf?.bind(runtime);
  if (!pidOf) return runtime;
  return new Proxy(runtime, {
    get(target, property, receiver) {
      if (property !== "startContainer") return Reflect.get(target, property, receiver) as unknown;
      return async (id: string) => {
        try {
          await target.startContainer(id);
        } finally {
          const pid = pidOf(id);
          if (pid !== undefined) onStart(pid);
        }
      };
    },
  });
}

/** containerStatusOf finds a container's status among init and regular containers (podutil.GetExistingContainerStatus). */
export function containerStatusOf(pod: Pod | undefined, name: string): ContainerStatus | undefined {
  const all = [...(pod?.status?.initContainerStatuses ?? []), ...(pod?.status?.containerStatuses ?? [])];
  return all.find((s) => s.name === name);
}

/** isPodReady is podutil.IsPodReady: the Ready condition is True. */
export function isPodReady(pod: Pod | undefined): boolean {
  return pod?.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
}

/** isPodRunningReady is testutils.PodRunningReady: phase Running and Ready. */
export function isPodRunningReady(pod: Pod | undefined): boolean {
  return pod?.status?.phase === "Running" && isPodReady(pod);
}

/**
 * assertNoDescendantsAfterAll registers an `after` hook (call inside a describe): once every case
 * of the file has cleaned up, the test process must have no child processes left (containers,
 * exec probes, spawner helpers).
 */
export function assertNoDescendantsAfterAll(): void {
  after(async () => {
    let left = descendants();
    for (let i = 0; i < 20 && left.length > 0; i++) {
      await sleep(100);
      left = descendants();
    }
    assert.deepEqual(left, [], `processes left behind by the e2e cases:\n${left.map((p) => `  ${p.pid} ${p.args}`).join("\n")}`);
  });
}
