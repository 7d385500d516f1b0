// kuberuntime's SyncPod (kubelet kuberuntime_manager.go SyncPod / computePodActions / doBackOff):
// one reconciliation of a pod's containers with the runtime once its sandbox is up and its status
// stored — the RestartAllContainers reset, kills the probes asked for, the pod killed when no
// regular container will run again, then init containers in order, regular containers and
// ephemeral containers started, restarts held back by CrashLoopBackOff. The sandbox, the start and
// the kill of one container are their own files; the node's side comes through a RuntimeHelper.
import { formatPod } from "../api/format-pod.js";
import { allContainersCouldRestart, containerShouldRestart, shouldAllContainersRestart } from "../api/container-should-restart.js";
import { allContainers, isRestartableInitContainer } from "../api/pod-rules.js";
import type { Container, ContainerStatus, Pod } from "../api/types.js";
import type { CommandRunner } from "../probe/command-runner.js";
import { formatGoDuration } from "../probe/go-duration.js";
import type { EventRecorder } from "../prober/event-recorder.js";
import type { ProbeManager } from "../prober/manager.js";
import type { ContainerInfo, Runtime } from "../runtime/runtime.js";
import type { Clock } from "../util/clock.js";
import type { Logger } from "../util/logger.js";
import { computeContainerActions, type PodActions } from "./container-actions.js";
import { containerHash } from "./container-hash.js";
import { groupInstances, type ContainerInstances } from "./container-instance-groups.js";
import { ContainerKiller, fullContainerId } from "./container-kill.js";
import { ContainerStarter } from "./container-start.js";
import type { RestartBackoff } from "./crash-loop-backoff.js";
import type { ImageManager } from "./image-manager.js";
import { ANNOTATION_CONTAINER_HASH } from "./labels.js";
import { PodSandboxes } from "./pod-sandbox.js";
import type { PodRecord } from "./pod-record.js";
import { containersToReset } from "./restart-all-containers.js";
import type { RuntimeHelper } from "./runtime-helper.js";
import { withTerminationMessage } from "./termination-message.js";

/** KubeRuntimeManagerDeps are the runtime manager's collaborators. */
export interface KubeRuntimeManagerDeps {
  runtime: Runtime;
  /** EnsureImageExists before each container start; none when the runtime has no images (the process runtime). */
  images?: ImageManager;
  /** Runs hook commands; takes full "<type>://<id>" container IDs. */
  runner: CommandRunner;
  /** The liveness and startup results that decide kills (computePodActions). */
  probeManager: ProbeManager;
  events: EventRecorder;
  /** CrashLoopBackOff, per pod, container and spec hash. */
  backoff: RestartBackoff;
  clock: Clock;
  logger: Logger;
  /** Root of container logs: <logRoot>/<namespace>_<name>_<uid>/<container>/<attempt>.log. */
  logRoot: string;
  /** This agent's owner label value (agent-id.ts), put on every sandbox it creates. */
  agentId: string;
  helper: RuntimeHelper;
}

/** KubeRuntimeManager reconciles pods' containers with the runtime. */
export class KubeRuntimeManager {
  /** The pods' sandboxes. */
  readonly sandboxes: PodSandboxes;
  private readonly killer: ContainerKiller;
  private readonly starter: ContainerStarter;

  constructor(private readonly d: KubeRuntimeManagerDeps) {
    this.killer = new ContainerKiller(d);
    this.starter = new ContainerStarter({ ...d, killer: this.killer });
    this.sandboxes = new PodSandboxes({ ...d, instances: (record) => this.instances(record) });
  }

