// Nodes side by side on one test control plane, each on a containerd of its own with a pod
// network: the real kubelet (scripts/kubelet-anchor.sh) and a probelet agent in cluster mode on
// the CRI runtime. The differential suite (test/differential) and the node overhead benchmark
// (bench/node) run their pods on them. Each can be killed with SIGKILL and started again on the
// same state, and stopped for good.
import { existsSync } from "node:fs";
import { setTimeout as delay } from "node:timers/promises";
import { runContainerdScript } from "../cri/containerd-script.js";
import { readControlPlaneEnv, type ControlPlaneEnv } from "./control-plane-env.js";
import { runControlPlaneScript } from "./control-plane-script.js";
import { kubeletPid, startAnchor, stopAnchor, type KubeletAnchorEnv, type KubeletAnchorOptions } from "./kubelet-anchor.js";
import { admin, adminJson, NodeAgent, waitFor } from "./node-agent.js";

/** PairedNode is one node of a side-by-side run. */
export interface PairedNode {
  /** "kubelet", "probelet", or "kubelet-b" in the differential self-check. */
  readonly label: string;
  readonly nodeName: string;
  /** The agent's log, for the report. */
  readonly logPath: string;
  /** The agent's PID now (it changes after restart). */
  pid(): number | undefined;
  /** The cgroup the kubelet process runs in (scripts/kubelet-anchor.sh makes it), for its accounting. */
  readonly agentCgroup?: string;
  /** kill9 sends SIGKILL to the agent and waits for it to be gone; its containers keep running. */
  kill9(): Promise<void>;
  /** restart starts the agent again on the same state. */
  restart(): Promise<void>;
  /** stop ends the agent and its containerd, and removes the Node. */
  stop(): Promise<void>;
}

/** waitGone waits (10 s at most) for a process to disappear. */
async function waitGone(pid: number): Promise<void> {
  for (let i = 0; i < 100 && existsSync(`/proc/${pid}`); i++) await delay(100);
}

/** startKubeletNode starts a kubelet anchor on the control plane of `cpDir`. */
export async function startKubeletNode(label: string, cp: ControlPlaneEnv, options: KubeletAnchorOptions): Promise<PairedNode> {
  const env: KubeletAnchorEnv = await startAnchor(options);
  return {
    label,
    nodeName: options.node,
    logPath: env.log,
    agentCgroup: env.agentCgroup,
    pid: () => (existsSync(env.pidFile) ? kubeletPid(env) : undefined),
    async kill9() {
      const pid = kubeletPid(env);
      process.kill(pid, "SIGKILL");
      await waitGone(pid);
    },
    async restart() {
      await startAnchor(options);
    },
    async stop() {
      await stopAnchor(options);
      await admin(cp, ["delete", "node", options.node, "--ignore-not-found"]).catch(() => "");
    },
  };
}

/** ProbeletNodeOptions place a probelet node's containerd and name it. */
export interface ProbeletNodeOptions {
  /** Its containerd's run directory (scripts/containerd.sh PROBELET_CRI_DIR). */
  criDir: string;
  /** A node name the control plane has a kubeconfig for. */
  node: string;
  subnet: string;
  /** Arguments for node itself before the agent's script (e.g. --cpu-prof). */
  nodeArgs?: readonly string[];
  /** Called with the agent's PID each time it starts (e.g. to move it into an accounting cgroup). */
  onStart?: (pid: number) => void;
}

/** startProbeletNode starts a containerd and `probelet run --kubeconfig --runtime cri` on it, and waits for the Node to be Ready. */
export async function startProbeletNode(label: string, cp: ControlPlaneEnv, options: ProbeletNodeOptions): Promise<PairedNode> {
  const cri = runContainerdScript("start", options.criDir, 180_000, { PROBELET_CRI_CNI: "1", PROBELET_CRI_SUBNET: options.subnet, PROBELET_CRI_NODE_IMAGE: "1" });
  const socket = cri["PROBELET_CRI_SOCKET"]!;
  const agent = await NodeAgent.create(cp, options.node, ["--runtime", "cri", "--cri-socket", socket], { PROBELET_CRI_CGROUP_PARENT: cri["PROBELET_CRI_CGROUP_PARENT"]! }, options.nodeArgs ?? []);
  const start = (): void => {
    agent.start();
    if (agent.pid !== undefined) options.onStart?.(agent.pid);
  };
  const ready = async (): Promise<void> => {
    await waitFor(`node ${options.node} Ready`, 60_000, async () => {
      if (agent.pid === undefined) throw new Error(`the agent exited: ${agent.log()}`);
      const node = await adminJson<{ status?: { conditions?: { type: string; status: string }[] } }>(cp, ["get", "node", options.node]);
      return node.status?.conditions?.find((c) => c.type === "Ready")?.status === "True" ? true : undefined;
    });
  };
  start();
  await ready();
  return {
    label,
    nodeName: options.node,
    logPath: `${agent.stateDir}/agent.log`,
    pid: () => agent.pid,
    kill9: () => agent.kill("SIGKILL"),
    async restart() {
      start();
    },
    async stop() {
      await agent.destroy();
      runContainerdScript("clean", options.criDir, 180_000, { PROBELET_CRI_CNI: "1", PROBELET_CRI_SUBNET: options.subnet });
      await admin(cp, ["delete", "node", options.node, "--ignore-not-found"]).catch(() => "");
    },
  };
}

/**
 * useControlPlane returns the control plane running in PROBELET_CP_DIR (default `defaultDir`), or
 * starts one there with node kubeconfigs for `nodes`; `stop` ends it only when it was started here.
 */
export function useControlPlane(defaultDir: string, nodes: readonly string[]): { env: ControlPlaneEnv; started: boolean; stop: () => void } {
  const dir = process.env["PROBELET_CP_DIR"] ?? defaultDir;
  let exported: Record<string, string>;
  let started = false;
  if (runControlPlaneScript("status", dir, {}, 30_000).status === 0) {
    exported = runControlPlaneScript("env", dir).exported;
  } else {
    const run = runControlPlaneScript("start", dir, { PROBELET_CP_NODES: nodes.join(" ") });
    if (run.status !== 0) throw new Error(`scripts/control-plane.sh start failed:\n${run.stderr}`);
    exported = run.exported;
    started = true;
  }
  const env = readControlPlaneEnv({ ...process.env, ...exported });
  if (env.env === undefined) throw new Error(env.skip);
  return { env: env.env, started, stop: () => void (started && runControlPlaneScript("stop", dir)) };
}

/** probeletNodeName is `wanted` when the control plane has a kubeconfig for it, else its first node. */
export function probeletNodeName(cp: ControlPlaneEnv, wanted: string): string {
  if (cp.nodeKubeconfigs.has(wanted)) return wanted;
  const first = [...cp.nodeKubeconfigs.keys()][0];
  if (first === undefined) throw new Error("the control plane has no node kubeconfig for a probelet node (PROBELET_CP_NODES)");
  return first;
}
