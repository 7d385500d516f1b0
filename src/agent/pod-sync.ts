// PodSyncer: the kubelet's SyncPod for one pod (kubelet.go SyncPod, SyncTerminatingPod,
// SyncTerminatedPod): the pod's status generated and stored, its volumes set up, kuberuntime's
// SyncPod asked to reconcile the containers (src/kuberuntime/runtime-manager.ts), a pod whose
// phase turned terminal stopped, a deleted pod's containers killed and its final status stored.
// It is also the node's RuntimeHelper: the containers' run options (environment, volume mounts,
// the managed /etc/hosts), the sandbox's host name and OnPodSandboxReady. The pod worker
// serialises calls per pod.
import { join } from "node:path";
import { allContainersCouldRestart, shouldAllContainersRestart } from "../api/container-should-restart.js";
import { isPodPhaseTerminal } from "../api/pod-rules.js";
import type { Container, ContainerStatus, Pod, PodStatus } from "../api/types.js";
import type { CommandRunner } from "../probe/command-runner.js";
import type { ProbeManager } from "../prober/manager.js";
import type { Mount, Runtime } from "../runtime/runtime.js";
import { formatConditionTime, generatePodReadyToStartContainersCondition, updateCondition, type SandboxNotReadyMessage } from "../status/generate.js";
import type { StatusManager } from "../status/status-manager.js";
import type { Clock } from "../util/clock.js";
import type { Logger } from "../util/logger.js";
import type { ContainerInstances, Waiting } from "../kuberuntime/container-instance-groups.js";
import type { RestartBackoff } from "../kuberuntime/crash-loop-backoff.js";
import type { ImageManager } from "../kuberuntime/image-manager.js";
import { retrySoon, type PodRecord } from "../kuberuntime/pod-record.js";
import { sandboxNotReady as sandboxNotReadyOf } from "../kuberuntime/pod-sandbox.js";
import type { RunContainerOptions, RuntimeHelper } from "../kuberuntime/runtime-helper.js";
import { cleanedUp, KubeRuntimeManager, newestExit } from "../kuberuntime/runtime-manager.js";
import type { ConfigObjects } from "../volumes/config-objects.js";
import type { NodeAllocatable } from "../volumes/downward-api.js";
import { MountError, type PodVolumes } from "../volumes/pod-volumes.js";
import type { ServiceAccountTokenSource } from "../volumes/service-account-tokens.js";
import type { EventStore } from "./kube-events.js";
import { DEADLINE_EXCEEDED_MESSAGE, DEADLINE_EXCEEDED_REASON, evictPastDeadline } from "./active-deadline.js";
import { expandCommandAndArgs, resolveContainerEnv } from "./container-env.js";
import type { ServiceSource } from "./service-env.js";
import { podHostnameAndDomain, shouldMountHostsFile, writeHostsFile } from "./pod-hosts.js";
import { buildPodStatus, containerStatus, defaultWaitingReason, keepLostHistory, refreshReadyConditions, removedByRestartAll } from "./pod-status.js";

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

/** PodSyncer syncs pods: their status, volumes and, through kuberuntime, their containers. */
export class PodSyncer implements RuntimeHelper {
  /** kuberuntime's runtime manager: the sandbox and the containers. */
  readonly containerRuntime: KubeRuntimeManager;

  constructor(private readonly d: PodSyncerDeps) {
    this.containerRuntime = new KubeRuntimeManager({ ...d, helper: this });
  }

  /** sync brings one running (not terminating) pod closer to its spec and publishes its status. */
  async sync(record: PodRecord): Promise<PodStatus> {
    const pod = record.pod;
    const grace = pod.spec.terminationGracePeriodSeconds ?? 30;
    if (isPodPhaseTerminal(this.d.statusManager.getPodStatus(pod.metadata.uid ?? "")?.phase)) return this.syncTerminal(record, grace);
    for (const [name, reason] of record.backOffReasons ?? []) record.startErrors.set(name, reason);
    record.backOffReasons?.clear();
    await this.containerRuntime.sandboxes.ensure(record);
    const groups = await this.containerRuntime.instances(record);
    // kubelet.go SyncPod stores the status generated from what the sync found
    // (generateAPIPodStatus, SetPodStatus) before kuberuntime's SyncPod starts or kills anything:
    // a container found exited is stored terminated, not ready, before it is started again.
    await this.publish(record, groups);
    if (!(await this.setUpVolumes(record))) return this.publish(record, groups);
    return this.publishAndStopWhenTerminal(record, await this.containerRuntime.syncPod(record, groups, grace), grace);
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
    if (!record.sandboxId && !(await this.containerRuntime.sandboxes.adopt(record, uid, true)) && previous) {
      record.containersStopped = true;
      return previous;
    }
    await this.containerRuntime.killPod(record, await this.containerRuntime.instances(record), grace);
    await this.containerRuntime.sandboxes.stop(record);
    record.containersStopped = true;
    return this.publish(record, await this.containerRuntime.instances(record));
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
    retrySoon(record);
    return false;
  }

