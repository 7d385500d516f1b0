// Rebuilding a recorded container of the process runtime after a restart, as containerd loads
// its containers on start (internal/cri/server/restart.go): a created or exited one comes back as
// it was; a running one is adopted from its supervisor (and followed until it exits), or, if it
// ended meanwhile, comes back exited with the exit its supervisor recorded, else containerd's
// unknown exit.
import type { Clock } from "../../util/clock.js";
import type { Logger } from "../../util/logger.js";
import { ContainerProcess } from "./container-process.js";
import type { ContainerRecord } from "./runtime-records.js";
import { adoptSupervisedProcess, UNKNOWN_EXIT_CODE, UNKNOWN_EXIT_REASON } from "./supervised-process.js";

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
  /** True when the state differs from the record (it exited meanwhile): save it again. */
  changed: boolean;
}

/** restoreContainer rebuilds one recorded container, adopting its process if it still runs. */
export async function restoreContainer(record: ContainerRecord, options: RestoreOptions): Promise<RestoredContainer> {
  const { clock, logger } = options;
  const container = new ContainerProcess(record.id, record.sandboxId, record.config, record.logPath, record.execContext, record.createdAt, clock, logger);
  const snapshot = record.snapshot;
  if (snapshot.state !== "running") {
    container.restore(snapshot, undefined);
    return { container, changed: false };
  }
  const found =
    record.leader && record.supervisor
      ? await adoptSupervisedProcess(record.leader, record.supervisor, options.exitPath, clock, options.stop, logger)
      : { exitCode: UNKNOWN_EXIT_CODE, reason: UNKNOWN_EXIT_REASON, finishedAt: clock.now() };
  if ("exitCode" in found) {
    container.restore({ ...snapshot, state: "exited", exitCode: found.exitCode, reason: found.reason, finishedAt: found.finishedAt }, undefined);
    return { container, changed: true };
  }
  container.restore(snapshot, found);
  return { container, changed: false };
}
