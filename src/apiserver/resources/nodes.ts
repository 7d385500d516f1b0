// The nodes resource and the Node object of the agent's machine, as the kubelet registers it
// (pkg/kubelet/kubelet_node_status.go initialNode and the setters in nodestatus/setters.go):
// capacity and allocatable cpu, memory and pods, the four conditions, InternalIP and Hostname
// addresses, and nodeInfo.
import { arch, cpus, hostname, release, totalmem, type, version } from "node:os";
import type { FieldSchema } from "../../api/schema.js";
import { objectMetaSchema } from "../../api/schema.js";
import { KUBELET_VERSION } from "../../probe/user-agent.js";
import type { KubeObject } from "../storage/object-store.js";
import { DNS_SUBDOMAIN_NAME, validateObjectMeta } from "./object-meta.js";
import { ALL_VERBS, type ResourceDefinition } from "./resource-definition.js";


/** MAX_PODS is the kubelet's default --max-pods. */
const MAX_PODS = "110";

/** NodeFacts are what the Node object says about the machine. */
export interface NodeFacts {
  name: string;
  hostIP: string;
  /** "containerd://1.7.24" or "process://<node version>". */
  containerRuntimeVersion: string;
  /** RFC 3339 time of the status. */
  now: string;
}

/** buildNode describes the machine as a core/v1 Node. */
export function buildNode(facts: NodeFacts): KubeObject {
  const resources = { cpu: String(cpus().length), memory: `${Math.floor(totalmem() / 1024)}Ki`, pods: MAX_PODS };
  const condition = (kind: string, status: string, reason: string, message: string): Record<string, string> => ({
    type: kind, status, lastHeartbeatTime: facts.now, lastTransitionTime: facts.now, reason, message,
  });
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name: facts.name,
      labels: { "kubernetes.io/hostname": facts.name, "kubernetes.io/os": process.platform, "kubernetes.io/arch": goArch(arch()) },
    },
    spec: {},
    status: {
      capacity: resources,
      allocatable: resources,
      conditions: [
        condition("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
        condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        condition("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        condition("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
      ],
      addresses: [{ type: "InternalIP", address: facts.hostIP }, { type: "Hostname", address: hostname() }],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: "",
        systemUUID: "",
        bootID: "",
        kernelVersion: release(),
        osImage: `${type()} ${version()}`,
        containerRuntimeVersion: facts.containerRuntimeVersion,
        kubeletVersion: KUBELET_VERSION,
        kubeProxyVersion: "",
        operatingSystem: process.platform,
        architecture: goArch(arch()),
      },
    },
  } as KubeObject;
}

/** goArch names a Node.js architecture as Go's GOARCH does. */
function goArch(nodeArch: string): string {
  return nodeArch === "x64" ? "amd64" : nodeArch === "ia32" ? "386" : nodeArch;
}

/** NODES is the nodes resource. */
export const NODES: ResourceDefinition = {
  name: "nodes",
  singularName: "node",
  kind: "Node",
  shortNames: ["no"],
  namespaced: false,
  verbs: ALL_VERBS,
  categories: [],
  strategy: {
    schema: { kind: "object", fields: { apiVersion: { kind: "string" }, kind: { kind: "string" }, metadata: objectMetaSchema, spec: { kind: "opaque" }, status: { kind: "opaque" } }, required: ["metadata"] } satisfies FieldSchema,
    prepareForCreate: (object) => object,
    validate: (object) => ({ object, errors: validateObjectMeta(object.metadata, false, DNS_SUBDOMAIN_NAME) }),
    prepareForUpdate: (next, current) => ({ ...next, status: (current as { status?: unknown }).status }) as KubeObject,
    validateUpdate: () => [],
  },
  status: { prepareForUpdate: (next, current) => ({ ...current, status: (next as { status?: unknown }).status }) as KubeObject },
};
