// Container log rotation, as the kubelet's ContainerLogManager does it
// (pkg/kubelet/logs/container_log_manager.go): every monitor interval, each running container's
// log is checked; one at or over the maximum size is rotated: leftovers of failed rotations are
// removed, then the oldest rotated files beyond maxFiles - 2, the rotated files not yet compressed
// are gzipped, and the log is renamed `<log>.<timestamp>` and the runtime asked to reopen it
// (ReopenContainerLog); if that fails the rename is undone. A log that went missing is reopened.
import { createReadStream, createWriteStream } from "node:fs";
import { rename, rm, stat } from "node:fs/promises";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import type { Runtime } from "../runtime/runtime.js";
import { IN_BACKGROUND, type Clock } from "../util/clock.js";
import type { Logger } from "../util/logger.js";
import { COMPRESS_SUFFIX, rotatedLogs, rotatedSuffix, TMP_SUFFIX } from "./rotated-logs.js";

/** ContainerLogPolicy is the kubelet's containerLog* configuration. */
export interface ContainerLogPolicy {
  /** containerLogMaxSize in bytes; negative turns rotation off. */
  maxSize: number;
  /** containerLogMaxFiles: the log and its rotated files, at most (> 1). */
  maxFiles: number;
  /** containerLogMaxWorkers: containers rotated at once (≥ 1). */
  maxWorkers: number;
  /** containerLogMonitorInterval in ms (≥ 3 s). */
  monitorIntervalMs: number;
}

/** DEFAULT_CONTAINER_LOG_POLICY is the kubelet's defaults: 10Mi, 5 files, 1 worker, every 10 s. */
export const DEFAULT_CONTAINER_LOG_POLICY: ContainerLogPolicy = { maxSize: 10 * 1024 * 1024, maxFiles: 5, maxWorkers: 1, monitorIntervalMs: 10_000 };

/**
 * validateContainerLogPolicy returns the kubelet's configuration errors
 * (pkg/kubelet/apis/config/validation/validation.go), or none.
 */
export function validateContainerLogPolicy(policy: ContainerLogPolicy): string[] {
  const errors: string[] = [];
  if (!(policy.maxWorkers >= 1)) errors.push("invalid configuration: containerLogMaxWorkers must be greater than or equal to 1");
  if (!(policy.monitorIntervalMs >= 3000)) errors.push("invalid configuration: containerLogMonitorInterval must be a positive time duration greater than or equal to 3s");
  if (!(policy.maxFiles > 1)) errors.push("invalid configuration: containerLogMaxFiles must be greater than 1");
  return errors;
}

/** ContainerLogManager rotates the logs of a runtime's running containers. */
export class ContainerLogManager {
  constructor(
    private readonly runtime: Runtime,
    private readonly policy: ContainerLogPolicy,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** run checks the logs every monitor interval until `stop` aborts (kubelet Start: wait.Forever(rotateLogs)). */
  async run(stop: AbortSignal): Promise<void> {
    if (this.policy.maxSize < 0) return;
    while (!stop.aborted) {
      await this.rotateLogs().catch((err: unknown) => this.logger.warn("Failed to rotate container logs", { err: err instanceof Error ? err.message : String(err) }));
      await this.clock.sleep(this.policy.monitorIntervalMs, stop, IN_BACKGROUND);
    }
  }

  /** rotateLogs runs one round over the running containers, maxWorkers at a time. */
  async rotateLogs(): Promise<void> {
    const running = (await this.runtime.relistContainers()).filter((c) => c.state === "running").map((c) => c.id);
    const queue = [...running];
    const worker = async (): Promise<void> => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) await this.processContainer(id);
    };
    await Promise.all(Array.from({ length: Math.min(this.policy.maxWorkers, queue.length) }, worker));
  }

  /** processContainer rotates one container's log when it is due (kubelet processContainer). */
  private async processContainer(id: string): Promise<void> {
    const info = await this.runtime.containerStatus(id).catch(() => undefined);
    const path = info?.logPath ?? "";
    if (path === "") return;
    let size = (await stat(path).catch(() => undefined))?.size;
    if (size === undefined) {
      try {
        await this.runtime.reopenContainerLog(id);
      } catch (err) {
        this.logger.warn("Container log doesn't exist, reopen container log failed", { containerID: id, path, err: err instanceof Error ? err.message : String(err) });
        return;
      }
      size = (await stat(path).catch(() => undefined))?.size;
      if (size === undefined) return;
    }
    if (size < this.policy.maxSize) return;
    await this.rotateLog(id, path).catch((err: unknown) =>
      this.logger.warn("Failed to rotate log for container", { containerID: id, path, currentSize: size, maxSize: this.policy.maxSize, err: err instanceof Error ? err.message : String(err) }),
    );
  }

  /** rotateLog is the kubelet's rotateLog: clean up, trim, compress, then rotate the live log. */
  private async rotateLog(id: string, log: string): Promise<void> {
    const { inUse, unused } = await rotatedLogs(log);
    for (const path of unused) await rm(path, { force: true });
    // The container gets a new file and the live one is rotated: at most maxFiles - 2 others stay.
    const keep = Math.max(0, this.policy.maxFiles - 2);
    const excess = inUse.slice(0, Math.max(0, inUse.length - keep));
    for (const path of excess) await rm(path, { force: true });
    for (const path of inUse.slice(excess.length)) if (!path.endsWith(COMPRESS_SUFFIX)) await compressLog(path);
    await this.rotateLatestLog(id, log);
  }

  /** rotateLatestLog renames the live log and has the runtime reopen it; undone when the reopen fails. */
  private async rotateLatestLog(id: string, log: string): Promise<void> {
    const rotated = `${log}.${rotatedSuffix(this.clock.now())}`;
    // Names have whole seconds: a second rotation within one would overwrite the first (the
    // kubelet's would); it waits for the next round instead.
    if ((await stat(rotated).catch(() => undefined)) || (await stat(`${rotated}${COMPRESS_SUFFIX}`).catch(() => undefined))) return;
    await rename(log, rotated);
    try {
      await this.runtime.reopenContainerLog(id);
    } catch (err) {
      await rename(rotated, log).catch((renameErr: unknown) => this.logger.error("Failed to rename rotated log", { rotatedLog: rotated, newLog: log, containerID: id, err: String(renameErr) }));
      throw new Error(`failed to reopen container log "${id}": ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }
}

/** compressLog gzips a rotated log into `<log>.gz` through a temporary file, then removes it (kubelet compressLog). */
async function compressLog(log: string): Promise<void> {
  const tmp = `${log}${TMP_SUFFIX}`;
  const { mode } = await stat(log);
  try {
    await pipeline(createReadStream(log), createGzip(), createWriteStream(tmp, { mode: mode & 0o777 }));
    await rename(tmp, `${log}${COMPRESS_SUFFIX}`);
  } finally {
    await rm(tmp, { force: true });
  }
  await rm(log, { force: true });
}
