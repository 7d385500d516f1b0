// The node Table columns (printers.go nodeColumnDefinitions + printNode): Name, Status, Roles,
// Age, Version and, at priority 1, Internal-IP, External-IP, OS-Image, Kernel-Version,
// Container-Runtime.
import type { ObjectMeta } from "../../api/types.js";
import { AGE_DOC, NAME_DOC } from "./column-docs.js";
import { timestampSince } from "./human-duration.js";
import { column, type ResourcePrinter } from "./resource-printer.js";

/** ServedNode is a core/v1 Node with the fields printNode reads. */
export interface ServedNode {
  metadata: ObjectMeta;
  spec?: { unschedulable?: boolean };
  status?: {
    conditions?: { type: string; status: string }[];
    addresses?: { type: string; address: string }[];
    nodeInfo?: { kubeletVersion?: string; osImage?: string; kernelVersion?: string; containerRuntimeVersion?: string };
  };
}

const ROLE_LABEL_PREFIX = "node-role.kubernetes.io/";
const ROLE_LABEL = "kubernetes.io/role";

/** nodeRoles is findNodeRoles: node-role.kubernetes.io/<role> labels and a kubernetes.io/role value, sorted. */
function nodeRoles(node: ServedNode): string[] {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(node.metadata.labels ?? {})) {
    if (key.startsWith(ROLE_LABEL_PREFIX) && key.length > ROLE_LABEL_PREFIX.length) roles.add(key.slice(ROLE_LABEL_PREFIX.length));
    else if (key === ROLE_LABEL && value !== "") roles.add(value);
  }
  return [...roles].sort();
}

function address(node: ServedNode, type: string): string {
  return node.status?.addresses?.find((a) => a.type === type)?.address ?? "<none>";
}

/** nodeStatus is Ready / NotReady from the Ready condition (Unknown without one), plus SchedulingDisabled when cordoned. */
function nodeStatus(node: ServedNode): string {
  const ready = node.status?.conditions?.filter((c) => c.type === "Ready").at(-1);
  const status = [ready === undefined ? "Unknown" : ready.status === "True" ? "Ready" : "NotReady"];
  if (node.spec?.unschedulable === true) status.push("SchedulingDisabled");
  return status.join(",");
}

/** NODE_PRINTER prints nodes as printNode does. */
export const NODE_PRINTER: ResourcePrinter<ServedNode> = {
  kind: "Node",
  columns: [
    column("Name", "string", NAME_DOC, 0, "name"),
    column("Status", "string", "The status of the node"),
    column("Roles", "string", "The roles of the node"),
    column("Age", "string", AGE_DOC),
    column("Version", "string", "Kubelet Version reported by the node."),
    column("Internal-IP", "string", "List of addresses reachable to the node.", 1),
    column("External-IP", "string", "List of addresses reachable to the node.", 1),
    column("OS-Image", "string", "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).", 1),
    column("Kernel-Version", "string", "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1),
    column("Container-Runtime", "string", "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).", 1),
  ],
  row: (node, now) => {
    const info = node.status?.nodeInfo ?? {};
    return {
      cells: [
        node.metadata.name ?? "",
        nodeStatus(node),
        nodeRoles(node).join(",") || "<none>",
        timestampSince(node.metadata.creationTimestamp, now),
        info.kubeletVersion ?? "",
        address(node, "InternalIP"),
        address(node, "ExternalIP"),
        info.osImage || "<unknown>",
        info.kernelVersion || "<unknown>",
        info.containerRuntimeVersion || "<unknown>",
      ],
    };
  },
};
