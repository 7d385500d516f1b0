// Rebuilding a recorded container of the process runtime after a restart, as containerd loads
// its containers on start (internal/cri/server/restart.go): a created or exited one comes back as
// it was (unless its supervisor ran it while the agent died starting it); a running one is adopted from its supervisor (and followed until it exits), or, if it
// ended meanwhile, comes back exited with the exit its supervisor recorded, else containerd's
// unknown exit.
import type { Clock } from "../../util/clock.js";
import type { Logger } from "../../util/logger.js";
import { ContainerProcess } from "./container-process.js";
import type { ContainerRecord } from "./runtime-records.js";
import { adoptSupervisedProcess, childOf, readExitFile, UNKNOWN_EXIT_CODE, UNKNOWN_EXIT_REASON } from "./supervised-process.js";

/** RestoreOptions are what restoring one container needs besides its record. */
export interface RestoreOptions {
  /** The supervisor's exit state file of this container. */
  exitPath: string;
  clock: Clock;
  /** Aborted when the runtime closes: adopted containers stop being followed. */
  stop: AbortSignal;
  logger: Logger;
}

/** RestoredContainer is a container rebuilt from its record. */
export interface RestoredContainer {
  container: ContainerProcess;
  /** True when the state differs from the record (it started or exited meanwhile): save it again. */
  changed: boolean;
  /** The process identities to keep in its record. */
  identities: Pick<ContainerRecord, "leader" | "supervisor">;
}

/** restoreContainer rebuilds one recorded container, adopting its process if it still runs. */
export async function restoreContainer(record: ContainerRecord, options: RestoreOptions): Promise<RestoredContainer> {
  const { clock, logger } = options;
  const container = new ContainerProcess(record.id, record.sandboxId, record.config, record.logPath, record.execContext, record.createdAt, clock, logger);
  const identities = { ...(record.leader ? { leader: record.leader } : {}), ...(record.supervisor ? { supervisor: record.supervisor } : {}) };
  let snapshot = record.snapshot;
  let changed = false;
  if (snapshot.state === "created" && record.supervisor) {
    // The agent died while starting it: the supervisor may have run the container meanwhile.
    const exit = await readExitFile(options.exitPath);
    const leader = exit ? undefined : await childOf(record.supervisor);
    if (exit) {
      container.restore({ ...snapshot, state: "exited", exitCode: exit.exitCode, reason: exit.reason, finishedAt: exit.finishedAt }, undefined);
      return { container, changed: true, identities };
    }
    if (leader) {
      logger.info("Adopting a container whose start the previous agent did not see end", { containerId: record.id, pid: leader.pid });
      snapshot = { ...snapshot, state: "running", pid: leader.pid, startedAt: clock.now() };
      identities.leader = leader;
      changed = true;
    }
  }
  if (snapshot.state !== "running") {
    container.restore(snapshot, undefined);
    return { container, changed, identities };
  }
  const found =
    identities.leader && identities.supervisor
      ? await adoptSupervisedProcess(identities.leader, identities.supervisor, options.exitPath, record.logPath, clock, options.stop, logger)
      : { exitCode: UNKNOWN_EXIT_CODE, reason: UNKNOWN_EXIT_REASON, finishedAt: clock.now() };
  if ("exitCode" in found) {
    container.restore({ ...snapshot, state: "exited", exitCode: found.exitCode, reason: found.reason, finishedAt: found.finishedAt }, undefined);
    return { container, changed: true, identities };
  }
  container.restore(snapshot, found);
  return { container, changed, identities };
}
