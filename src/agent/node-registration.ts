// The agent's Node object in the store, as the kubelet registers its node
// (pkg/kubelet/kubelet_node_status.go registerWithAPIServer): created at start, its nodeInfo's
// containerRuntimeVersion filled once the runtime has answered Version.
import { buildNode, NODES, type NodeFacts } from "../apiserver/resources/nodes.js";
import type { ObjectStore } from "../apiserver/storage/object-store.js";
import type { Runtime } from "../runtime/runtime.js";

/** registerNode creates the Node object; the runtime's version is not known yet ("<type>://"). */
export function registerNode(store: ObjectStore, facts: Omit<NodeFacts, "containerRuntimeVersion">, runtimeType: string): void {
  store.create(NODES.name, buildNode({ ...facts, containerRuntimeVersion: `${runtimeType}://` }));
}

/** reportRuntimeVersion asks the runtime for its version and writes it into the Node's nodeInfo. */
export async function reportRuntimeVersion(store: ObjectStore, nodeName: string, runtime: Runtime): Promise<void> {
  const { runtimeName, runtimeVersion } = await runtime.version();
  store.modify(NODES.name, undefined, nodeName, (node) => {
    const status = (node as unknown as { status: { nodeInfo: Record<string, string> } }).status;
    return { ...node, status: { ...status, nodeInfo: { ...status.nodeInfo, containerRuntimeVersion: `${runtimeName}://${runtimeVersion}` } } };
  });
}
