// Driving scripts/kubelet-anchor.sh from Node: the real kubelet v1.37 as a node of a test control
// plane, for the script's own test, the differential suite and the node overhead benchmark.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../cri/containerd-script.js";
import { k8sToolPath, notBuilt } from "./control-plane-env.js";

/** KubeletAnchorEnv is what `eval "$(scripts/kubelet-anchor.sh start)"` exports. */
export interface KubeletAnchorEnv {
  /** The run directory (config, certificates, the kubelet's root, its containerd). */
  dir: string;
  node: string;
  /** The node's kubeconfig (a client certificate of the cluster CA for system:node:<node>). */
  kubeconfig: string;
  pidFile: string;
  log: string;
  port: number;
  healthzPort: number;
  /** The kubelet's cgroupRoot (its pods live under it). */
  cgroupRoot: string;
  /** The cgroup the kubelet process itself runs in (cpu, cpuacct and memory hierarchies). */
  agentCgroup: string;
  criDir: string;
  criSocket: string;
  subnet: string;
}

/** KubeletAnchorOptions choose the anchor's run directory, node name and pod subnet. */
export interface KubeletAnchorOptions {
  /** The control plane's run directory (PROBELET_CP_DIR). */
  cpDir: string;
  dir: string;
  node: string;
  subnet: string;
}

/** anchorUnavailable is the reason the kubelet anchor cannot run here, or false. */
export function anchorUnavailable(): string | false {
  const unbuilt = notBuilt();
  if (unbuilt) return unbuilt;
  if (k8sToolPath("kubelet") === undefined) return "the kubelet is not built (scripts/kubelet-anchor.sh build)";
  return false;
}

/** runAnchorScript runs `scripts/kubelet-anchor.sh COMMAND` with the options' variables; its log is kept. */
export async function runAnchorScript(command: "start" | "stop" | "status" | "env", options: KubeletAnchorOptions, timeoutMs = 180_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn("bash", [join(repoRoot(), "scripts", "kubelet-anchor.sh"), command], {
    env: { ...process.env, PROBELET_CP_DIR: options.cpDir, PROBELET_ANCHOR_DIR: options.dir, PROBELET_ANCHOR_NODE: options.node, PROBELET_ANCHOR_SUBNET: options.subnet },
    stdio: ["ignore", "pipe", "pipe"],
    timeout: timeoutMs,
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr = (stderr + d).slice(-16_000)));
  const code = await new Promise<number | null>((resolve) => child.once("close", (c) => resolve(c)));
  return { code, stdout, stderr };
}

/** parseAnchorEnv reads the export lines of start or env. */
export function parseAnchorEnv(stdout: string): KubeletAnchorEnv {
  const v: Record<string, string> = {};
  for (const m of stdout.matchAll(/^export (\w+)='([^']*)'$/gm)) v[m[1]!] = m[2]!;
  const get = (name: string): string => {
    const value = v[`PROBELET_ANCHOR_${name}`];
    if (value === undefined) throw new Error(`scripts/kubelet-anchor.sh exported no PROBELET_ANCHOR_${name}`);
    return value;
  };
  return {
    dir: get("DIR"),
    node: get("NODE"),
    kubeconfig: get("KUBECONFIG"),
    pidFile: get("PID_FILE"),
    log: get("LOG"),
    port: Number(get("PORT")),
    healthzPort: Number(get("HEALTHZ_PORT")),
    cgroupRoot: get("CGROUP_ROOT"),
    agentCgroup: get("AGENT_CGROUP"),
    criDir: get("CRI_DIR"),
    criSocket: get("CRI_SOCKET"),
    subnet: get("SUBNET"),
  };
}

/** startAnchor starts (or restarts) the anchor and returns its variables; throws with its log on failure. */
export async function startAnchor(options: KubeletAnchorOptions): Promise<KubeletAnchorEnv> {
  const run = await runAnchorScript("start", options);
  if (run.code !== 0) throw new Error(`scripts/kubelet-anchor.sh start exited ${run.code}:\n${run.stderr}`);
  return parseAnchorEnv(run.stdout);
}

/** stopAnchor stops the anchor; throws with its log on failure. */
export async function stopAnchor(options: KubeletAnchorOptions): Promise<void> {
  const run = await runAnchorScript("stop", options);
  if (run.code !== 0) throw new Error(`scripts/kubelet-anchor.sh stop exited ${run.code}:\n${run.stderr}`);
}

/** kubeletPid is the PID the anchor recorded for its running kubelet (it changes when it is started again). */
export function kubeletPid(env: KubeletAnchorEnv): number {
  return Number(readFileSync(env.pidFile, "utf8").trim());
}
