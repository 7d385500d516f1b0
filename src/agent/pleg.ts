// The kubelet's pod lifecycle event generator (pkg/kubelet/pleg/generic.go relist) and its view
// of the runtime's health (pkg/kubelet/runtime.go runtimeState): one container list per period,
// the pods whose containers appeared or changed state picked out by each container's state (one
// that only vanished wakes none), and the runtime going down and coming back noted once each.
import type { Runtime } from "../runtime/runtime.js";
import { formatGoDuration } from "../probe/go-duration.js";
import type { Clock } from "../util/clock.js";
import type { Logger } from "../util/logger.js";
import { formatRuntimeErrors, RuntimeState } from "./runtime-state.js";

/** RelistedPod is a pod the relist may wake: its sandbox and how to sync it. */
export interface RelistedPod {
  sandboxId: string | undefined;
  queueSync(): void;
}

/** Pleg relists the runtime's containers and tracks whether the runtime answers. */
export class Pleg {
  readonly runtimeState = new RuntimeState();
  /** Since when pod syncs are skipped because the runtime is down (undefined while it is up). */
  runtimeDownSince: number | undefined;
  /** The last relist's containers per sandbox: each one's state by container ID. */
  private readonly relisted = new Map<string, Map<string, string>>();

  constructor(
    private readonly runtime: Runtime,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** relist syncs the pods whose containers appeared or changed state since the last relist. */
  async relist(pods: Iterable<RelistedPod>): Promise<void> {
    let infos;
    try {
      infos = await this.runtime.relistContainers();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (message !== this.runtimeState.lastErrorMessage) this.logger.warn("Relisting containers failed", { err: message });
      this.runtimeState.failed(message);
      return;
    }
    this.runtimeState.synced(this.clock.now());
    // generic.go Relist compares each container's state by its ID (computeEvents), so the order in
    // which the runtime lists them means nothing (containerd's varies from call to call). A
    // container that only vanished (garbage collection) is a ContainerRemoved event, which wakes
    // no pod (kubelet.go isSyncPodWorthy).
    const seen = new Map<string, Map<string, string>>();
    for (const info of infos) {
      const states = seen.get(info.podSandboxId) ?? new Map<string, string>();
      states.set(info.id, info.state);
      seen.set(info.podSandboxId, states);
    }
    for (const pod of pods) {
      if (pod.sandboxId === undefined) continue;
      const now = seen.get(pod.sandboxId) ?? new Map<string, string>();
      const before = this.relisted.get(pod.sandboxId);
      this.relisted.set(pod.sandboxId, now);
      if (before === undefined || [...now].some(([id, state]) => before.get(id) !== state)) pod.queueSync();
    }
  }

  /** noteRuntimeState logs the runtime going down or coming back and reports whether pods may sync. */
  noteRuntimeState(now: number): boolean {
    const errors = this.runtimeState.errors(now);
    if (errors.length === 0) {
      if (this.runtimeDownSince !== undefined) this.logger.warn("Container runtime is up again; syncing every pod", { downFor: formatGoDuration(now - this.runtimeDownSince) });
      this.runtimeDownSince = undefined;
      return true;
    }
    if (this.runtimeDownSince === undefined) {
      this.runtimeDownSince = now;
      this.logger.error("Skipping pod synchronization", { err: formatRuntimeErrors(errors), cause: this.runtimeState.lastErrorMessage });
    }
    return false;
  }
}
