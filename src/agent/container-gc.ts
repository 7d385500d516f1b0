// Container garbage collection (kubelet pkg/kubelet/kuberuntime/kuberuntime_gc.go with the
// kubelet's default policy): dead containers beyond the newest one per (pod, container name) are
// removed with their log files, so a crash-looping pod does not pile up containers and logs; every
// dead container, idle sandbox and log directory of a pod the agent no longer has goes too.
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "../util/logger.js";
import type { ContainerInfo, PodSandboxStatus, Runtime } from "../runtime/runtime.js";
import { ownedBy } from "./agent-id.js";
import { LABEL_POD_UID } from "./pod-sync.js";
import { removeAllLogs } from "./rotated-logs.js";

/** How often the agent collects (kubelet ContainerGCPeriod: 1 min). */
export const CONTAINER_GC_PERIOD_MS = 60_000;

/**
 * Dead containers kept per (pod UID, container name): the kubelet's --maximum-dead-containers-per-container
 * default. The newest is what `lastState` and `logs --previous` show. (--minimum-container-ttl-duration
 * is 0 and --maximum-dead-containers is -1 by default, so neither limits anything.)
 */
export const MAX_DEAD_PER_CONTAINER = 1;

/** GcReport counts what one collection removed. */
export interface GcReport {
  containers: number;
  sandboxes: number;
  logDirectories: number;
}

/** ContainerGcDeps is what a collection needs. */
export interface ContainerGcDeps {
  runtime: Runtime;
  /** Root of the pods' log directories (`<namespace>_<name>_<uid>`). */
  logRoot: string;
  /** Only containers and sandboxes with this owner label are collected (agent-id.ts). */
  agentId: string;
  /** isPodKnown tells whether the agent still has the pod (kubelet podStateProvider, negated IsPodDeleted). */
  isPodKnown(uid: string): boolean;
  logger: Logger;
}

/** newestFirst orders a unit's containers as the kubelet's byAttempt does: attempt, then creation time. */
function newestFirst(a: { attempt: number; createdAt: number }, b: { attempt: number; createdAt: number }): number {
  return b.attempt - a.attempt || b.createdAt - a.createdAt;
}

/**
 * collectContainerGarbage runs one collection (kubelet containerGC.GarbageCollect): evict dead
 * containers, then sandboxes that are not ready and hold no containers, then log directories of
 * pods that are gone. Failures are logged and the rest goes on; the next period retries.
 */
export async function collectContainerGarbage(deps: ContainerGcDeps): Promise<GcReport> {
  const report: GcReport = { containers: 0, sandboxes: 0, logDirectories: 0 };
  const containers = await deps.runtime.listContainers();
  const removed = await evictContainers(deps, containers);
  report.containers = removed.size;
  report.sandboxes = await evictSandboxes(deps, containers.filter((c) => !removed.has(c.id)));
  report.logDirectories = await evictLogDirectories(deps);
  return report;
}

/** evictContainers removes every dead container of a gone pod, and those beyond MAX_DEAD_PER_CONTAINER per unit otherwise; resolves with their IDs. */
async function evictContainers(deps: ContainerGcDeps, containers: readonly ContainerInfo[]): Promise<Set<string>> {
  const units = new Map<string, { uid: string; dead: ContainerInfo[] }>();
  for (const c of containers) {
    const uid = c.labels[LABEL_POD_UID];
    // Only containers this agent labelled; a running container is never evicted.
    if (uid === undefined || c.state === "running" || !ownedBy(c.labels, deps.agentId)) continue;
    const key = `${uid}/${c.name}`;
    const unit = units.get(key) ?? { uid, dead: [] };
    unit.dead.push(c);
    units.set(key, unit);
  }
  const removed = new Set<string>();
  for (const { uid, dead } of units.values()) {
    const keep = deps.isPodKnown(uid) ? MAX_DEAD_PER_CONTAINER : 0;
    for (const c of dead.sort(newestFirst).slice(keep)) {
      if (await removeContainer(deps, c)) removed.add(c.id);
    }
  }
  return removed;
}

/**
 * removeContainer deletes the container's log file and its rotated files, then the container
 * (kubelet removeContainer: removeContainerLog, ContainerLogManager.Clean, before RemoveContainer).
 */
async function removeContainer(deps: ContainerGcDeps, c: ContainerInfo): Promise<boolean> {
  try {
    if (c.logPath !== "") await removeAllLogs(c.logPath);
    await deps.runtime.removeContainer(c.id);
    deps.logger.info("Removed dead container", { containerID: c.id, containerName: c.name, attempt: c.attempt });
    return true;
  } catch (err) {
    deps.logger.warn("Failed to remove container", { containerID: c.id, err: err instanceof Error ? err.message : String(err) });
    return false;
  }
}

/**
 * evictSandboxes removes sandboxes that are not ready and hold no containers: all of them for a
 * gone pod, all but the newest for a pod the agent still has (kubelet evictSandboxes).
 */
async function evictSandboxes(deps: ContainerGcDeps, containers: readonly ContainerInfo[]): Promise<number> {
  const inUse = new Set(containers.map((c) => c.podSandboxId));
  const byPod = new Map<string, PodSandboxStatus[]>();
  for (const s of await deps.runtime.listPodSandboxes()) {
    const uid = s.labels[LABEL_POD_UID];
    if (uid === undefined || !ownedBy(s.labels, deps.agentId)) continue;
    byPod.set(uid, [...(byPod.get(uid) ?? []), s]);
  }
  let removed = 0;
  for (const [uid, sandboxes] of byPod) {
    const candidates = sandboxes.sort(newestFirst).slice(deps.isPodKnown(uid) ? 1 : 0);
    for (const s of candidates) {
      if (s.state === "ready" || inUse.has(s.id)) continue;
      try {
        await deps.runtime.stopPodSandbox(s.id);
        await deps.runtime.removePodSandbox(s.id);
        removed++;
      } catch (err) {
        deps.logger.warn("Failed to remove sandbox", { sandbox: s.id, err: err instanceof Error ? err.message : String(err) });
      }
    }
  }
  return removed;
}

/** evictLogDirectories removes `<logRoot>/<ns>_<name>_<uid>` of pods the agent no longer has (kubelet evictPodLogsDirectories). */
async function evictLogDirectories(deps: ContainerGcDeps): Promise<number> {
  let names: string[];
  try {
    names = await readdir(deps.logRoot);
  } catch {
    return 0; // no pod has logged yet
  }
  let removed = 0;
  for (const name of names) {
    // The UID is what follows the last "_" (kubelet parsePodUIDFromLogsDirectory).
    const uid = name.slice(name.lastIndexOf("_") + 1);
    if (deps.isPodKnown(uid)) continue;
    try {
      await rm(join(deps.logRoot, name), { recursive: true, force: true });
      removed++;
    } catch (err) {
      deps.logger.warn("Failed to remove pod logs directory", { dir: name, err: err instanceof Error ? err.message : String(err) });
    }
  }
  return removed;
}
