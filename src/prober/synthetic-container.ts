// A synthetic running container carrying one probe, for probing a target outside any pod with the
// kubelet's own prober and worker (`probelet probe`, the probelet/probe library entry): a
// one-container pod with restartPolicy Always, and a status provider that says it runs, started
// (except for a startup probe, which gates that), at the target's address.
import { randomBytes, randomUUID } from "node:crypto";
import type { Container, Pod, PodStatus, Probe } from "../api/types.js";
import type { Clock } from "../util/clock.js";
import type { ProbeType } from "./probe-type.js";
import type { PodStatusProvider } from "./worker.js";

/** CONTAINER_NAME names the synthetic pod's only container (events say "Container probe failed …"). */
export const CONTAINER_NAME = "probe";

/** syntheticPod is a one-container pod carrying the probe under test (restartPolicy Always). */
export function syntheticPod(probeType: ProbeType, probe: Probe): Pod {
  const container: Container = { name: CONTAINER_NAME };
  container[`${probeType}Probe` as const] = probe;
  return { metadata: { name: "probelet-probe", namespace: "default", uid: randomUUID() }, spec: { restartPolicy: "Always", containers: [container] } };
}

/**
 * SyntheticPodStatus is the running status of the synthetic container: `started` is true except
 * for startup probes (which gate it), and restart() replaces the container instance.
 */
export class SyntheticPodStatus implements PodStatusProvider {
  /** The status the worker reads; replaced (not mutated) by restart(). */
  current: PodStatus;
  /** The running container instance's ID (`probelet://<12 hex>`). */
  containerId = "";
  restartCount = 0;

  constructor(
    private readonly podIP: string,
    private readonly probeType: ProbeType,
    private readonly clock: Clock,
  ) {
    this.current = this.build();
  }

  getPodStatus(): PodStatus {
    return this.current;
  }

  /** restart starts a new container instance: a new ID, startedAt now, restartCount + 1. */
  restart(): { restartCount: number; newContainerId: string } {
    this.restartCount++;
    this.current = this.build();
    return { restartCount: this.restartCount, newContainerId: this.containerId };
  }

  private build(): PodStatus {
    this.containerId = `probelet://${randomBytes(6).toString("hex")}`;
    const startedAt = new Date(this.clock.now()).toISOString();
    const ip = this.podIP === "" ? [] : [{ ip: this.podIP }];
    return {
      phase: "Running",
      podIP: this.podIP,
      podIPs: ip,
      containerStatuses: [
        {
          name: CONTAINER_NAME,
          containerID: this.containerId,
          state: { running: { startedAt } },
          ready: false,
          restartCount: this.restartCount,
          started: this.probeType !== "startup",
        },
      ],
    };
  }
}
