// @internal For tests. One test file's own node on pod networks: a probelet agent (process
// runtime, root, the CNI plugins) joined as a node the file alone uses (its Node is made
// beforehand with a taint of the file, so other files' pods never land there), with its own pod
// CIDR and namespace; and everything it leaves (namespace, pods' networks, the Node) removed after.
import { readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PodNetwork } from "../../src/runtime/process/pod-network.js";
import { supervisorAvailable } from "../../src/runtime/process/supervised-process.js";
import { systemClock } from "../../src/util/clock.js";
import { silentLogger } from "../../src/util/logger.js";
import { releasePodNetworks } from "../pod-network-cleanup.js";
import { kubectl, readControlPlaneEnv, type ControlPlaneEnv } from "./control-plane-env.js";
import { admin, NodeAgent } from "./node-agent.js";

/** @internal For tests. PodNetworkNodeSpec names a file's node, namespace, pod CIDR and taint value. */
export interface PodNetworkNodeSpec {
  node: string;
  namespace: string;
  podCidr: string;
  /** The value of the file's taint probelet.dev/test-file (NoSchedule). */
  taintValue: string;
}

/** @internal For tests. TEST_FILE_TAINT_KEY is the key of the taint that keeps other files' pods off a file's node. */
export const TEST_FILE_TAINT_KEY = "probelet.dev/test-file";

/** @internal For tests. podNetworkNodeSkip is why the file cannot run (no control plane, node kubeconfig, supervisor or pod network), or false. */
export async function podNetworkNodeSkip(spec: PodNetworkNodeSpec): Promise<string | false> {
  const shared = readControlPlaneEnv();
  if (shared.env === undefined) return shared.skip;
  if (!shared.env.nodeKubeconfigs.has(spec.node)) return `the control plane has no kubeconfig for node ${spec.node} (PROBELET_CP_NODES)`;
  if (!(await supervisorAvailable())) return "the supervisor helper is not built (no C compiler)";
  const reason = await new PodNetwork({ podCidr: spec.podCidr, bridge: "plpprobe" }, tmpdir(), () => Promise.reject(new Error("unused")), systemClock, silentLogger).unavailableReason();
  return reason ?? false;
}

/** @internal For tests. PodNetworkNode is the running node of one file. */
export class PodNetworkNode {
  private constructor(
    readonly env: ControlPlaneEnv,
    readonly spec: PodNetworkNodeSpec,
    readonly agent: NodeAgent,
    /** A scratch directory of the file, removed by stop(). */
    readonly work: string,
    private readonly ipForward: string,
  ) {}

  /** tolerations are what the file's pods carry to land on its node (the process runtime's taint and the file's). */
  get tolerations(): string {
    return `[{key: probelet.dev/runtime, operator: Equal, value: process, effect: NoSchedule}, {key: ${TEST_FILE_TAINT_KEY}, operator: Equal, value: ${this.spec.taintValue}, effect: NoSchedule}]`;
  }

  /** start creates the namespace and the tainted Node, then runs the agent, which finds the Node and keeps its spec. */
  static async start(spec: PodNetworkNodeSpec): Promise<PodNetworkNode> {
    const env = readControlPlaneEnv().env!;
    const work = await mkdtemp(join(tmpdir(), `probelet-cluster-${spec.taintValue}-`));
    const ipForward = readFileSync("/proc/sys/net/ipv4/ip_forward", "utf8");
    await kubectl(env.adminKubeconfig, ["create", "namespace", spec.namespace]);
    const nodeFile = join(work, "node.json");
    await writeFile(nodeFile, JSON.stringify({ apiVersion: "v1", kind: "Node", metadata: { name: spec.node }, spec: { taints: [{ key: TEST_FILE_TAINT_KEY, value: spec.taintValue, effect: "NoSchedule" }] } }));
    await admin(env, ["apply", "-f", nodeFile]);
    const agent = await NodeAgent.create(env, spec.node, ["--pod-cidr", spec.podCidr]);
    agent.start();
    return new PodNetworkNode(env, spec, agent, work, ipForward);
  }

  /**
   * stop deletes the namespace while the agent runs (so it stops the pods and releases their
   * networks), then stops the agent, removes what is left of the networks, restores
   * net.ipv4.ip_forward, deletes the Node and the scratch directory.
   */
  async stop(): Promise<void> {
    await kubectl(this.env.adminKubeconfig, ["delete", "namespace", this.spec.namespace, "--timeout=25s"]);
    await this.agent.destroy();
    releasePodNetworks(join(this.agent.stateDir, "state"));
    writeFileSync("/proc/sys/net/ipv4/ip_forward", this.ipForward);
    await kubectl(this.env.adminKubeconfig, ["delete", "node", this.spec.node, "--wait=false"]);
    await rm(this.work, { recursive: true, force: true });
  }
}
