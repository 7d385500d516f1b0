// The probelet arms of the exec-cost benchmark, run as a child of run.ts. Exec probes take
// the real path: ProbeManager workers → Prober → probeExec → CriRuntime.runInContainer →
// ExecSync. Two modes:
//   manager  a ProbeManager alone, probing the containers the runner made with raw CRI calls;
//            the status provider reports them running and started (the probe path only);
//   agent    a whole Agent on a CriRuntime: it admits the pods, creates their sandboxes and
//            containers, relists the runtime every second (the kubelet's PLEG period), syncs
//            pods whose containers changed plus every pod once a minute, and probes them; the
//            window starts once every pod is Ready (everything the agent costs).
//            resyncIntervalMs changes the relist period (the agent-resync10s arm).
import { Client } from "@grpc/grpc-js";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod, PodStatus } from "../../src/api/types.js";
import { defaultAndValidatePod } from "../../src/api/validation.js";
import { Agent } from "../../src/agent/agent.js";
import { ProbeManager } from "../../src/prober/manager.js";
import { ProberMetrics } from "../../src/prober/metrics.js";
import { CriRuntime } from "../../src/runtime/cri/cri-runtime.js";
import type { Runtime } from "../../src/runtime/runtime.js";
import { benchPod, CONTAINER_NAME, countingRuntime, isPodReady } from "./bench-pods.js";
import { newCounts, serveChild, type WindowCounts } from "./child-protocol.js";
import { startLocalApiServer } from "../../src/apiserver/local-api-server.js";

/** ProbeletExecConfig is the child's argv[2], as JSON. */
export interface ProbeletExecConfig {
  mode: "manager" | "agent";
  socket: string;
  cgroupPrefix: string;
  /** manager mode: the containers to probe (CRI IDs, without "containerd://"). */
  containerIds: string[];
  /** agent mode: how many pods to admit. */
  pods: number;
  /** agent mode: the Agent's resyncIntervalMs (1000 is its default, the kubelet's relist period). */
  resyncIntervalMs: number;
  namespace: string;
  command: string[];
  periodSeconds: number;
  timeoutSeconds: number;
  warmupSeconds: number;
  /** agent mode: how long every pod may take to become Ready. */
  readyTimeoutSeconds: number;
}

const config = JSON.parse(process.argv[2] ?? "{}") as ProbeletExecConfig;
let counts: WindowCounts = newCounts();

// Count the CRI RPCs themselves ("rpc:<Method>"), beside the Runtime calls: one Runtime call
// may make several (listContainers = ListContainers + one ContainerStatus per container).
// CriClient makes every call through Client#makeUnaryRequest of this same grpc-js instance.
const makeUnaryRequest = Client.prototype.makeUnaryRequest;
Client.prototype.makeUnaryRequest = function (this: Client, ...args: unknown[]) {
  const key = `rpc:${String(args[0]).replace(/^.*\//, "")}`;
  counts.calls[key] = (counts.calls[key] ?? 0) + 1;
  return (makeUnaryRequest as (...a: unknown[]) => ReturnType<typeof makeUnaryRequest>).apply(this, args);
} as typeof makeUnaryRequest;
const cri = new CriRuntime({ socket: config.socket, cgroupPrefix: config.cgroupPrefix });
const runtime: Runtime = countingRuntime(cri, () => counts);
let manager: ProbeManager | undefined;
let agent: Agent | undefined;
let stateDir: string | undefined;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function podFor(index: number): Pod {
  return benchPod({
    name: `exec-${index}`,
    namespace: config.namespace,
    probeCommand: config.command,
    periodSeconds: config.periodSeconds,
    timeoutSeconds: config.timeoutSeconds,
  });
}

/** setupManager: a ProbeManager over the runner's containers, as the agent builds its own. */
function setupManager(): void {
  const statuses = new Map<string, PodStatus>();
  const startedAt = new Date().toISOString();
  manager = new ProbeManager({
    statusProvider: { getPodStatus: (uid) => statuses.get(uid) },
    // The agent's runner: container IDs arrive as "containerd://<id>" (agent.ts fullIdRunner).
    runner: { runInContainer: (id, argv, options) => runtime.runInContainer(id.replace(/^containerd:\/\//, ""), argv, options) },
    metrics: new ProberMetrics(),
  });
  config.containerIds.forEach((containerId, index) => {
    const checked = defaultAndValidatePod(podFor(index));
    if (!checked.ok) throw new Error(`bench pod does not validate: ${JSON.stringify(checked.errors)}`);
    const pod = checked.pod;
    pod.metadata.uid = `bench-exec-${index}`;
    statuses.set(pod.metadata.uid, {
      phase: "Running",
      podIP: "127.0.0.1",
      containerStatuses: [
        { name: CONTAINER_NAME, containerID: `containerd://${containerId}`, state: { running: { startedAt } }, ready: false, restartCount: 0, started: true },
      ],
    });
    manager!.addPod(pod);
  });
}

/** setupAgent: an Agent that admits the pods and runs them; resolves once all are Ready. */
async function setupAgent(): Promise<number> {
  stateDir = await mkdtemp(join(tmpdir(), "probelet-bench-cri-"));
  agent = new Agent({ api: startLocalApiServer(), runtime, stateDir, nodeName: "bench", resyncIntervalMs: config.resyncIntervalMs });
  agent.start();
  const t0 = performance.now();
  for (let i = 0; i < config.pods; i++) {
    const result = agent.admit(podFor(i), "bench");
    if (!result.ok) throw new Error(`admit failed: ${result.errors.join("; ")}`);
  }
  const deadline = t0 + config.readyTimeoutSeconds * 1000;
  for (;;) {
    const pods = agent.listPods(config.namespace);
    if (pods.length === config.pods && pods.every(isPodReady)) return performance.now() - t0;
    if (performance.now() > deadline) {
      const notReady = pods.filter((p) => !isPodReady(p)).map((p) => p.metadata.name);
      throw new Error(`pods not Ready after ${config.readyTimeoutSeconds} s: ${notReady.join(", ")}`);
    }
    await sleep(100);
  }
}

serveChild({
  async setup() {
    let readyMs = 0;
    if (config.mode === "manager") setupManager();
    else readyMs = await setupAgent();
    await sleep(config.warmupSeconds * 1000);
    return { mode: config.mode, probes: config.mode === "manager" ? config.containerIds.length : config.pods, allReadyMs: Math.round(readyMs) };
  },
  counts: () => counts,
  resetCounts() {
    counts = newCounts();
  },
  async teardown() {
    try {
      await manager?.close();
      // close() deletes every pod gracefully: containers stop, sandboxes and pod cgroups go.
      await agent?.close(5);
    } finally {
      await cri.close();
      if (stateDir) await rm(stateDir, { recursive: true, force: true });
    }
  },
});
