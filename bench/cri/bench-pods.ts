// The pods the CRI benchmarks give the agent, and the instrumentation they share: a hostNetwork
// busybox pod whose one container runs a TERM-aware sleeper and has an exec readiness probe,
// and Runtime wrappers that observe calls (count them, time runInContainer, i.e. ExecSync)
// without changing what the agent does.
import type { Pod } from "../../src/api/types.js";
import type { Runtime } from "../../src/runtime/runtime.js";
import { performance } from "node:perf_hooks";
import { BUSYBOX_IMAGE, SLEEPER } from "./raw-pods.js";
import type { WindowCounts } from "./child-protocol.js";

/** CONTAINER_NAME is the name of every bench pod's container. */
export const CONTAINER_NAME = "main";

/** BenchPodOptions shape one bench pod. */
export interface BenchPodOptions {
  name: string;
  namespace: string;
  /** The exec readiness probe's command. */
  probeCommand: string[];
  periodSeconds: number;
  timeoutSeconds: number;
}

/**
 * benchPod is a hostNetwork pod with one busybox container (PID 1 exits on SIGTERM, so a delete
 * takes milliseconds) and an exec readiness probe; grace 5 s bounds a stuck stop.
 */
export function benchPod(options: BenchPodOptions): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: options.name, namespace: options.namespace },
    spec: {
      hostNetwork: true,
      restartPolicy: "Always",
      terminationGracePeriodSeconds: 5,
      containers: [
        {
          name: CONTAINER_NAME,
          image: BUSYBOX_IMAGE,
          command: ["sh", "-c", SLEEPER],
          readinessProbe: {
            exec: { command: [...options.probeCommand] },
            periodSeconds: options.periodSeconds,
            timeoutSeconds: options.timeoutSeconds,
            successThreshold: 1,
            failureThreshold: 3,
            initialDelaySeconds: 0,
          },
        },
      ],
    },
  };
}

/** isPodReady reports the pod's Ready condition. */
export function isPodReady(pod: Pod): boolean {
  return pod.status?.conditions?.find((c) => c.type === "Ready")?.status === "True";
}

/** isContainerRunning reports whether the pod's status shows its container running. */
export function isContainerRunning(pod: Pod): boolean {
  return pod.status?.containerStatuses?.find((c) => c.name === CONTAINER_NAME)?.state?.running !== undefined;
}

/** CallObserver sees every finished Runtime call: method, start and end (performance.now() ms), outcome. */
export type CallObserver = (method: string, startedMs: number, endedMs: number, outcome: { ok: true; value: unknown } | { ok: false; error: unknown }) => void;

/**
 * instrumentRuntime wraps a Runtime so that every method call is reported to `observe` when it
 * settles; the calls themselves are passed through unchanged (same arguments, same results).
 */
export function instrumentRuntime(runtime: Runtime, observe: CallObserver): Runtime {
  const wrappers = new Map<string, (...args: unknown[]) => unknown>();
  const wrap =
    (property: string, method: (...args: unknown[]) => unknown) =>
    (...args: unknown[]): unknown => {
      const started = performance.now();
      const result = method.apply(runtime, args);
      if (!(result instanceof Promise)) return result;
      return result.then(
        (value: unknown) => {
          observe(property, started, performance.now(), { ok: true, value });
          return value;
        },
        (error: unknown) => {
          observe(property, started, performance.now(), { ok: false, error });
          throw error;
        },
      );
    };
  return new Proxy(runtime, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function" || typeof property !== "string") return value;
      let wrapper = wrappers.get(property);
      if (!wrapper) {
        wrapper = wrap(property, value as (...args: unknown[]) => unknown);
        wrappers.set(property, wrapper);
      }
      return wrapper;
    },
  });
}

/**
 * countingRuntime counts every call in `counts().calls`, and every runInContainer (one ExecSync)
 * in ops, failures (an error or a non-zero exit) and latencies. `counts` is looked up per call,
 * so the child protocol can swap the counters at the start of a window.
 */
export function countingRuntime(runtime: Runtime, counts: () => WindowCounts): Runtime {
  return instrumentRuntime(runtime, (method, started, ended, outcome) => {
    const c = counts();
    c.calls[method] = (c.calls[method] ?? 0) + 1;
    if (method !== "runInContainer") return;
    c.ops++;
    if (outcome.ok) c.latenciesMs.push(ended - started);
    if (!outcome.ok || (outcome.value as { exitCode?: number }).exitCode !== 0) c.failures++;
  });
}
