// Stopping containers (kubelet kuberuntime_container.go killContainer and
// killContainersWithSyncResult): the Killing event, preStop within the grace period, then the
// runtime's stop with what is left of it; with sidecars, a TerminationOrdering makes each sidecar
// wait for the regular containers and the later sidecars within the one grace period.
import { allContainers } from "../api/pod-rules.js";
import type { Container } from "../api/types.js";
import type { CommandRunner } from "../probe/command-runner.js";
import type { EventRecorder } from "../prober/event-recorder.js";
import type { ContainerInfo, Runtime } from "../runtime/runtime.js";
import { RuntimeError } from "../runtime/runtime.js";
import type { Clock } from "../util/clock.js";
import type { Logger } from "../util/logger.js";
import type { ContainerInstances } from "./container-instance-groups.js";
import type { ProbeKillReason } from "./container-actions.js";
import { killGracePeriodSeconds, remainingGraceAfterPreStop } from "./grace-period.js";
import { PRE_STOP_HOOK_FAILED, runLifecycleHook, type HookContext } from "./lifecycle-hooks.js";
import type { PodRecord } from "./pod-record.js";
import { hasSidecars, TerminationOrdering } from "./termination-ordering.js";

/** ContainerKillerDeps are what stopping a container needs. */
export interface ContainerKillerDeps {
  runtime: Runtime;
  /** Runs hook commands; takes full "<type>://<id>" container IDs. */
  runner: CommandRunner;
  events: EventRecorder;
  clock: Clock;
  logger: Logger;
}

/** ContainerKiller stops a pod's containers the kubelet's way. */
export class ContainerKiller {
  constructor(private readonly d: ContainerKillerDeps) {}

  /**
   * killPod stops every running container of the pod at once within one grace period (kubelet
   * killContainersWithSyncResult); ephemeral containers stop with the rest.
   */
  async killPod(record: PodRecord, groups: Map<string, ContainerInstances>, grace: number): Promise<void> {
    const pod = record.pod;
    const running = [...allContainers(pod), ...(pod.spec.ephemeralContainers ?? [])].filter((c) => groups.get(c.name)?.current?.state === "running");
    const ordering = hasSidecars(pod) ? new TerminationOrdering(pod, running.map((c) => c.name), this.d.clock) : undefined;
    await Promise.all(running.map((spec) => this.killContainer(record, spec, groups.get(spec.name)!.current!, `Stopping container ${spec.name}`, undefined, grace, ordering)));
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
      const failure = await runLifecycleHook(preStop, this.hookContext(record, spec, fullContainerId(this.d.runtime, info), grace * 1000));
      elapsed = (this.d.clock.monotonic() - started) / 1000;
      // kuberuntime_container.go executePreStopHook: a hook that returns an error gets the event
      // (a fixed text: its output may hold secrets); one still running when the grace period
      // ends is only logged, and the kill goes on.
      const fields = { pod: pod.metadata.name, podUID: pod.metadata.uid, containerName: spec.name, containerID: fullContainerId(this.d.runtime, info) };
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

  /** hookContext is what a lifecycle hook of the container runs with. */
  hookContext(record: PodRecord, spec: Container, containerId: string, timeoutMs: number): HookContext {
    return { runner: this.d.runner, clock: this.d.clock, events: this.d.events, pod: record.pod, container: spec, containerId, podIP: record.podIP, timeoutMs };
  }
}

/** fullContainerId is the status's form of a container ID: "<runtime type>://<id>". */
export function fullContainerId(runtime: Runtime, info: ContainerInfo): string {
  return `${runtime.type}://${info.id}`;
}
