// The cells of a pod row exactly as kubectl's printPod computes them
// (pkg/printers/internalversion/printers.go printPod): READY over regular containers and started
// sidecars, STATUS from init progress, waiting/terminated reasons and deletion, RESTARTS with the
// last restart's age, AGE, and the wide IP / NODE / NOMINATED NODE / READINESS GATES. Shared by the
// API server's Table conversion and the CLI's `get pods`.
import { isPodPhaseTerminal, isRestartableInitContainer } from "../../api/pod-rules.js";
import type { Container, ContainerStatus, Pod, PodStatus } from "../../api/types.js";
import { humanDuration, timestampSince } from "./human-duration.js";

/** ServedPod is a pod as the API serves it, with the status fields printPod reads beyond probelet's Pod type. */
export type ServedPod = Pod & { status?: PodStatus & { nominatedNodeName?: string } };

/** PodCells are the values of one pod row, by column. */
export interface PodCells {
  name: string;
  ready: string;
  status: string;
  restarts: string;
  age: string;
  ip: string;
  node: string;
  nominatedNode: string;
  readinessGates: string;
}

/** NODE_UNREACHABLE_POD_REASON is the reason the node lifecycle controller sets on pods of a lost node. */
const NODE_UNREACHABLE_POD_REASON = "NodeLost";

const isSidecar = (container: Container | undefined): boolean => container !== undefined && isRestartableInitContainer(container);
const hasCondition = (pod: Pod, type: string): boolean => pod.status?.conditions?.some((c) => c.type === type && c.status === "True") ?? false;

/** Restarts accumulates a restart count and the latest restart time (lastState.terminated.finishedAt). */
class Restarts {
  count = 0;
  last = Number.NaN;

  add(status: ContainerStatus): void {
    this.count += status.restartCount;
    const finished = Date.parse(status.lastState?.terminated?.finishedAt ?? "");
    if (!Number.isNaN(finished) && (Number.isNaN(this.last) || finished > this.last)) this.last = finished;
  }

  render(now: number): string {
    if (this.count === 0 || Number.isNaN(this.last)) return String(this.count);
    return `${this.count} (${humanDuration(now - this.last)} ago)`;
  }
}

/** podCells computes every column of a pod row at time `now` (ms since the epoch). */
export function podCells(pod: ServedPod, now: number): PodCells {
  const status = pod.status ?? {};
  let reason: string = status.reason || status.phase || "";
  if (status.conditions?.some((c) => c.type === "PodScheduled" && c.reason === "SchedulingGated")) reason = "SchedulingGated";

  const initSpecs = new Map((pod.spec.initContainers ?? []).map((c) => [c.name, c]));
  const total = pod.spec.containers.length + [...initSpecs.values()].filter(isSidecar).length;
  let ready = 0;
  const all = new Restarts();
  const sidecars = new Restarts();

  let initializing = false;
  for (const [i, c] of (status.initContainerStatuses ?? []).entries()) {
    all.add(c);
    const sidecar = isSidecar(initSpecs.get(c.name));
    if (sidecar) sidecars.add(c);
    const terminated = c.state?.terminated;
    if (terminated && terminated.exitCode === 0) continue;
    if (sidecar && c.started === true) {
      if (c.ready) ready++;
      continue;
    }
    if (terminated) {
      reason = terminated.reason ? `Init:${terminated.reason}` : terminated.signal ? `Init:Signal:${terminated.signal}` : `Init:ExitCode:${terminated.exitCode}`;
    } else if (c.state?.waiting?.reason && c.state.waiting.reason !== "PodInitializing") {
      reason = `Init:${c.state.waiting.reason}`;
    } else {
      reason = `Init:${i}/${initSpecs.size}`;
    }
    initializing = true;
    break;
  }

  let restarts = all;
  if (!initializing || hasCondition(pod, "Initialized")) {
    restarts = sidecars;
    let hasRunning = false;
    for (const c of [...(status.containerStatuses ?? [])].reverse()) {
      restarts.add(c);
      const terminated = c.state?.terminated;
      if (c.state?.waiting?.reason) reason = c.state.waiting.reason;
      else if (terminated?.reason) reason = terminated.reason;
      else if (terminated) reason = terminated.signal ? `Signal:${terminated.signal}` : `ExitCode:${terminated.exitCode}`;
      else if (c.ready && c.state?.running) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === "Completed" && hasRunning) reason = hasCondition(pod, "Ready") ? "Running" : "NotReady";
  }

  if (pod.metadata.deletionTimestamp && status.reason === NODE_UNREACHABLE_POD_REASON) reason = "Unknown";
  else if (pod.metadata.deletionTimestamp && !isPodPhaseTerminal(status.phase)) reason = "Terminating";

  const gates = pod.spec.readinessGates ?? [];
  const gatesTrue = gates.filter((g) => status.conditions?.find((c) => c.type === g.conditionType)?.status === "True").length;
  return {
    name: pod.metadata.name ?? "",
    ready: `${ready}/${total}`,
    status: reason,
    restarts: restarts.render(now),
    age: timestampSince(pod.metadata.creationTimestamp, now),
    ip: status.podIPs?.[0]?.ip || status.podIP || "<none>",
    node: pod.spec.nodeName || "<none>",
    nominatedNode: status.nominatedNodeName || "<none>",
    readinessGates: gates.length === 0 ? "<none>" : `${gatesTrue}/${gates.length}`,
  };
}
