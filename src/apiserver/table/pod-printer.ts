// The pod Table columns (printers.go AddHandlers podColumnDefinitions + printPod).
import { AGE_DOC, NAME_DOC } from "./column-docs.js";
import { podCells, type ServedPod } from "./pod-columns.js";
import { column, type ResourcePrinter } from "./resource-printer.js";
import type { TableRowCondition } from "./table-types.js";

// printPod marks finished pods with a Completed row condition.
const SUCCEEDED: TableRowCondition[] = [{ type: "Completed", status: "True", reason: "Succeeded", message: "The pod has completed successfully." }];
const FAILED: TableRowCondition[] = [{ type: "Completed", status: "True", reason: "Failed", message: "The pod failed." }];

/** POD_PRINTER prints Name, Ready, Status, Restarts, Age and, at priority 1, IP, Node, Nominated Node, Readiness Gates. */
export const POD_PRINTER: ResourcePrinter<ServedPod> = {
  kind: "Pod",
  columns: [
    column("Name", "string", NAME_DOC, 0, "name"),
    column("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
    column("Status", "string", "The aggregate status of the containers in this pod."),
    column("Restarts", "string", "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."),
    column("Age", "string", AGE_DOC),
    column("IP", "string", "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.", 1),
    column("Node", "string", "NodeName indicates in which node this pod is scheduled.", 1),
    column("Nominated Node", "string", "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods.", 1),
    column("Readiness Gates", "string", "If specified, all readiness gates will be evaluated for pod readiness.", 1),
  ],
  row: (pod, now) => {
    const c = podCells(pod, now);
    const phase = pod.status?.phase;
    return {
      cells: [c.name, c.ready, c.status, c.restarts, c.age, c.ip, c.node, c.nominatedNode, c.readinessGates],
      ...(phase === "Succeeded" ? { conditions: SUCCEEDED } : phase === "Failed" ? { conditions: FAILED } : {}),
    };
  },
};
