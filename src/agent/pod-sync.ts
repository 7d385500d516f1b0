// PodSyncer: one reconciliation of one pod against the runtime, in the kubelet's order
// (kubelet kuberuntime_manager.go SyncPod / computePodActions, kuberuntime_container.go
// startContainer / killContainer, kubelet.go SyncTerminatingPod). The pod worker serialises
// calls per pod; this file holds the decisions and the runtime calls.
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { DEFAULT_TERMINATION_MESSAGE_PATH } from "../api/defaults.js";
import { formatPod } from "../api/format-pod.js";
import { parseQuantity } from "../api/quantity.js";
import { allContainers, isPodPhaseTerminal, isRestartableInitContainer } from "../api/pod-rules.js";
import type { Container, ContainerStatus, Pod, PodStatus } from "../api/types.js";
import type { CommandRunner } from "../probe/command-runner.js";
import { formatGoDuration } from "../probe/go-duration.js";
import type { ProbeManager } from "../prober/manager.js";
import { computeContainerActions } from "../kuberuntime/container-actions.js";
import { containerSecurity, imageUserNeeded, verifyRunAsNonRoot } from "../kuberuntime/security-context.js";
import type { ImageManager } from "../kuberuntime/image-manager.js";
import type { PodActions, ProbeKillReason } from "../kuberuntime/container-actions.js";
import { allContainersCouldRestart, containerShouldRestart, shouldAllContainersRestart } from "../api/container-should-restart.js";
import { containersToReset } from "../kuberuntime/restart-all-containers.js";
import { hasSidecars, TerminationOrdering } from "../kuberuntime/termination-ordering.js";
import { killGracePeriodSeconds, remainingGraceAfterPreStop } from "../kuberuntime/grace-period.js";
import {
  ANNOTATION_TERMINATION_MESSAGE_PATH,
  ANNOTATION_TERMINATION_MESSAGE_POLICY,
  terminationMessageHostPath,
  withTerminationMessage,
} from "../kuberuntime/termination-message.js";
import type { ContainerConfig, ContainerInfo, ContainerSecurity, KeyValue, Mount, PodSandboxConfig, Runtime } from "../runtime/runtime.js";
import { RuntimeError } from "../runtime/runtime.js";
import { formatConditionTime, generatePodReadyToStartContainersCondition, updateCondition, type SandboxNotReadyMessage } from "../status/generate.js";
import type { StatusManager } from "../status/status-manager.js";
import type { Clock } from "../util/clock.js";
import type { Logger } from "../util/logger.js";
import { LABEL_AGENT } from "../kuberuntime/agent-id.js";
import { ANNOTATION_CONTAINER_HASH, ANNOTATION_RESTART_COUNT, LABEL_CONTAINER_NAME, LABEL_POD_NAME, LABEL_POD_NAMESPACE, LABEL_POD_UID } from "../kuberuntime/labels.js";
import type { RestartBackoff } from "./crash-loop-backoff.js";
import { expandCommandAndArgs, resolveContainerEnv } from "./container-env.js";
import type { ConfigObjects } from "../volumes/config-objects.js";
import type { NodeAllocatable } from "../volumes/downward-api.js";
import { MountError, type PodVolumes } from "../volumes/pod-volumes.js";
import type { ServiceAccountTokenSource } from "../volumes/service-account-tokens.js";
import type { EventStore } from "./kube-events.js";
import { POST_START_HOOK_ERROR, POST_START_HOOK_FAILED, PRE_STOP_HOOK_FAILED, runLifecycleHook } from "../kuberuntime/lifecycle-hooks.js";
import { DEADLINE_EXCEEDED_MESSAGE, DEADLINE_EXCEEDED_REASON, evictPastDeadline } from "./active-deadline.js";
import { podSysctls } from "./node-admit-handlers.js";
import type { ServiceSource } from "./service-env.js";
import { podHostnameAndDomain, shouldMountHostsFile, writeHostsFile } from "./pod-hosts.js";
import { containerHash } from "./pod-uid.js";
import { buildPodStatus, containerStatus, defaultWaitingReason, groupInstances, keepLostHistory, refreshReadyConditions, removedByRestartAll, type ContainerInstances, type Waiting } from "./pod-status.js";
import { restartCountFromLogDir } from "./log-restart-count.js";

/**
 * The longest a postStart hook may run. The kubelet sets no bound (startContainer waits for the
 * hook as long as it takes, and only a pod deletion cancels it); probelet gives up after 30 s and
 * fails the hook, so a hung hook cannot hold its pod's worker, and a deletion, indefinitely.
 */
const POST_START_HOOK_BOUND_MS = 30_000;

/**
 * How soon a pod whose volumes or container config could not be made is synced again (the
 * kubelet's pod workers retry an errored sync after backOffPeriod, 10 s; a change of a referenced
 * ConfigMap or Secret syncs it at once).
 */
export const CONFIG_RETRY_MS = 10_000;

/**
 * TERMINATION_MESSAGE_ENV names the host file of the termination message in a process-runtime
 * container's environment: the process runtime cannot bind a file at terminationMessagePath, so
 * the container writes its message to "$PROBELET_TERMINATION_MESSAGE_PATH" instead.
 */
export const TERMINATION_MESSAGE_ENV = "PROBELET_TERMINATION_MESSAGE_PATH";

