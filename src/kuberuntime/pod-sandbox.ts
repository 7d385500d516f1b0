// A pod's sandbox (kubelet kuberuntime_sandbox.go createPodSandbox / generatePodSandboxConfig,
// kuberuntime_manager.go SyncPod's sandbox steps): made on the first sync or when it is no longer
// ready, adopted from a previous agent by the pod's UID label, and the events when it cannot be made.
import { allContainers } from "../api/pod-rules.js";
import { podSysctls } from "../api/pod-sysctls.js";
import type { Pod } from "../api/types.js";
import type { EventRecorder } from "../prober/event-recorder.js";
import type { PodSandboxConfig, Runtime } from "../runtime/runtime.js";
import { RuntimeError } from "../runtime/runtime.js";
import type { SandboxNotReadyMessage } from "../status/generate.js";
import type { Logger } from "../util/logger.js";
import { LABEL_AGENT } from "./agent-id.js";
import type { ContainerInstances } from "./container-instance-groups.js";
import { LABEL_POD_NAME, LABEL_POD_NAMESPACE, LABEL_POD_UID } from "./labels.js";
import type { PodRecord } from "./pod-record.js";
import type { RuntimeHelper } from "./runtime-helper.js";

/** PodSandboxesDeps are what the sandbox steps need. */
export interface PodSandboxesDeps {
  runtime: Runtime;
  events: EventRecorder;
  logger: Logger;
  helper: RuntimeHelper;
  /** Root of container logs: <logRoot>/<namespace>_<name>_<uid>/<container>/<attempt>.log. */
  logRoot: string;
  /** This agent's owner label value (agent-id.ts), put on every sandbox it creates. */
  agentId: string;
  /** Lists the sandbox's containers grouped by name (for the status stored before a creation). */
  instances: (record: PodRecord) => Promise<Map<string, ContainerInstances>>;
}

/** PodSandboxes makes, adopts and reports on pods' sandboxes. */
export class PodSandboxes {
  constructor(private readonly d: PodSandboxesDeps) {}

  /**
   * ensure creates the pod's sandbox on first sync or when it is no longer ready. As the
   * kubelet's SyncPod, the pod's status is stored first (generateAPIPodStatus before the runtime
   * is asked): Pending, containers waiting, PodReadyToStartContainers False with why. Once the
   * sandbox is up, its condition turns True at once (OnPodSandboxReady, kubelet 1.37). A sandbox
   * that cannot be made is reported (failed) and the error thrown on.
   */
  async ensure(record: PodRecord): Promise<void> {
    try {
      await this.ensureReady(record);
    } catch (err) {
      await this.failed(record, err);
      throw err;
    }
  }

  private async ensureReady(record: PodRecord): Promise<void> {
    const pod = record.pod;
    const uid = pod.metadata.uid ?? "";
    let notReady: SandboxNotReadyMessage = "no pod sandbox exists";
    if (record.sandboxId) {
      const status = await this.d.runtime.podSandboxStatus(record.sandboxId).catch(() => undefined);
      if (status?.state === "ready") return;
      notReady = "pod sandbox is not ready";
    } else if (await this.adopt(record, uid)) {
      return;
    }
    await this.d.helper.storeStatus(record, await this.d.instances(record).catch(() => new Map<string, ContainerInstances>()), notReady);
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
      hostname: this.d.helper.podHostname(pod),
      sysctls: Object.fromEntries(podSysctls(pod).map((s) => [s.name, s.value])),
      // HasPrivilegedContainer: a privileged container needs a privileged sandbox.
      ...([...allContainers(pod), ...(pod.spec.ephemeralContainers ?? [])].some((c) => c.securityContext?.["privileged"] === true) ? { privileged: true } : {}),
    };
    record.sandboxId = await this.d.runtime.runPodSandbox(config);
    record.sandboxConfig = config;
    record.sandboxStopped = false;
    record.podIP = (await this.d.runtime.podSandboxStatus(record.sandboxId)).podIP;
    this.d.helper.onPodSandboxReady(record);
  }

  /**
   * failed says why a pod has no sandbox, as the kubelet does: a runtime whose network is not
   * ready gets the NetworkNotReady event (kubelet.go SyncPod, checked before the runtime is
   * asked), any other failure FailedCreatePodSandBox (kuberuntime_manager.go SyncPod); the status
   * is stored with the containers in their default waiting reason (ContainerCreating, or
   * PodInitializing with init containers) and PodReadyToStartContainers False, so the pod does
   * not stay Pending in silence. The sync's error is then logged and the pod retried at the next
   * resync.
   */
  private async failed(record: PodRecord, err: unknown): Promise<void> {
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof RuntimeError && err.code === "NetworkNotReady") this.d.events.event({ pod: record.pod }, "Warning", "NetworkNotReady", message);
    else this.d.events.event({ pod: record.pod }, "Warning", "FailedCreatePodSandBox", `Failed to create pod sandbox: ${message}`);
    await this.d.helper.storeStatus(record, await this.d.instances(record).catch(() => new Map<string, ContainerInstances>()), sandboxNotReady(record) ?? "pod sandbox is not ready");
  }

  /**
   * adopt re-attaches a pod to the sandbox a previous agent left (found by the pod UID label; a
   * ready one, or with stoppedToo the newest in any state), so its containers keep running and
   * keep their restart counts.
   */
  async adopt(record: PodRecord, uid: string, stoppedToo = false): Promise<boolean> {
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

  /** stop stops the pod's sandbox once (kubelet KillPod's StopPodSandbox); it is kept with its containers. */
  async stop(record: PodRecord): Promise<void> {
    if (!record.sandboxId || record.sandboxStopped) return;
    await this.d.runtime.stopPodSandbox(record.sandboxId);
    record.sandboxStopped = true;
  }

  /** remove stops and removes the pod's sandbox, with its containers (a deleted pod's end). */
  async remove(record: PodRecord): Promise<void> {
    if (!record.sandboxId) return;
    await this.d.runtime.stopPodSandbox(record.sandboxId);
    await this.d.runtime.removePodSandbox(record.sandboxId);
  }

  private logDirectory(pod: Pod): string {
    return `${this.d.logRoot}/${pod.metadata.namespace ?? "default"}_${pod.metadata.name ?? ""}_${pod.metadata.uid ?? ""}`;
  }
}

/** sandboxNotReady says why the pod has no ready sandbox, as far as the record knows; undefined when it has one. */
export function sandboxNotReady(record: PodRecord): SandboxNotReadyMessage | undefined {
  if (record.sandboxId === undefined) return "no pod sandbox exists";
  return record.sandboxStopped === true ? "pod sandbox is not ready" : undefined;
}
