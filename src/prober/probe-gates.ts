// Why a worker would not probe now, in words: the gates of kubelet worker.go doProbe, in its
// order (worker.ts step), read without changing anything. A manual trigger (POST
// …/probes/trigger) answers with them at once instead of waiting for a probe that will not run.
import type { PodStatus } from "../api/types.js";
import { findContainerStatus } from "./prober.js";
import type { Worker } from "./worker.js";

/**
 * probeBlocker returns why the worker's next step would end before probing, or undefined when
 * it would probe. `status` is the pod status the worker reads (the status manager's); `now` is
 * in ms since the epoch.
 */
export function probeBlocker(worker: Worker, status: PodStatus | undefined, now: number): string | undefined {
  const name = worker.container.name;
  const probe = `the ${worker.probeType} probe of container "${name}"`;
  if (status === undefined) return `the pod has no status yet: ${probe} waits for it`;
  if (status.phase === "Failed" || status.phase === "Succeeded") return `the pod has ${status.phase === "Failed" ? "failed" : "succeeded"}: its probes no longer run`;
  const c = findContainerStatus(status, name);
  if (c === undefined) return `container "${name}" has not been created yet`;
  // A new container ID lifts the hold at the next step (worker.go: "container restarted").
  if (worker.onHold && c.containerID === worker.containerId) {
    if (worker.probeType === "startup" && c.started === true) return `container "${name}" has started: its startup probe no longer runs`;
    return `${probe} is on hold until the container restarts: the container failed it and is being killed`;
  }
  if (c.state?.running === undefined) {
    const reason = c.state?.waiting?.reason ?? c.state?.terminated?.reason;
    return `container "${name}" is not running${reason !== undefined && reason !== "" ? ` (${reason})` : ""}`;
  }
  if (worker.pod.metadata.deletionTimestamp !== undefined && worker.probeType !== "readiness") return `the pod is being deleted: its liveness and startup probes have stopped`;
  const startedAt = Date.parse(c.state.running.startedAt ?? "");
  const sinceStart = Number.isNaN(startedAt) ? 0 : Math.trunc((now - startedAt) / 1000);
  const delay = worker.spec.initialDelaySeconds ?? 0;
  if (sinceStart < delay) return `container "${name}" started ${sinceStart}s ago: ${probe} waits initialDelaySeconds (${delay}s)`;
  if (c.started === true && worker.probeType === "startup") return `container "${name}" has started: its startup probe no longer runs`;
  if (c.started !== true && worker.probeType !== "startup") return `container "${name}" has not started yet: ${probe} waits for its startup probe to succeed`;
  return undefined;
}