/** PodRecord is the agent's state for one pod. */
export interface PodRecord {
  /** The desired pod; deletionTimestamp is set once deletion has begun. */
  pod: Pod;
  /** Where the pod came from ("file:<path>", "dir:<path>", "api"). */
  source: string;
  sandboxId?: string;
  sandboxConfig?: PodSandboxConfig;
  podIP: string;
  /** When the agent first admitted the pod (ms). */
  startTime: number;
  /** Set once the process runtime's ImageIgnored event was recorded for the pod. */
  imageNoted?: boolean;
  /** Containers whose unbindable terminationMessagePath was already warned about. */
  messagePathWarned?: Set<string>;
  /** Waiting reasons decided by the last start attempt, by container name. */
  startErrors: Map<string, Waiting>;
  /**
   * CrashLoopBackOff reasons the last sync decided, by container name: they join startErrors
   * when the next sync begins. The kubelet's SyncPod stores the pod's status
   * (generateAPIPodStatus, from the reasonCache) before kuberuntime's SyncPod decides the
   * back-off and updates the reasonCache (kubelet.go SyncPod, kuberuntime_manager.go SyncPod), so
   * a container held back reads terminated until its pod is synced again.
   */
  backOffReasons?: Map<string, Waiting>;
  /** Host path of every volume of the pod, by volume name, once set up. */
  volumePaths?: Map<string, string>;
  /** Set by a sync that held a restart back: the shortest remaining back-off (ms). */
  backoffRemainingMs?: number | undefined;
  /** When a requeue for the back-off is scheduled (ms since epoch). */
  requeueAt?: number | undefined;
  /** Set once the sandbox of a pod in a terminal phase was stopped (kubelet SyncTerminatingPod). */
  sandboxStopped?: boolean;
  /**
   * Set once every container of the pod was stopped for good (SyncTerminatingPod done): until
   * then the pod could have running containers, and the store keeps its phase from turning
   * terminal (status_manager.go mergePodStatus, couldHaveRunningContainers).
   */
  containersStopped?: boolean;
  /** Exited instances' messages with their termination messages, by container ID (an exited instance never changes). */
  exitedInfos?: Map<string, ContainerInfo>;
}

/** PodSyncerDeps are the syncer's collaborators. */
export interface PodSyncerDeps {
  runtime: Runtime;
  /** EnsureImageExists before each container start; none when the runtime has no images (the process runtime). */
  images?: ImageManager;
  /** Runs hook commands; takes full "<type>://<id>" container IDs. */
  runner: CommandRunner;
  probeManager: ProbeManager;
  statusManager: StatusManager;
  events: EventStore;
  backoff: RestartBackoff;
  clock: Clock;
  logger: Logger;
  /** Root of container logs: <logRoot>/<namespace>_<name>_<uid>/<container>/<attempt>.log. */
  logRoot: string;
  hostIP: string;
  nodeName: string;
  /** This agent's owner label value (agent-id.ts), put on every sandbox it creates. */
  agentId: string;
  /** Where ConfigMaps and Secrets are read (env sources and volumes). */
  configObjects: ConfigObjects;
  /** The pods' volume directories. */
  volumes: PodVolumes;
  /** What an unset container limit stands for in resourceFieldRef values. */
  nodeAllocatable: NodeAllocatable;
  /** The service-account tokens of projected volumes (cluster mode). */
  tokens?: ServiceAccountTokenSource;
  /** The cluster's services, for the containers' service variables (cluster mode). */
  services?: ServiceSource;
}

/** PodSyncer reconciles pods with the runtime. */
export class PodSyncer {
  /**
   * Container creations attempted so far, by any pod's sync. A sync lists its pod's containers
   * again before publishing only when this moved (conservative: another pod's start also counts).
   */
  private creations = 0;

  constructor(private readonly d: PodSyncerDeps) {}

