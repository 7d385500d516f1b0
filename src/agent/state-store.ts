// StateStore: what the agent persists in its state directory so that a restarted agent picks up
// where it left off: pods created through the API (manifest pods come back from their files),
// and the last published status of every pod (restart counts, readiness, started flags), which a
// restarted agent uses as the kubelet uses the API server's copy (§I.1). Writes are atomic
// (write to a temporary file, then rename), owner-only (0600 files, 0700 directories) and
// coalesced per pod.
import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Pod, PodStatus } from "../api/types.js";
import { writeFileAtomic as atomicWrite } from "../util/atomic-file.js";
import type { Logger } from "../util/logger.js";

/** StateStore reads and writes the agent's persistent state under `<stateDir>/state`. */
export class StateStore {
  private readonly dir: string;
  private readonly pendingStatus = new Map<string, PodStatus>();
  private flushing: Promise<void> | undefined;
  /** The newest API pod list not yet written, and the write in progress. */
  private pendingApiPods: readonly Pod[] | undefined;
  private writingApiPods: Promise<void> | undefined;
  private ready: Promise<void> | undefined;

  constructor(
    stateDir: string,
    private readonly logger: Logger,
  ) {
    this.dir = join(stateDir, "state");
  }

  private ensureDirs(): Promise<void> {
    this.ready ??= mkdir(join(this.dir, "status"), { recursive: true, mode: 0o700 }).then(() => undefined);
    return this.ready;
  }

  /** loadStatuses returns the last saved status of every pod, by UID. */
  async loadStatuses(): Promise<Map<string, PodStatus>> {
    const out = new Map<string, PodStatus>();
    const dir = join(this.dir, "status");
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names.filter((n) => n.endsWith(".json"))) {
      try {
        out.set(name.slice(0, -".json".length), JSON.parse(await readFile(join(dir, name), "utf8")) as PodStatus);
      } catch (err) {
        this.logger.warn("Ignoring unreadable saved pod status", { file: name, err });
      }
    }
    return out;
  }

  /** saveStatus queues a pod's status for writing; only the newest queued status is written. */
  saveStatus(uid: string, status: PodStatus): void {
    this.pendingStatus.set(uid, status);
    this.flushing ??= this.flush().finally(() => (this.flushing = undefined));
  }

  /** forgetPod deletes a pod's saved status (the pod is gone for good). */
  async forgetPod(uid: string): Promise<void> {
    this.pendingStatus.delete(uid);
    await this.flushing;
    await rm(join(this.dir, "status", `${uid}.json`), { force: true });
  }

  /** loadApiPods returns the pods that were created through the API. */
  async loadApiPods(): Promise<Pod[]> {
    try {
      return JSON.parse(await readFile(join(this.dir, "api-pods.json"), "utf8")) as Pod[];
    } catch {
      return [];
    }
  }

  /**
   * saveApiPods records the pods created through the API. Saves coalesce: one write at a time
   * (they share the temporary file), and only the newest list waiting is written.
   */
  saveApiPods(pods: readonly Pod[]): Promise<void> {
    this.pendingApiPods = pods;
    this.writingApiPods ??= this.writeApiPods().finally(() => (this.writingApiPods = undefined));
    return this.writingApiPods;
  }

  private async writeApiPods(): Promise<void> {
    await this.ensureDirs();
    for (let pods = this.pendingApiPods; pods !== undefined; pods = this.pendingApiPods) {
      this.pendingApiPods = undefined;
      await atomicWrite(join(this.dir, "api-pods.json"), JSON.stringify(pods));
    }
  }

  /** idle resolves once every queued write is on disk. */
  async idle(): Promise<void> {
    while (this.flushing || this.writingApiPods) await Promise.all([this.flushing, this.writingApiPods?.catch(() => undefined)]);
  }

  private async flush(): Promise<void> {
    await this.ensureDirs();
    while (this.pendingStatus.size > 0) {
      const [uid, status] = this.pendingStatus.entries().next().value as [string, PodStatus];
      this.pendingStatus.delete(uid);
      try {
        await atomicWrite(join(this.dir, "status", `${uid}.json`), JSON.stringify(status));
      } catch (err) {
        this.logger.warn("Cannot save pod status", { podUID: uid, err });
      }
    }
  }
}