  /**
   * instances lists the sandbox's containers grouped by name, newest first; an exited one carries
   * its termination message (kubelet getPodContainerStatuses → convertToKubeContainerStatus),
   * read once per instance.
   */
  async instances(record: PodRecord): Promise<Map<string, ContainerInstances>> {
    if (!record.sandboxId) return new Map();
    const listed = await this.d.runtime.listContainers({ podSandboxId: record.sandboxId });
    const before = record.exitedInfos ?? new Map<string, ContainerInfo>();
    const exited = new Map<string, ContainerInfo>();
    const infos = listed.map((info) => {
      if (info.state !== "exited") return info;
      const done = before.get(info.id) ?? withTerminationMessage(info);
      exited.set(info.id, done);
      return done;
    });
    record.exitedInfos = exited;
    return groupInstances(infos);
  }

  /**
   * syncPod brings the pod's containers closer to its spec, given the runtime's view the sync
   * began with (`groups`), and returns the view it leaves (the caller stores the status from it).
   */
  async syncPod(record: PodRecord, groups: Map<string, ContainerInstances>, grace: number): Promise<Map<string, ContainerInstances>> {
    if (await this.restartAllContainers(record, groups)) groups = await this.instances(record);
    const actions = this.computeActions(record, groups);
    // kuberuntime_manager.go doBackOff reads the pod status the sync started with: for a container
    // this sync kills and starts again, that is its newest instance that had already exited (none:
    // no back-off), not the one just killed.
    const backOffBasis = new Map<string, ContainerInfo | undefined>();
    for (const d of actions.decisions) if (d.action === "kill" && d.restart) backOffBasis.set(d.name, groups.get(d.name)?.previous);
    if (await this.killFailedProbes(record, groups, actions)) groups = await this.instances(record);
    if (actions.killPod) {
      // kubelet computePodActions KillPod: no regular container will run again, so the
      // sidecars stop in this sync (in reverse order). SyncPod stores the status first,
      // so the pod reads Running while a sidecar still runs.
      await this.d.helper.storeStatus(record, groups);
      await this.killer.killPod(record, groups, grace);
      return this.instances(record);
    }
    const creationsBefore = this.starter.creations;
    const initDone = await this.syncInitContainers(record, groups, backOffBasis);
    // kubelet computePodActions: a container killed "will be restarted" is in ContainersToStart
    // whatever exit code the kill left.
    const killedToStart = new Set(actions.decisions.flatMap((d) => (d.action === "kill" && d.restart && !d.sidecar ? [d.name] : [])));
    if (initDone) await this.syncRegularContainers(record, groups, killedToStart, backOffBasis);
    await this.startEphemeralContainers(record, groups);
    if (this.starter.creations !== creationsBefore) groups = await this.instances(record);
    return groups;
  }

  /** killPod stops every running container of the pod within one grace period (killContainersWithSyncResult). */
  killPod(record: PodRecord, groups: Map<string, ContainerInstances>, grace: number): Promise<void> {
    return this.killer.killPod(record, groups, grace);
  }

  /**
   * computeActions runs computePodActions over the runtime's view: running regular containers and
   * sidecars with their probe results, exited regular containers with their exit codes (which
   * decide whether they restart, and so whether the pod is done).
   */
  private computeActions(record: PodRecord, groups: Map<string, ContainerInstances>): PodActions {
    const pod = record.pod;
    const observed = (specs: readonly Container[], withExited: boolean): ContainerStatus[] =>
      specs.flatMap((c): ContainerStatus[] => {
        const cur = groups.get(c.name)?.current;
        const base = { name: c.name, containerID: cur ? fullContainerId(this.d.runtime, cur) : "", ready: false, restartCount: cur?.attempt ?? 0 };
        if (cur?.state === "running") return [{ ...base, state: { running: { startedAt: new Date(cur.startedAt).toISOString() } } }];
        if (withExited && cur?.state === "exited") return [{ ...base, state: { terminated: { exitCode: cur.exitCode } } }];
        if (withExited && cur) return [{ ...base, state: { waiting: {} } }];
        return [];
      });
    return computeContainerActions({
      pod,
      containerStatuses: observed(pod.spec.containers, true),
      initContainerStatuses: observed((pod.spec.initContainers ?? []).filter(isRestartableInitContainer), false),
      liveness: this.d.probeManager.livenessManager,
      startup: this.d.probeManager.startupManager,
      specChanged: (name) => {
        const spec = allContainers(pod).find((c) => c.name === name);
        const cur = groups.get(name)?.current;
        return !!spec && !!cur && cur.annotations[ANNOTATION_CONTAINER_HASH] !== containerHash(spec);
      },
    });
  }