  /** sync brings one running (not terminating) pod closer to its spec and publishes its status. */
  async sync(record: PodRecord): Promise<PodStatus> {
    const pod = record.pod;
    const grace = pod.spec.terminationGracePeriodSeconds ?? 30;
    if (isPodPhaseTerminal(this.d.statusManager.getPodStatus(pod.metadata.uid ?? "")?.phase)) return this.syncTerminal(record, grace);
    for (const [name, reason] of record.backOffReasons ?? []) record.startErrors.set(name, reason);
    record.backOffReasons?.clear();
    try {
      await this.ensureSandbox(record);
    } catch (err) {
      await this.sandboxFailed(record, err);
      throw err;
    }
    let groups = await this.instances(record);
    // kubelet.go SyncPod stores the status generated from what the sync found
    // (generateAPIPodStatus, SetPodStatus) before kuberuntime's SyncPod starts or kills anything:
    // a container found exited is stored terminated, not ready, before it is started again.
    await this.publish(record, groups);
    if (!(await this.setUpVolumes(record))) return this.publish(record, groups);
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
      // sidecars stop in this sync (in reverse order). SyncPod publishes the status first,
      // so the pod reads Running while a sidecar still runs.
      await this.publish(record, groups);
      await this.killPod(record, groups, grace);
      return this.publishAndStopWhenTerminal(record, await this.instances(record), grace);
    }
    const creationsBefore = this.creations;
    const initDone = await this.syncInitContainers(record, groups, backOffBasis);
    // kubelet computePodActions: a container killed "will be restarted" is in ContainersToStart
    // whatever exit code the kill left.
    const killedToStart = new Set(actions.decisions.flatMap((d) => (d.action === "kill" && d.restart && !d.sidecar ? [d.name] : [])));
    if (initDone) await this.syncRegularContainers(record, groups, killedToStart, backOffBasis);
    await this.startEphemeralContainers(record, groups);
    if (this.creations !== creationsBefore) groups = await this.instances(record);
    return this.publishAndStopWhenTerminal(record, groups, grace);
  }

  /**
   * publishAndStopWhenTerminal publishes the status; when its phase is terminal, the pod is
   * terminated at once: the kubelet's pod worker moves a pod whose phase is Succeeded or Failed to
   * SyncTerminatingPod, whose KillPod (kuberuntime_manager.go killPodWithSyncResult) stops every
   * container and then the sandbox, and the next status reads PodReadyToStartContainers False.
   */
  private async publishAndStopWhenTerminal(record: PodRecord, groups: Map<string, ContainerInstances>, grace: number): Promise<PodStatus> {
    const status = await this.publish(record, groups);
    return isPodPhaseTerminal(status.phase) ? this.syncTerminal(record, grace) : status;
  }

  /**
   * syncTerminal keeps a pod in a terminal phase as the kubelet leaves it: nothing running (a
   * sidecar is stopped), the sandbox stopped but kept with its containers until the pod is
   * deleted (kubelet SyncTerminatingPod / killPodWithSyncResult), PodReadyToStartContainers False.
   */
  private async syncTerminal(record: PodRecord, grace: number): Promise<PodStatus> {
    const uid = record.pod.metadata.uid ?? "";
    const previous = this.d.statusManager.getPodStatus(uid);
    // Nothing of the pod is left in the runtime (a restarted agent on the process runtime): its
    // final status stays as it was, not rebuilt from no containers at all.
    if (!record.sandboxId && !(await this.adoptSandbox(record, uid, true)) && previous) {
      record.containersStopped = true;
      return previous;
    }
    await this.killPod(record, await this.instances(record), grace);
    if (record.sandboxId && !record.sandboxStopped) {
      await this.d.runtime.stopPodSandbox(record.sandboxId);
      record.sandboxStopped = true;
    }
    record.containersStopped = true;
    return this.publish(record, await this.instances(record));
  }

  /**
   * setUpVolumes creates or refreshes the pod's volumes (kubelet SyncPod WaitForAttachAndMount,
   * before any container starts); configMap and secret volumes follow their objects on every sync.
   * A volume that fails gets the kubelet's FailedMount warning. If it was never set up, the
   * pod's containers are held back (they wait as ContainerCreating) and the pod is synced again
   * after CONFIG_RETRY_MS; a volume set up before keeps its last content and the pod goes on (the
   * kubelet's mounted volume stays mounted when a refresh fails, e.g. its ConfigMap was deleted).
   */
  private async setUpVolumes(record: PodRecord): Promise<boolean> {
    // kubelet objectCache.Get: an object the API server has not listed yet is waited for (≤ 1 s).
    await this.d.configObjects.synced?.(record.pod);
    const result = await this.d.volumes.setUp({ pod: record.pod, objects: this.d.configObjects, addresses: this.addresses(record), node: this.d.nodeAllocatable, ...(this.d.tokens ? { tokens: this.d.tokens } : {}) });
    if (result.ok) {
      record.volumePaths = result.paths;
      return true;
    }
    for (const failure of result.failures) this.d.events.event({ pod: record.pod }, "Warning", "FailedMount", failure.message);
    const mounted = record.volumePaths;
    if (mounted && result.failures.every((f) => mounted.has(f.volume))) {
      for (const [name, path] of result.paths) mounted.set(name, path);
      return true;
    }
    this.retrySoon(record);
    return false;
  }

  private retrySoon(record: PodRecord): void {
    record.backoffRemainingMs = Math.min(record.backoffRemainingMs ?? CONFIG_RETRY_MS, CONFIG_RETRY_MS);
  }

  private addresses(record: PodRecord): { podIP: string; hostIP: string } {
    return { podIP: record.podIP, hostIP: this.d.hostIP };
  }

  /**
   * killPod stops every running container of the pod at once within one grace period (kubelet
   * killContainersWithSyncResult): with sidecars, a TerminationOrdering makes each sidecar wait
   * for the regular containers and the later sidecars, using up the same grace period.
   */
  private async killPod(record: PodRecord, groups: Map<string, ContainerInstances>, grace: number): Promise<void> {
    const pod = record.pod;
    // Ephemeral containers stop with the rest (the kubelet kills every running container of the pod).
    const running = [...allContainers(pod), ...(pod.spec.ephemeralContainers ?? [])].filter((c) => groups.get(c.name)?.current?.state === "running");
    const ordering = hasSidecars(pod) ? new TerminationOrdering(pod, running.map((c) => c.name), this.d.clock) : undefined;
    await Promise.all(running.map((spec) => this.killContainer(record, spec, groups.get(spec.name)!.current!, `Stopping container ${spec.name}`, undefined, grace, ordering)));
  }

  /**
   * ensureSandbox creates the pod's sandbox on first sync or when it is no longer ready. As the
   * kubelet's SyncPod, the pod's status is stored first (generateAPIPodStatus before the runtime
   * is asked): Pending, containers waiting, PodReadyToStartContainers False with why. Once the
   * sandbox is up, its condition turns True at once (OnPodSandboxReady, kubelet 1.37).
   */
  private async ensureSandbox(record: PodRecord): Promise<void> {
    const pod = record.pod;
    const uid = pod.metadata.uid ?? "";
    let notReady: SandboxNotReadyMessage = "no pod sandbox exists";
    if (record.sandboxId) {
      const status = await this.d.runtime.podSandboxStatus(record.sandboxId).catch(() => undefined);
      if (status?.state === "ready") return;
      notReady = "pod sandbox is not ready";
    } else if (await this.adoptSandbox(record, uid)) {
      return;
    }
    await this.publish(record, await this.instances(record).catch(() => new Map<string, ContainerInstances>()), notReady);
    const config: PodSandboxConfig = {
      podUid: uid,
      name: pod.metadata.name ?? "",
      namespace: pod.metadata.namespace ?? "default",
      attempt: record.sandboxConfig ? record.sandboxConfig.attempt + 1 : 0,
      hostNetwork: pod.spec.hostNetwork ?? false,
      logDirectory: this.logDirectory(pod),
      labels: { [LABEL_POD_UID]: uid, [LABEL_POD_NAME]: pod.metadata.name ?? "", [LABEL_POD_NAMESPACE]: pod.metadata.namespace ?? "default", [LABEL_AGENT]: this.d.agentId },
      annotations: {},
      // kuberuntime_sandbox.go generatePodSandboxConfig: the host name, and the pod's sysctls.
      hostname: podHostnameAndDomain(pod).hostname,
      sysctls: Object.fromEntries(podSysctls(pod).map((s) => [s.name, s.value])),
      // HasPrivilegedContainer: a privileged container needs a privileged sandbox.
      ...([...allContainers(pod), ...(pod.spec.ephemeralContainers ?? [])].some((c) => c.securityContext?.["privileged"] === true) ? { privileged: true } : {}),
    };
    record.sandboxId = await this.d.runtime.runPodSandbox(config);
    record.sandboxConfig = config;
    record.sandboxStopped = false;
    record.podIP = (await this.d.runtime.podSandboxStatus(record.sandboxId)).podIP;
    this.sandboxReady(record);
  }

  /**
   * sandboxReady is the kubelet's OnPodSandboxReady (1.37): the stored status with
   * PodReadyToStartContainers True and nothing else changed, so the pod shows Pending with its
   * sandbox ready until its containers run.
   */
  private sandboxReady(record: PodRecord): void {
    const previous = this.d.statusManager.getPodStatus(record.pod.metadata.uid ?? "");
    if (previous === undefined) return;
    const status = structuredClone(previous);
    status.conditions = updateCondition(status.conditions, generatePodReadyToStartContainersCondition(), formatConditionTime(this.d.clock.now()));
    this.d.statusManager.setPodStatus(record.pod, status);
  }

  /** sandboxNotReady says why the pod has no ready sandbox, as far as the record knows; undefined when it has one. */
  private sandboxNotReady(record: PodRecord): SandboxNotReadyMessage | undefined {
    if (record.sandboxId === undefined) return "no pod sandbox exists";
    return record.sandboxStopped === true ? "pod sandbox is not ready" : undefined;
  }

  /**
   * sandboxFailed says why a pod has no sandbox, as the kubelet does: a runtime whose network is
   * not ready gets the NetworkNotReady event (kubelet.go SyncPod, checked before the runtime is
   * asked), any other failure FailedCreatePodSandBox (kuberuntime_manager.go SyncPod); the status
   * is published with the containers in their default waiting reason (ContainerCreating, or
   * PodInitializing with init containers) and PodReadyToStartContainers False, so the pod does
   * not stay Pending in silence. The sync's error is then logged and the pod retried at the next
   * resync.
   */
  private async sandboxFailed(record: PodRecord, err: unknown): Promise<void> {
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof RuntimeError && err.code === "NetworkNotReady") this.d.events.event({ pod: record.pod }, "Warning", "NetworkNotReady", message);
    else this.d.events.event({ pod: record.pod }, "Warning", "FailedCreatePodSandBox", `Failed to create pod sandbox: ${message}`);
    await this.publish(record, await this.instances(record).catch(() => new Map<string, ContainerInstances>()), this.sandboxNotReady(record) ?? "pod sandbox is not ready");
  }

  /**
   * adoptSandbox re-attaches a pod to the ready sandbox a previous agent left running (found by
   * the pod UID label), so its containers keep running and keep their restart counts.
   */
  private async adoptSandbox(record: PodRecord, uid: string, stoppedToo = false): Promise<boolean> {
    const filter = { ...(stoppedToo ? {} : { state: "ready" as const }), labels: { [LABEL_POD_UID]: uid } };
    const found = (await this.d.runtime.listPodSandboxes(filter)).sort((a, b) => b.createdAt - a.createdAt)[0];
    if (!found) return false;
    const pod = record.pod;
    record.sandboxId = found.id;
    record.sandboxConfig = {
      podUid: uid,
      name: found.name,
      namespace: found.namespace,
      attempt: found.attempt,
      hostNetwork: pod.spec.hostNetwork ?? false,
      logDirectory: this.logDirectory(pod),
      labels: found.labels,
      annotations: found.annotations,
    };
    record.podIP = found.podIP;
    record.sandboxStopped = found.state !== "ready";
    this.d.logger.info("Adopted running pod sandbox", { pod: pod.metadata.name, podUID: uid, sandbox: found.id });
    return true;
  }

  private logDirectory(pod: Pod): string {
    return `${this.d.logRoot}/${pod.metadata.namespace ?? "default"}_${pod.metadata.name ?? ""}_${pod.metadata.uid ?? ""}`;
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
   * computeActions runs computePodActions over the runtime's view: running regular containers and
   * sidecars with their probe results, exited regular containers with their exit codes (which
   * decide whether they restart, and so whether the pod is done).
   */
  private computeActions(record: PodRecord, groups: Map<string, ContainerInstances>): PodActions {
    const pod = record.pod;
    const observed = (specs: readonly Container[], withExited: boolean): ContainerStatus[] =>
      specs.flatMap((c): ContainerStatus[] => {
        const cur = groups.get(c.name)?.current;
        const base = { name: c.name, containerID: cur ? this.id(cur) : "", ready: false, restartCount: cur?.attempt ?? 0 };
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
    const previous = this.d.statusManager.getPodStatus(pod.metadata.uid ?? "");
    if (!shouldAllContainersRestart(pod, newestExit(groups), previous) || cleanedUp(pod, groups)) return false;
    await this.publish(record, groups);
    for (const reset of containersToReset(pod, await this.d.runtime.listContainers({ podSandboxId: record.sandboxId }))) {
      // kuberuntime_manager.go SyncPod: killContainer(…, "killing", reasonRestartAllContainers, grace 0).
      if (reset.kill) await this.killContainer(record, reset.spec, reset.info, "killing", undefined, 0);
      await this.d.runtime.removeContainer(reset.info.id);
    }
    record.startErrors.clear();
    await this.publish(record, await this.instances(record));
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
        if (spec && info) await this.killContainer(record, spec, info, k.message, k.reason);
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
          if (spec.startupProbe && this.d.probeManager.startupManager.get(this.id(cur)) !== "Success") return false;
          continue;
        }
        await this.startOrBackOff(record, spec, cur, backOffBasis);
        return false;
      }
      if (!cur) {
        await this.startContainer(record, spec, undefined);
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
        if (!cur) return this.startContainer(record, spec, undefined);
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
      if (groups.get(spec.name)?.current === undefined) await this.startContainer(record, spec, undefined);
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
    await this.startContainer(record, spec, cur);
  }

  /** startContainer creates and starts a new instance, then runs postStart (kubelet startContainer). */
  private async startContainer(record: PodRecord, spec: Container, previous: ContainerInfo | undefined): Promise<void> {
    const pod = record.pod;
    const target = { pod, containerName: spec.name };
    if (!(await this.ensureImage(record, spec))) return;
    const attempt = previous ? previous.attempt + 1 : await this.firstAttempt(record, spec);
    const env = resolveContainerEnv({ pod, addresses: this.addresses(record), objects: this.d.configObjects, node: this.d.nodeAllocatable, ...(this.d.services ? { services: this.d.services } : {}) }, spec);
    for (const warning of env.warnings) this.d.events.event({ pod }, "Warning", warning.reason, warning.message);
    if (!env.ok) return this.configFailed(record, spec, env.message);
    const mounts = await this.mountsFor(record, spec);
    if (typeof mounts === "string") return this.configFailed(record, spec, mounts);
    const security = containerSecurity(pod, spec);
    const refused = await this.securityRefused(pod, spec, security);
    if (refused !== undefined) return this.configFailed(record, spec, refused);
    const argv = expandCommandAndArgs(spec, env.env);
    if (this.d.runtime.type === "process" && record.imageNoted !== true) {
      // Where the kubelet records a Normal image event (Pulled) per start: once per pod, as Normal,
      // since every container must name an image and nothing is wrong with that.
      record.imageNoted = true;
      const images = [...new Set(allContainers(pod).map((c) => c.image ?? ""))].join(", ");
      this.d.events.event({ pod }, "Normal", "ImageIgnored", `The process runtime runs this pod's commands on this machine; its images are not used: ${images}`);
    }
    const logPath = `${spec.name}/${attempt}.log`;
    const messageMount = this.terminationMessageMount(record, spec, logPath);
    const hostsMount = this.hostsMount(record, spec);
    if (hostsMount instanceof Error) return this.configFailed(record, spec, hostsMount.message);
    // kubelet makeMounts: the volume mounts, the managed /etc/hosts, then the termination message
    // file. A process runtime that cannot mount (not root) gives the container
    // TERMINATION_MESSAGE_ENV only.
    const bindMessage = messageMount !== undefined && (await this.d.runtime.mountsUnsupportedReason()) === undefined;
    if (messageMount && !bindMessage) this.warnMessagePathUnbound(record, spec);
    const allMounts = [...mounts, ...(hostsMount ? [hostsMount] : []), ...(messageMount && bindMessage ? [messageMount] : [])];
    const config: ContainerConfig = {
      name: spec.name,
      attempt,
      image: spec.image ?? "",
      command: argv.command,
      args: argv.args,
      ...(spec.workingDir ? { workingDir: spec.workingDir } : {}),
      envs: this.withTerminationMessageEnv(env.env, messageMount),
      labels: { ...record.sandboxConfig!.labels, [LABEL_CONTAINER_NAME]: spec.name },
      // kubelet labels.go newContainerAnnotations: the termination message path and policy go with the container.
      annotations: {
        [ANNOTATION_CONTAINER_HASH]: containerHash(spec),
        [ANNOTATION_RESTART_COUNT]: String(attempt),
        [ANNOTATION_TERMINATION_MESSAGE_PATH]: spec.terminationMessagePath ?? "",
        [ANNOTATION_TERMINATION_MESSAGE_POLICY]: spec.terminationMessagePolicy ?? "",
      },
      logPath,
      ...(allMounts.length > 0 ? { mounts: allMounts } : {}),
      ...(security ? { security } : {}),
      ...memoryLimit(spec),
    };
    let id: string;
    this.creations++;
    try {
      id = await this.d.runtime.createContainer(record.sandboxId!, config, record.sandboxConfig!);
    } catch (err) {
      return this.startFailed(record, spec, "CreateContainerError", err);
    }
    // kuberuntime_container.go startContainer: the 1.37 texts name no container (the event's
    // involvedObject does).
    this.d.events.event(target, "Normal", "Created", "Container created");
    try {
      await this.d.runtime.startContainer(id);
    } catch (err) {
      return this.startFailed(record, spec, "RunContainerError", err);
    }
    record.startErrors.delete(spec.name);
    this.d.events.event(target, "Normal", "Started", "Container started");
    const postStart = spec.lifecycle?.postStart;
    if (postStart) {
      const failure = await runLifecycleHook(postStart, this.hookContext(record, spec, `${this.d.runtime.type}://${id}`, POST_START_HOOK_BOUND_MS));
      if (failure) {
        // kuberuntime_container.go startContainer: a fixed event text; the hook's error becomes the
        // waiting state of a container that will be restarted (reason cache, ShouldContainerBeRestarted).
        this.d.events.event(target, "Warning", "FailedPostStartHook", POST_START_HOOK_FAILED);
        const info = await this.d.runtime.containerStatus(id);
        await this.killContainer(record, spec, info, "FailedPostStartHook");
        const killed = await this.d.runtime.containerStatus(id);
        if (containerShouldRestart(spec, record.pod.spec, killed.exitCode)) record.startErrors.set(spec.name, { reason: POST_START_HOOK_ERROR, message: failure });
      }
    }
  }

  /**
   * firstAttempt numbers an instance when the runtime knows no earlier one. kubelet startContainer
   * then goes on from the container's log directory (calcRestartCountByLogDir), so that every
   * instance keeps its own log; the directory is read only when the pod's previous status shows
   * an earlier instance (a fresh container starts at 0 without touching the disk).
   */
  private async firstAttempt(record: PodRecord, spec: Container): Promise<number> {
    const pod = record.pod;
    const status = this.d.statusManager.getPodStatus(pod.metadata.uid ?? "");
    const earlier = [...(status?.initContainerStatuses ?? []), ...(status?.containerStatuses ?? [])].find((c) => c.name === spec.name);
    if (earlier?.containerID === undefined && !earlier?.restartCount) return 0;
    return restartCountFromLogDir(`${record.sandboxConfig!.logDirectory}/${spec.name}`);
  }

  /**
   * mountsFor maps the container's volumeMounts to host paths (kubelet makeMounts), or says why
   * it cannot: the runtime cannot mount (the process runtime without root), or a subPath is bad.
   */
  private async mountsFor(record: PodRecord, spec: Container): Promise<NonNullable<ContainerConfig["mounts"]> | string> {
    if ((spec.volumeMounts ?? []).length === 0) return [];
    const unsupported = await this.d.runtime.mountsUnsupportedReason();
    if (unsupported !== undefined) return unsupported;
    try {
      return await this.d.volumes.containerMounts(record.pod.metadata.uid ?? "", spec, record.pod.spec.volumes ?? [], record.volumePaths ?? new Map());
    } catch (err) {
      // A bad subPath (MountError) or a volume directory that went away: the container waits.
      return err instanceof MountError ? err.message : `failed to prepare volume mounts: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  /**
   * ensureImage is startContainer's step 1 (kuberuntime_container.go): EnsureImageExists, and on
   * failure the Failed event "Error: <reason>" with the reason and message as the container's
   * waiting state (reason cache). Every image failure, ImagePullBackOff included, is an error of
   * the sync (kubelet.go SyncPod returns result.Error()), which the pod workers retry after 10 s
   * with jitter (pod_workers.go completeWork; no back-off expiry is attached to an image error).
   * Without an image manager (the process runtime) every image is taken as there.
   */
  private async ensureImage(record: PodRecord, spec: Container): Promise<boolean> {
    if (!this.d.images) return true;
    const target = { pod: record.pod, containerName: spec.name };
    const result = await this.d.images.ensureImageExists(target, spec.image ?? "", spec.imagePullPolicy, record.sandboxConfig!);
    if (result.ok) return true;
    this.d.events.event(target, "Warning", "Failed", `Error: ${result.reason}`);
    record.startErrors.set(spec.name, { reason: result.reason, message: result.message });
    this.retrySoon(record);
    return false;
  }

  /**
   * securityRefused says why the container must not be created for its securityContext: a field
   * the runtime cannot honour (the process runtime without root), or runAsNonRoot against the
   * image's user (kubelet generateContainerConfig: getImageUser, verifyRunAsNonRoot). An image
   * that is not present is left to the create, which reports it.
   */
  private async securityRefused(pod: Pod, spec: Container, security: ContainerSecurity | undefined): Promise<string | undefined> {
    const unsupported = security ? await this.d.runtime.securityUnsupportedReason(security) : undefined;
    if (unsupported !== undefined) return unsupported;
    if (!imageUserNeeded(pod, spec)) return verifyRunAsNonRoot(pod, spec, {});
    const user = await this.d.runtime.imageUser(spec.image ?? "");
    return user ? verifyRunAsNonRoot(pod, spec, user) : undefined;
  }

  /** configFailed is kubelet startContainer's ErrCreateContainerConfig: no container is created. */
  private configFailed(record: PodRecord, spec: Container, message: string): void {
    this.retrySoon(record);
    this.startFailed(record, spec, "CreateContainerConfigError", new Error(message));
  }

  /**
   * terminationMessageMount creates the empty host file, writable by any user, that is bound at
   * the container's terminationMessagePath (kubelet kuberuntime_container.go makeMounts); as
   * there, a file that cannot be made is logged and the container runs without it. Synchronous,
   * like the kubelet's os.Create within its sync: three small system calls per container start.
   */
  private terminationMessageMount(record: PodRecord, spec: Container, logPath: string): Mount | undefined {
    if (!spec.terminationMessagePath) return undefined;
    const hostPath = terminationMessageHostPath(`${record.sandboxConfig!.logDirectory}/${logPath}`);
    try {
      mkdirSync(dirname(hostPath), { recursive: true, mode: 0o755 });
      writeFileSync(hostPath, "", { mode: 0o666 });
      chmodSync(hostPath, 0o666);
    } catch (err) {
      this.d.logger.warn("Error on creating termination-log file", { path: hostPath, err: err instanceof Error ? err.message : String(err) });
      return undefined;
    }
    return { containerPath: spec.terminationMessagePath, hostPath, readonly: false };
  }

  /**
   * warnMessagePathUnbound says once per container, with a Warning event, that a spec naming its
   * own terminationMessagePath gets the message from TERMINATION_MESSAGE_ENV only: this runtime
   * cannot bind the file there (the default path is left silent: any container may ignore it).
   */
  private warnMessagePathUnbound(record: PodRecord, spec: Container): void {
    const path = spec.terminationMessagePath ?? "";
    const warned = (record.messagePathWarned ??= new Set());
    if (path === DEFAULT_TERMINATION_MESSAGE_PATH || warned.has(spec.name)) return;
    warned.add(spec.name);
    const text = `terminationMessagePath "${path}" cannot be bound into the container on this runtime (it needs root and the supervisor); the container's termination message is read from the file named by $${TERMINATION_MESSAGE_ENV}`;
    this.d.events.event({ pod: record.pod, containerName: spec.name }, "Warning", "TerminationMessagePathUnbound", text);
  }

  /**
   * hostsMount writes the pod's managed /etc/hosts and binds it at /etc/hosts (kubelet makeMounts
   * with makeHostsMount), unless the container mounts something there itself or the pod has no IP
   * yet; the file is rewritten at every container start. The process runtime's containers share
   * the host's files, so it gets none. A file that cannot be written fails the start
   * (CreateContainerConfigError), as generateContainerConfig fails there.
   */
  private hostsMount(record: PodRecord, spec: Container): Mount | Error | undefined {
    const pod = record.pod;
    if (this.d.runtime.type === "process") return undefined;
    const podIPs = record.podIP ? [record.podIP] : [];
    if (!shouldMountHostsFile(pod, podIPs) || (spec.volumeMounts ?? []).some((m) => m.mountPath === ETC_HOSTS)) return undefined;
    try {
      const hostPath = join(this.d.volumes.ensurePodDir(pod.metadata.uid ?? ""), "etc-hosts");
      writeHostsFile(hostPath, pod, podIPs);
      return { containerPath: ETC_HOSTS, hostPath, readonly: false };
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    }
  }

  /** withTerminationMessageEnv gives a process-runtime container the host path of its termination message file (TERMINATION_MESSAGE_ENV). */
  private withTerminationMessageEnv(envs: KeyValue[], mount: Mount | undefined): KeyValue[] {
    if (!mount || this.d.runtime.type !== "process") return envs;
    return [...envs, { key: TERMINATION_MESSAGE_ENV, value: mount.hostPath }];
  }

  private startFailed(record: PodRecord, spec: Container, reason: string, err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    this.d.events.event({ pod: record.pod, containerName: spec.name }, "Warning", "Failed", `Error: ${message}`);
    record.startErrors.set(spec.name, { reason, message });
    this.d.logger.info("Container start failed", { pod: record.pod.metadata.name, containerName: spec.name, reason, err: message });
  }

  /**
   * killContainer stops one instance: Killing event, preStop within the grace period, then
   * SIGTERM → grace → SIGKILL (kubelet killContainer; probe-level grace only for that probe's kills).
   */
  async killContainer(record: PodRecord, spec: Container, info: ContainerInfo, message: string, reason?: ProbeKillReason, graceOverride?: number, ordering?: TerminationOrdering): Promise<void> {
    const pod = record.pod;
    const grace = graceOverride ?? killGracePeriodSeconds(pod, spec, reason);
    this.d.events.event({ pod, containerName: spec.name }, "Normal", "Killing", message);
    let elapsed = 0;
    const preStop = spec.lifecycle?.preStop;
    if (preStop && grace > 0 && info.state === "running") {
      const started = this.d.clock.monotonic();
      const failure = await runLifecycleHook(preStop, this.hookContext(record, spec, this.id(info), grace * 1000));
      elapsed = (this.d.clock.monotonic() - started) / 1000;
      // kuberuntime_container.go executePreStopHook: a hook that returns an error gets the event
      // (a fixed text: its output may hold secrets); one still running when the grace period
      // ends is only logged, and the kill goes on.
      const fields = { pod: pod.metadata.name, podUID: pod.metadata.uid, containerName: spec.name, containerID: this.id(info) };
      if (elapsed >= grace) this.d.logger.info("PreStop hook not completed in grace period", { ...fields, gracePeriod: grace });
      else if (failure) {
        this.d.logger.warn("PreStop hook failed", fields);
        this.d.events.event({ pod, containerName: spec.name }, "Warning", "FailedPreStopHook", PRE_STOP_HOOK_FAILED);
      }
    }
    let remaining = grace - (grace > 0 ? Math.trunc(elapsed) : 0);
    // kubelet killContainer: a sidecar waits for its turn with what is left, whole seconds counted.
    if (ordering && remaining > 0) remaining -= Math.trunc(await ordering.waitForTurn(spec.name, remaining));
    remaining = graceOverride === 0 ? 0 : remainingGraceAfterPreStop(remaining, 0);
    try {
      await this.d.runtime.stopContainer(info.id, remaining);
    } catch (err) {
      if (!(err instanceof RuntimeError && err.code === "NotFound")) throw err;
    } finally {
      ordering?.containerTerminated(spec.name);
    }
  }

  /**
   * terminate stops every container of a pod being deleted (kubelet SyncTerminatingPod):
   * liveness and startup stop first, readiness keeps probing; all containers are killed together
   * within the one grace period, sidecars after the regular containers in reverse order
   * (TerminationOrdering). The final status (every container terminated, phase Succeeded or
   * Failed, not Ready) is published before the probe workers and the sandbox go.
   */
  async terminate(record: PodRecord, gracePeriodSeconds: number): Promise<void> {
    const pod = record.pod;
    this.d.probeManager.stopLivenessAndStartup(pod);
    await this.killPod(record, await this.instances(record), gracePeriodSeconds);
    record.containersStopped = true;
    this.publishFinal(record, await this.instances(record));
    this.d.probeManager.removePod(pod);
    if (record.sandboxId) {
      await this.d.runtime.stopPodSandbox(record.sandboxId);
      await this.d.runtime.removePodSandbox(record.sandboxId);
    }
    await this.d.volumes.tearDown(pod.metadata.uid ?? "");
    // The projected volume's TearDownAt drops the pod's tokens from the token manager (projected.go).
    this.d.tokens?.forgetPod(pod.metadata.uid ?? "");
  }

  /**
   * publishFinal stores the status of a pod whose containers have all stopped (kubelet
   * SyncTerminatingPod: generateAPIPodStatus with podIsTerminal): terminated containers with
   * their exit codes and reasons, nothing ready or started, phase from the exit codes alone.
   */
  private publishFinal(record: PodRecord, groups: Map<string, ContainerInstances>): void {
    const pod = record.pod;
    const previous = this.d.statusManager.getPodStatus(pod.metadata.uid ?? "");
    const status = buildPodStatus({
      pod,
      previous,
      initContainerStatuses: (pod.spec.initContainers ?? []).map((c) => containerStatus(c, groups.get(c.name), undefined, this.d.runtime.type, defaultWaitingReason(pod))),
      containerStatuses: pod.spec.containers.map((c) => containerStatus(c, groups.get(c.name), undefined, this.d.runtime.type, defaultWaitingReason(pod))),
      sandboxNotReady: record.sandboxId === undefined ? "no pod sandbox exists" : "pod sandbox is not ready",
      podIP: record.podIP,
      hostIP: this.d.hostIP,
      startTime: record.startTime,
      now: this.d.clock.now(),
      podIsTerminal: true,
    });
    const ephemeral = (pod.spec.ephemeralContainers ?? []).map((c) => containerStatus(c, groups.get(c.name), undefined, this.d.runtime.type, "ContainerCreating"));
    if (ephemeral.length > 0) status.ephemeralContainerStatuses = ephemeral;
    evictPastDeadline(pod, status, record.startTime, this.d.clock.now());
    refreshReadyConditions(pod, status, this.d.clock.now(), previous);
    this.d.statusManager.setPodStatus(pod, status);
  }

  /** publish builds the pod status, folds probe results in, and stores it; then ensures workers. */
  async publish(
    record: PodRecord,
    groups: Map<string, ContainerInstances>,
    sandboxNotReady: SandboxNotReadyMessage | undefined = this.sandboxNotReady(record),
  ): Promise<PodStatus> {
    const pod = record.pod;
    const uid = pod.metadata.uid ?? "";
    const previous = this.d.statusManager.getPodStatus(uid);
    const waitingFor = (name: string): Waiting | undefined => record.startErrors.get(name);
    const deleting = pod.metadata.deletionTimestamp !== undefined;
    const oldStatus = (name: string, init: boolean): ContainerStatus | undefined => (init ? previous?.initContainerStatuses : previous?.containerStatuses)?.find((s) => s.name === name);
    // KEP-5532: a reset asked for and not yet done (kubelet ShouldAllContainersRestart).
    const restartingAll = allContainersCouldRestart(pod.spec) && shouldAllContainersRestart(pod, newestExit(groups), previous);
    const render = (c: Container, init: boolean, defaultWaiting: string): ContainerStatus => {
      const status = containerStatus(c, groups.get(c.name), waitingFor(c.name), this.d.runtime.type, defaultWaiting);
      const old = oldStatus(c.name, init);
      if (restartingAll && old !== undefined && groups.get(c.name)?.current === undefined && old.state?.waiting === undefined) removedByRestartAll(status, old);
      else keepLostHistory(status, groups.get(c.name), old, deleting);
      // kubelet convertContainerStatus (RestartAllContainersOnContainerExits): a restart count never goes down.
      if (old !== undefined && old.restartCount > status.restartCount) status.restartCount = old.restartCount;
      return status;
    };
    const status = buildPodStatus({
      pod,
      previous,
      initContainerStatuses: (pod.spec.initContainers ?? []).map((c) => render(c, true, defaultWaitingReason(pod))),
      containerStatuses: pod.spec.containers.map((c) => render(c, false, defaultWaitingReason(pod))),
      sandboxNotReady,
      podIP: record.podIP,
      hostIP: this.d.hostIP,
      startTime: record.startTime,
      now: this.d.clock.now(),
      allContainersRestarting: restartingAll && !cleanedUp(pod, groups),
    });
    // Ephemeral containers have their own list, never ready (convertToAPIContainerStatuses).
    const ephemeral = (pod.spec.ephemeralContainers ?? []).map((c) => containerStatus(c, groups.get(c.name), waitingFor(c.name), this.d.runtime.type, "ContainerCreating"));
    if (ephemeral.length > 0) status.ephemeralContainerStatuses = ephemeral;
    // A container instance that was started keeps saying so (kubelet 1.37 keeps `started` across
    // an agent restart; the startup result, when there is one, still decides).
    for (const c of [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])]) {
      const before = [...(previous?.initContainerStatuses ?? []), ...(previous?.containerStatuses ?? [])].find((p) => p.name === c.name);
      if (before?.started === true && before.containerID === c.containerID && c.state?.running) c.started = true;
    }
    // generateAPIPodStatus's pod sync handlers: past activeDeadlineSeconds the pod is Failed
    // (ShouldEvict records the event each time it says so; the correlator counts the repeats).
    if (evictPastDeadline(pod, status, record.startTime, this.d.clock.now())) this.d.events.event({ pod }, "Normal", DEADLINE_EXCEEDED_REASON, DEADLINE_EXCEEDED_MESSAGE);
    // Workers exist before the status is generated (kubelet SyncPod calls AddPod first), so a
    // container with a readiness probe is never briefly reported ready.
    this.d.probeManager.addPod(pod);
    this.d.probeManager.updatePodStatus(pod, status, previous);
    refreshReadyConditions(pod, status, this.d.clock.now(), previous);
    this.d.statusManager.setPodStatus(pod, status);
    return status;
  }

  private hookContext(record: PodRecord, spec: Container, containerId: string, timeoutMs: number) {
    return { runner: this.d.runner, clock: this.d.clock, events: this.d.events, pod: record.pod, container: spec, containerId, podIP: record.podIP, timeoutMs };
  }

  private id(info: ContainerInfo): string {
    return `${this.d.runtime.type}://${info.id}`;
  }
}

