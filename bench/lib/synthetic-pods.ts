// The synthetic workload of the probelet driver: N pods with one container each, whose
// readiness probe points at the bench target, and a status provider that reports every
// container as running and started (so workers probe on every tick, as for a live pod).
import type { Pod, PodStatus, ProbeHandler } from "../../src/api/types.js";
import type { PodStatusProvider } from "../../src/prober/worker.js";

/** ProbeKind is the driver's -kind. */
export type ProbeKind = "http" | "tcp" | "exec" | "grpc";

/** SyntheticTarget is a probe action plus the pod IP the action resolves against. */
export interface SyntheticTarget {
  handler: ProbeHandler;
  podIP: string;
}

/** CONTAINER_NAME is the name of every synthetic pod's single container. */
export const CONTAINER_NAME = "probed";

function isLoopback(host: string): boolean {
  return host.startsWith("127.") || host === "localhost" || host === "::1";
}

function splitHostPort(text: string): { host: string; port: number } {
  const m = /^\[?([^\]]*)\]?:(\d+)$/.exec(text);
  if (!m) throw new Error(`bad host:port target ${JSON.stringify(text)}`);
  return { host: m[1]!, port: Number(m[2]) };
}

/**
 * syntheticTarget turns the driver's -kind/-target into a probe action, refusing non-loopback
 * targets as the anchor does: an http(s) URL becomes an httpGet on the URL's host (as the pod
 * IP), port, path and scheme; `host:port` becomes a tcpSocket (or, for grpc, a grpc probe of the
 * health service ""); a command line becomes an exec
 * action split on whitespace (no shell, like the anchor's strings.Fields).
 */
export function syntheticTarget(kind: ProbeKind, target: string): SyntheticTarget {
  switch (kind) {
    case "http": {
      const url = new URL(target);
      const host = url.hostname.replace(/^\[|\]$/g, "");
      if (!isLoopback(host)) throw new Error("refusing non-loopback target");
      const https = url.protocol === "https:";
      const port = url.port === "" ? (https ? 443 : 80) : Number(url.port);
      return { podIP: host, handler: { httpGet: { scheme: https ? "HTTPS" : "HTTP", port, path: url.pathname + url.search } } };
    }
    case "tcp": {
      const { host, port } = splitHostPort(target);
      if (!isLoopback(host)) throw new Error("refusing non-loopback target");
      return { podIP: host, handler: { tcpSocket: { port } } };
    }
    case "grpc": {
      const { host, port } = splitHostPort(target);
      if (!isLoopback(host)) throw new Error("refusing non-loopback target");
      return { podIP: host, handler: { grpc: { port } } };
    }
    case "exec": {
      const command = target.split(/\s+/).filter((s) => s !== "");
      if (command.length === 0) throw new Error("empty exec target");
      return { podIP: "127.0.0.1", handler: { exec: { command } } };
    }
  }
}

/** SyntheticPodOptions size the synthetic probes. */
export interface SyntheticPodOptions {
  periodMs: number;
  timeoutMs: number;
}

/** podUid is the UID of synthetic pod `index`. */
export function podUid(index: number): string {
  // join makes a flat string, as a decoded pod's uid is; a template literal this long makes a
  // cons string, which a map that hashes it flattens into a second copy.
  return ["bench-uid", index].join("-");
}

/** syntheticPod builds pod `index`: one container with a readiness probe of the target. */
export function syntheticPod(index: number, target: SyntheticTarget, options: SyntheticPodOptions): Pod {
  return {
    metadata: { name: `bench-${index}`, namespace: "bench", uid: podUid(index) },
    spec: {
      restartPolicy: "Always",
      containers: [
        {
          name: CONTAINER_NAME,
          // Object.assign, not `{ ...target.handler, periodSeconds, … }`: V8 gives each object
          // made by a spread with properties after it a hidden class of its own once the site has
          // run a few times (≈ 300 B per pod at 10,000 pods), which decoded pods do not pay.
          readinessProbe: Object.assign({}, target.handler, {
            periodSeconds: options.periodMs / 1000,
            timeoutSeconds: options.timeoutMs / 1000,
            successThreshold: 1,
            failureThreshold: 3,
            initialDelaySeconds: 0,
          }),
        },
      ],
    },
  };
}

/** runningStatus is pod `index`'s status: Running, with its container running and started. */
export function runningStatus(index: number, target: SyntheticTarget, startedAt: string): PodStatus {
  return {
    phase: "Running",
    podIP: target.podIP,
    containerStatuses: [
      {
        name: CONTAINER_NAME,
        containerID: ["bench://container", index].join("-"),
        state: { running: { startedAt } },
        ready: false,
        restartCount: 0,
        started: true,
      },
    ],
  };
}

/** SyntheticStatusProvider serves the synthetic pods' statuses to the workers. */
export class SyntheticStatusProvider implements PodStatusProvider {
  private readonly statuses = new Map<string, PodStatus>();
  private readonly watchers = new Set<(uid: string) => void>();

  /** set stores the status of one pod (a new object each time, as the status manager does). */
  set(uid: string, status: PodStatus): void {
    this.statuses.set(uid, status);
    for (const watcher of this.watchers) watcher(uid);
  }

  getPodStatus(podUid: string): PodStatus | undefined {
    return this.statuses.get(podUid);
  }

  watchPodStatuses(watcher: (uid: string) => void): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }
}