  /**
   * restartAllContainers carries out a RestartAllContainers reset (KEP-5532) when one is asked for:
   * as the kubelet's SyncPod, the status saying AllContainersRestarting True is stored first;
   * then every instance of every container is removed (its log kept), a running one killed
   * first without grace, the ones whose exit asked for it last (computePodActions,
   * ContainersToReset); then the status of the emptied pod is stored (the kubelet's next sync,
   * which it requeues at once), and this sync goes on to start the pod again from its first
   * init container. Returns whether it reset the pod.
   */
  private async restartAllContainers(record: PodRecord, groups: Map<string, ContainerInstances>): Promise<boolean> {
    const pod = record.pod;
    if (!allContainersCouldRestart(pod.spec) || !record.sandboxId) return false;
    const previous = this.d.helper.storedStatus(pod.metadata.uid ?? "");
    if (!shouldAllContainersRestart(pod, newestExit(groups), previous) || cleanedUp(pod, groups)) return false;
    await this.d.helper.storeStatus(record, groups);
    for (const reset of containersToReset(pod, await this.d.runtime.listContainers({ podSandboxId: record.sandboxId }))) {
      // kuberuntime_manager.go SyncPod: killContainer(…, "killing", reasonRestartAllContainers, grace 0).
      if (reset.kill) await this.killer.killContainer(record, reset.spec, reset.info, "killing", undefined, 0);
      await this.d.runtime.removeContainer(reset.info.id);
    }
    record.startErrors.clear();
    await this.d.helper.storeStatus(record, await this.instances(record));
    return true;
  }

  /** killFailedProbes kills running containers whose liveness or startup probe failed (§G.4). */
  private async killFailedProbes(record: PodRecord, groups: Map<string, ContainerInstances>, actions: PodActions): Promise<boolean> {
    const pod = record.pod;
    const kills = actions.decisions.filter((d) => d.action === "kill");
    await Promise.all(
      kills.map(async (k) => {
        const spec = allContainers(pod).find((c) => c.name === k.name);
        const info = groups.get(k.name)?.current;
        if (spec && info) await this.killer.killContainer(record, spec, info, k.message, k.reason);
      }),
    );
    return kills.length > 0;
  }

  /**
   * syncInitContainers runs init containers in order: plain ones to completion, sidecars started
   * (and, with a startup probe, started-by-probe) before the next. Returns whether all are done.
   */
  private async syncInitContainers(record: PodRecord, groups: Map<string, ContainerInstances>, backOffBasis: BackOffBasis): Promise<boolean> {
    const pod = record.pod;
    for (const spec of pod.spec.initContainers ?? []) {
      const cur = groups.get(spec.name)?.current;
      if (isRestartableInitContainer(spec)) {
        if (cur?.state === "running") {
          if (spec.startupProbe && this.d.probeManager.startupManager.get(fullContainerId(this.d.runtime, cur)) !== "Success") return false;
          continue;
        }
        await this.startOrBackOff(record, spec, cur, backOffBasis);
        return false;
      }
      if (!cur) {
        await this.starter.start(record, spec, undefined);
        return false;
      }
      if (cur.state !== "exited") return false;
      if (cur.exitCode === 0) continue;
      if (!containerShouldRestart(spec, pod.spec, cur.exitCode)) return false;
      await this.startOrBackOff(record, spec, cur, backOffBasis);
      return false;
    }
    return true;
  }