/**
 * BackOffBasis: for each container a sync killed to start again, its newest instance that had
 * exited before the kill (undefined when it had none), from the runtime's view at the sync's start.
 */
type BackOffBasis = ReadonlyMap<string, ContainerInfo | undefined>;

/** newestExit reads a container's exit code from its newest instance, when that one exited. */
function newestExit(groups: Map<string, ContainerInstances>): (name: string) => number | undefined {
  return (name) => {
    const current = groups.get(name)?.current;
    return current?.state === "exited" ? current.exitCode : undefined;
  };
}

/** cleanedUp: no container of the pod has an instance left (kubelet AllContainersRestartCleanedUp). */
function cleanedUp(pod: Pod, groups: Map<string, ContainerInstances>): boolean {
  return allContainers(pod).every((c) => groups.get(c.name)?.current === undefined);
}

/** Where the managed hosts file goes in a container (kubelet etcHostsPath). */
const ETC_HOSTS = "/etc/hosts";

/** memoryLimit reads resources.limits.memory (validated at admission) as CRI's byte count. */
function memoryLimit(spec: Container): { memoryLimitBytes?: number } {
  const limits = spec.resources?.["limits"] as Record<string, unknown> | undefined;
  const raw = limits?.["memory"];
  const bytes = typeof raw === "number" || typeof raw === "string" ? parseQuantity(String(raw)) : undefined;
  return bytes ? { memoryLimitBytes: bytes } : {};
}
