// The process runtime's pod sandbox: a record and, when the runtime has a pod network
// (pod-network.ts), the pod's own network namespace with its IP on the agent's bridge. Without
// one (hostNetwork pods, or no root or no CNI plugins) the pod shares the host's network: the
// sandbox reports the loopback address as its pod IP, so probes against the "pod IP" reach
// servers the containers bind on 127.0.0.1 (or on all addresses), and two such pods listening on
// the same port conflict, as hostNetwork pods do.
import type { Labels, PodSandboxConfig, PodSandboxStatus, SandboxFilter, SandboxState } from "../runtime.js";
import type { SandboxNetwork } from "./pod-network.js";

/** PROCESS_POD_IP is the pod IP a process sandbox on the host's network reports (the host loopback). */
export const PROCESS_POD_IP = "127.0.0.1";

/** ProcessSandbox records one pod sandbox of the process runtime. */
export class ProcessSandbox {
  /** "ready" from creation until stopPodSandbox, then "notready" for good. */
  private state: SandboxState = "ready";
  /** Set once stopPodSandbox began; later calls share it. */
  stopping: Promise<void> | undefined;

  constructor(
    readonly id: string,
    /** The config as given, deep-copied. */
    readonly config: PodSandboxConfig,
    /** ms since the epoch. */
    readonly createdAt: number,
    /** The pod's own network; undefined: the host's network. Kept after stop, as containerd keeps the IP. */
    readonly network?: SandboxNetwork,
  ) {}

  /** ready tells whether containers may still be started in this sandbox. */
  get ready(): boolean {
    return this.state === "ready";
  }

  /** markNotReady records that the sandbox was stopped (irreversible, like CRI). */
  markNotReady(): void {
    this.state = "notready";
  }

  /** status returns a copy of the sandbox as CRI PodSandboxStatus reports it. */
  status(): PodSandboxStatus {
    return {
      id: this.id,
      podUid: this.config.podUid,
      name: this.config.name,
      namespace: this.config.namespace,
      attempt: this.config.attempt,
      state: this.state,
      podIP: this.network?.ip ?? PROCESS_POD_IP,
      createdAt: this.createdAt,
      labels: { ...this.config.labels },
      annotations: { ...this.config.annotations },
    };
  }

  /** matches applies a listPodSandboxes filter. */
  matches(filter: SandboxFilter | undefined): boolean {
    if (!filter) return true;
    if (filter.state !== undefined && filter.state !== this.state) return false;
    return labelsMatch(this.config.labels, filter.labels);
  }
}

/** labelsMatch tells whether every selector label is present with the same value (CRI label selectors). */
export function labelsMatch(labels: Labels, selector: Labels | undefined): boolean {
  if (!selector) return true;
  return Object.entries(selector).every(([key, value]) => Object.hasOwn(labels, key) && labels[key] === value);
}

/** copySandboxConfig deep-copies a config so callers cannot change the record afterwards. */
export function copySandboxConfig(config: PodSandboxConfig): PodSandboxConfig {
  return { ...config, labels: { ...config.labels }, annotations: { ...config.annotations } };
}