  private addresses(record: PodRecord): { podIP: string; hostIP: string } {
    return { podIP: record.podIP, hostIP: this.d.hostIP };
  }

  /**
   * generateRunContainerOptions is the kubelet's GenerateRunContainerOptions: the container's
   * environment (env and envFrom, the downward API, service variables; warnings as events), its
   * command and args expanded against it, and its mounts (the volume mounts, then the managed
   * /etc/hosts, kubelet_pods.go makeMounts).
   */
  async generateRunContainerOptions(record: PodRecord, spec: Container): Promise<RunContainerOptions | { error: string }> {
    const pod = record.pod;
    const env = resolveContainerEnv({ pod, addresses: this.addresses(record), objects: this.d.configObjects, node: this.d.nodeAllocatable, ...(this.d.services ? { services: this.d.services } : {}) }, spec);
    for (const warning of env.warnings) this.d.events.event({ pod }, "Warning", warning.reason, warning.message);
    if (!env.ok) return { error: env.message };
    const mounts = await this.mountsFor(record, spec);
    if (typeof mounts === "string") return { error: mounts };
    const hostsMount = this.hostsMount(record, spec);
    if (hostsMount instanceof Error) return { error: hostsMount.message };
    return { envs: env.env, ...expandCommandAndArgs(spec, env.env), mounts: [...mounts, ...(hostsMount ? [hostsMount] : [])] };
  }

  /** podHostname is the kubelet's GeneratePodHostNameAndDomain, the host name part. */
  podHostname(pod: Pod): string {
    return podHostnameAndDomain(pod).hostname;
  }

  /** storedStatus is the status manager's copy of the pod's status. */
  storedStatus(uid: string): PodStatus | undefined {
    return this.d.statusManager.getPodStatus(uid);
  }

  /** storeStatus is publish: kuberuntime stores a status between its steps. */
  storeStatus(record: PodRecord, groups: Map<string, ContainerInstances>, sandboxNotReady?: SandboxNotReadyMessage): Promise<PodStatus> {
    // An undefined sandboxNotReady takes publish's default: what the record knows.
    return this.publish(record, groups, sandboxNotReady);
  }

  /**
   * onPodSandboxReady is the kubelet's OnPodSandboxReady (1.37): the stored status with
   * PodReadyToStartContainers True and nothing else changed, so the pod shows Pending with its
   * sandbox ready until its containers run.
   */
  onPodSandboxReady(record: PodRecord): void {
    const previous = this.d.statusManager.getPodStatus(record.pod.metadata.uid ?? "");
    if (previous === undefined) return;
    const status = structuredClone(previous);
    status.conditions = updateCondition(status.conditions, generatePodReadyToStartContainersCondition(), formatConditionTime(this.d.clock.now()));
    this.d.statusManager.setPodStatus(record.pod, status);
  }

  /**
   * mountsFor maps the container's volumeMounts to host paths (kubelet makeMounts), or says why
   * it cannot: the runtime cannot mount (the process runtime without root), or a subPath is bad.
   */
  private async mountsFor(record: PodRecord, spec: Container): Promise<Mount[] | string> {
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
    await this.containerRuntime.killPod(record, await this.containerRuntime.instances(record), gracePeriodSeconds);
    record.containersStopped = true;
    this.publishFinal(record, await this.containerRuntime.instances(record));
    this.d.probeManager.removePod(pod);
    await this.containerRuntime.sandboxes.remove(record);
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
    sandboxNotReady: SandboxNotReadyMessage | undefined = sandboxNotReadyOf(record),
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
}

/** Where the managed hosts file goes in a container (kubelet etcHostsPath). */
const ETC_HOSTS = "/etc/hosts";