  /**
   * syncRegularContainers starts missing containers and restarts exited ones per
   * ContainerShouldRestart, or because this sync killed them to restart (`killedToStart`).
   */
  private async syncRegularContainers(record: PodRecord, groups: Map<string, ContainerInstances>, killedToStart: ReadonlySet<string>, backOffBasis: BackOffBasis): Promise<void> {
    const pod = record.pod;
    // Sidecars that died after initialisation are restarted too (they always restart).
    for (const spec of (pod.spec.initContainers ?? []).filter(isRestartableInitContainer)) {
      const cur = groups.get(spec.name)?.current;
      if (cur && cur.state !== "running") await this.startOrBackOff(record, spec, cur, backOffBasis);
    }
    await Promise.all(
      pod.spec.containers.map(async (spec) => {
        const cur = groups.get(spec.name)?.current;
        if (!cur) return this.starter.start(record, spec, undefined);
        if (cur.state !== "exited") return;
        if (!killedToStart.has(spec.name) && !containerShouldRestart(spec, pod.spec, cur.exitCode)) return;
        return this.startOrBackOff(record, spec, cur, backOffBasis);
      }),
    );
  }

  /**
   * startEphemeralContainers starts each ephemeral container that never ran (kubelet
   * computePodActions EphemeralContainersToStart, SyncPod step 7): once, after the regular
   * containers, never restarted when it exits.
   */
  private async startEphemeralContainers(record: PodRecord, groups: Map<string, ContainerInstances>): Promise<void> {
    for (const spec of record.pod.spec.ephemeralContainers ?? []) {
      if (groups.get(spec.name)?.current === undefined) await this.starter.start(record, spec, undefined);
    }
  }

  /**
   * startOrBackOff restarts an exited container unless CrashLoopBackOff holds it (kubelet
   * doBackOff). The back-off is measured from the finish of the newest exited instance in the
   * status the sync started with: `cur`, or for a container this sync killed, its entry in
   * `backOffBasis` (no earlier exited instance: no back-off, and the back-off is not raised).
   */
  private async startOrBackOff(record: PodRecord, spec: Container, cur: ContainerInfo | undefined, backOffBasis: BackOffBasis): Promise<void> {
    const pod = record.pod;
    if (cur && cur.state !== "exited") return;
    const basis = backOffBasis.has(spec.name) ? backOffBasis.get(spec.name) : cur;
    if (basis && basis.state === "exited") {
      const key = `${pod.metadata.uid ?? ""}/${spec.name}/${containerHash(spec)}`;
      if (this.d.backoff.inBackoffSince(key, basis.finishedAt)) {
        const remaining = this.d.backoff.remainingMs(key, basis.finishedAt);
        record.backoffRemainingMs = Math.min(record.backoffRemainingMs ?? remaining, remaining);
        const delay = formatGoDuration(this.d.backoff.delayMs(key));
        this.d.events.event({ pod, containerName: spec.name }, "Warning", "BackOff", `Back-off restarting failed container ${spec.name} in pod ${formatPod(pod)}`);
        (record.backOffReasons ??= new Map()).set(spec.name, { reason: "CrashLoopBackOff", message: `back-off ${delay} restarting failed container=${spec.name} pod=${formatPod(pod)}` });
        return;
      }
      this.d.backoff.next(key, basis.finishedAt);
    }
    await this.starter.start(record, spec, cur);
  }
}

/**
 * BackOffBasis: for each container a sync killed to start again, its newest instance that had
 * exited before the kill (undefined when it had none), from the runtime's view at the sync's start.
 */
type BackOffBasis = ReadonlyMap<string, ContainerInfo | undefined>;

/** newestExit reads a container's exit code from its newest instance, when that one exited. */
export function newestExit(groups: Map<string, ContainerInstances>): (name: string) => number | undefined {
  return (name) => {
    const current = groups.get(name)?.current;
    return current?.state === "exited" ? current.exitCode : undefined;
  };
}

/** cleanedUp: no container of the pod has an instance left (kubelet AllContainersRestartCleanedUp). */
export function cleanedUp(pod: Pod, groups: Map<string, ContainerInstances>): boolean {
  return allContainers(pod).every((c) => groups.get(c.name)?.current === undefined);
}
