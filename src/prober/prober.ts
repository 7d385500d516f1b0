// Prober: turns a container's probe spec into a handler call, retries only errors, maps the
// low-level verdict to a cached Result and records the kubelet's events
// (kubelet pkg/kubelet/prober/prober.go).
import { formatPod } from "../api/format-pod.js";
import { probeExtensionsOf } from "../api/probe-extensions.js";
import { probeOf } from "../api/pod-rules.js";
import type { Container, ContainerStatus, Pod, PodStatus, Probe } from "../api/types.js";
import type { CommandRunner } from "../probe/command-runner.js";
import { DEFAULT_CLOSE_MODE, type CloseMode } from "../probe/connection.js";
import { probeExec } from "../probe/exec.js";
import { expandContainerCommand } from "../probe/expand.js";
import { probeGrpc } from "../probe/grpc.js";
import { probeHttp, type HttpProbeOptions } from "../probe/http.js";
import { newHttpProbeRequest, type HttpProbeRequest } from "../probe/http-request.js";
import type { ProbeOutcome, ProbeResult } from "../probe/probe-result.js";
import type { StandingSchedule } from "../probe/native-engine.js";
import { probeTcp, type TcpProbeOptions, type TcpProbeTarget } from "../probe/tcp.js";
import { standTcp, type StandingTcpProbe, type StandingTcpSink } from "../probe/tcp-standing.js";
import { silentLogger, type Logger } from "../util/logger.js";
import { EventReason, type EventRecorder } from "./event-recorder.js";
import { resolveContainerPort, resolveProbeHost } from "../probe/port.js";
import { PROBE_TYPES, probeTypeLabel, type ProbeType } from "./probe-type.js";
import type { Result } from "./results/cached-result.js";
import type { Redact } from "./output-redaction.js";

/** MAX_PROBE_RETRIES is how often a probe that could not be run is attempted, back to back. */
export const MAX_PROBE_RETRIES = 3;

/** MAX_SHARED_OPTIONS bounds how many distinct timeouts get shared handler options. */
const MAX_SHARED_OPTIONS = 32;

/** ProbeHandlers are the four runtime-agnostic handlers; tests swap in fakes. */
export interface ProbeHandlers {
  exec: typeof probeExec;
  http: typeof probeHttp;
  tcp: typeof probeTcp;
  grpc: typeof probeGrpc;
}

/** defaultProbeHandlers are the real handlers from src/probe/. */
export const defaultProbeHandlers: ProbeHandlers = { exec: probeExec, http: probeHttp, tcp: probeTcp, grpc: probeGrpc };

/** ProberOptions configure a Prober. */
export interface ProberOptions {
  /** Runs exec probes "in the container". */
  runner: CommandRunner;
  /** Receives Unhealthy and ProbeWarning events. */
  recorder: EventRecorder;
  logger?: Logger;
  /** Handler overrides (tests). */
  handlers?: Partial<ProbeHandlers>;
  /** How TCP/HTTP/gRPC probe sockets are closed (docs/connection-hygiene.md). */
  closeMode?: CloseMode;
  /** The kubelet hard-codes false: redirects to another hostname are not followed. */
  followNonLocalRedirects?: boolean;
  /**
   * redactor gives, for a container, what scrubs its secret values from exec probe output and
   * errors (output-redaction.ts); undefined: nothing to scrub.
   */
  redactor?: (pod: Pod, container: Container) => Redact | undefined;
}

/** ProberResult is what probe() returns: a cached-result value and, if it could not run, the error. */
export interface ProberResult {
  result: Result;
  /** Set when the probe could not be run; the worker then discards the result. */
  error?: Error;
  /** The last handler outcome (for history and `probelet probe`); absent when no handler ran. */
  outcome?: ProbeOutcome;
}

/** redactOutcome scrubs an exec outcome's output and error text (the error keeps its class). */
function redactOutcome(outcome: ProbeOutcome, redact: Redact): ProbeOutcome {
  const output = redact(outcome.output);
  if (!outcome.error) return output === outcome.output ? outcome : { ...outcome, output };
  const error = outcome.error;
  const message = redact(error.message);
  if (message !== error.message) error.message = message;
  return { ...outcome, output, error };
}

/** Prober runs one probe of a container with the kubelet's semantics. */
export class Prober {
  private readonly handlers: ProbeHandlers;
  private readonly logger: Logger;
  private readonly closeMode: CloseMode;
  /**
   * Built targets and handler options, per probe spec object (a worker keeps its spec for
   * life). Like the newest kubelet, an HTTP request is rebuilt only when the pod IP it was built
   * for changes (a tcpSocket target likewise); an exec argv only when the container's env array
   * changes.
   */
  private readonly httpRequests = new WeakMap<Probe, { podIP: string; request: HttpProbeRequest; options: HttpProbeOptions }>();
  private readonly tcpTargets = new WeakMap<Probe, { podIP: string; target: TcpProbeTarget; options: TcpProbeOptions }>();
  private readonly execArgv = new WeakMap<Probe, { env: Container["env"]; argv: string[] }>();
  private readonly sharedHttpOptions = new Map<number, HttpProbeOptions>();

  constructor(private readonly options: ProberOptions) {
    this.handlers = { ...defaultProbeHandlers, ...options.handlers };
    this.logger = options.logger ?? silentLogger;
    this.closeMode = options.closeMode ?? DEFAULT_CLOSE_MODE;
  }

  /**
   * probe runs the container's probe of the given type (kubelet prober.probe). A missing spec
   * is a success; an unknown probe type is a failure with an error.
   */
  async probe(
    probeType: ProbeType,
    pod: Pod,
    status: PodStatus,
    container: Container,
    containerId: string,
    signal?: AbortSignal,
  ): Promise<ProberResult> {
    if (!PROBE_TYPES.includes(probeType)) return { result: "Failure", error: new Error(`unknown probe type: "${String(probeType)}"`) };
    const spec = probeOf(container, probeType);
    if (spec === undefined) {
      this.logger.debug("Probe is nil", { probeType, pod: pod.metadata.name, containerName: container.name });
      return { result: "Success" };
    }
    // kubelet runProbeWithRetries: back to back, up to MAX_PROBE_RETRIES, only while it errors.
    let outcome = await this.runProbe(probeType, spec, pod, status, container, containerId, signal);
    for (let attempt = 1; attempt < MAX_PROBE_RETRIES && outcome.error; attempt++) {
      outcome = await this.runProbe(probeType, spec, pod, status, container, containerId, signal);
    }
    return this.resultOf(probeType, pod, container, outcome);
  }

  /**
   * standTcp hands the ticker of a container's tcpSocket probe to the native engine
   * (tcp-standing.ts), with the target probe() would dial now. Undefined when the probe is no
   * tcpSocket probe, its handler is not the real one, its target cannot be built, or it cannot
   * stand on the engine. The sink's outcomes go through resultOf like probe()'s.
   */
  standTcp(probeType: ProbeType, status: PodStatus, container: Container, schedule: StandingSchedule, sink: StandingTcpSink): StandingTcpProbe | undefined {
    const spec = probeOf(container, probeType);
    if (!spec?.tcpSocket || this.handlers.tcp !== probeTcp) return undefined;
    try {
      const { target, options } = this.tcpTarget(spec, container, status.podIP ?? "");
      return standTcp(target, options, schedule, sink);
    } catch {
      return undefined; // probe() reports a target it cannot build
    }
  }

  /** tcpTarget is a tcpSocket probe's target and options for a pod IP, built once per IP. */
  private tcpTarget(spec: Probe, container: Container, podIP: string): { target: TcpProbeTarget; options: TcpProbeOptions } {
    let cached = this.tcpTargets.get(spec);
    if (!cached || cached.podIP !== podIP) {
      const tcp = spec.tcpSocket!;
      const target = { host: resolveProbeHost(tcp.host, podIP), port: resolveContainerPort(tcp.port, container) };
      cached = { podIP, target, options: { timeoutMs: (spec.timeoutSeconds ?? 1) * 1000, closeMode: this.closeMode } };
      this.tcpTargets.set(spec, cached);
    }
    return cached;
  }

  /**
   * runProbe builds the handler's target from the spec and the pod's current IP, and calls it;
   * a target that cannot be built, or a handler that rejects, is an error outcome.
   */
  private async runProbe(
    probeType: ProbeType,
    spec: Probe,
    pod: Pod,
    status: PodStatus,
    container: Container,
    containerId: string,
    signal: AbortSignal | undefined,
  ): Promise<ProbeOutcome> {
    const timeoutMs = (spec.timeoutSeconds ?? 1) * 1000;
    const podIP = status.podIP ?? "";
    try {
      if (spec.exec) {
        let cached = this.execArgv.get(spec);
        if (!cached || cached.env !== container.env) {
          cached = { env: container.env, argv: expandContainerCommand(spec.exec.command ?? [], container.env) };
          this.execArgv.set(spec, cached);
        }
        const outcome = await this.handlers.exec(this.options.runner, containerId, cached.argv, signal ? { timeoutMs, signal } : { timeoutMs });
        const redact = this.options.redactor?.(pod, container);
        return redact ? redactOutcome(outcome, redact) : outcome;
      }
      if (spec.httpGet) {
        let cached = this.httpRequests.get(spec);
        if (!cached || cached.podIP !== podIP) {
          // The opt-in HTTP success rule (probe extension), parsed with the request it goes with.
          const expect = probeExtensionsOf(pod, container, probeType)?.http;
          const options: HttpProbeOptions = expect ? { ...this.httpOptions(timeoutMs), expect } : this.httpOptions(timeoutMs);
          cached = { podIP, request: newHttpProbeRequest(spec.httpGet, container, podIP), options };
          this.httpRequests.set(spec, cached);
        }
        return await this.handlers.http(cached.request, signal ? { ...cached.options, signal } : cached.options);
      }
      if (spec.tcpSocket) {
        const cached = this.tcpTarget(spec, container, podIP);
        return await this.handlers.tcp(cached.target, signal ? { ...cached.options, signal } : cached.options);
      }
      if (spec.grpc) {
        const target = { host: podIP, port: spec.grpc.port, service: spec.grpc.service ?? "" };
        return await this.handlers.grpc(target, signal ? { timeoutMs, signal, closeMode: this.closeMode } : { timeoutMs, closeMode: this.closeMode });
      }
    } catch (err) {
      // Target construction failed (e.g. an unresolvable named port), or a handler rejected:
      // the probe could not run.
      return { result: "unknown", output: "", error: asError(err) };
    }
    this.logger.warn("Failed to find probe builder for container", { pod: pod.metadata.name, containerName: container.name });
    // kubelet prober.go runProbe: "missing probe handler for <format.Pod>:<container>".
    return { result: "unknown", output: "", error: new Error(`missing probe handler for ${formatPod(pod)}:${container.name}`) };
  }

  /**
   * httpOptions are the handler options of an httpGet probe without a success rule; workers
   * with the same timeout share one frozen object (a few distinct timeouts are kept).
   */
  private httpOptions(timeoutMs: number): HttpProbeOptions {
    let options = this.sharedHttpOptions.get(timeoutMs);
    if (options === undefined) {
      options = Object.freeze({ timeoutMs, followNonLocalRedirects: this.options.followNonLocalRedirects ?? false, closeMode: this.closeMode });
      if (this.sharedHttpOptions.size < MAX_SHARED_OPTIONS) this.sharedHttpOptions.set(timeoutMs, options);
    }
    return options;
  }

  /** resultOf maps a handler outcome to a Result (with the outcome) and records the kubelet's events. */
  resultOf(probeType: ProbeType, pod: Pod, container: Container, outcome: ProbeOutcome): ProberResult {
    const label = probeTypeLabel(probeType);
    const target = { pod, containerName: container.name };
    const fields = (): Record<string, unknown> => ({ probeType, pod: pod.metadata.name, podUID: pod.metadata.uid, containerName: container.name });
    if (outcome.error) {
      this.logger.info("Probe errored", { ...fields(), probeResult: outcome.result, err: outcome.error });
      this.options.recorder.event(
        target,
        "Warning",
        EventReason.Unhealthy,
        `${label} probe errored and resulted in ${outcome.result} state: ${outcome.error.message}`,
      );
      return { result: "Failure", error: outcome.error, outcome };
    }
    const result: ProbeResult = outcome.result;
    switch (result) {
      case "success":
        if (this.logger.isEnabled("debug")) this.logger.debug("Probe succeeded", fields());
        return { result: "Success", outcome };
      case "warning":
        this.options.recorder.event(target, "Warning", EventReason.ProbeWarning, `${label} probe warning: ${outcome.output}`);
        if (this.logger.isEnabled("debug")) this.logger.debug("Probe succeeded with a warning", { ...fields(), output: outcome.output });
        return { result: "Success", outcome };
      case "failure":
        if (this.logger.isEnabled("info")) this.logger.info("Probe failed", { ...fields(), probeResult: result, output: outcome.output });
        this.options.recorder.event(target, "Warning", EventReason.Unhealthy, `${label} probe failed: ${outcome.output}`);
        return { result: "Failure", outcome };
      default:
        // "unknown" without an error, or any value a custom handler invents: a silent failure.
        if (this.logger.isEnabled("info")) this.logger.info("Probe unknown without error", { ...fields(), probeResult: result });
        return { result: "Failure", outcome };
    }
  }
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/** findContainerStatus is the worker's lookup: by name, skipping entries without a container ID. */
export function findContainerStatus(status: PodStatus, name: string): ContainerStatus | undefined {
  return findNamed(status.containerStatuses, name) ?? findNamed(status.initContainerStatuses, name);
}

function findNamed(list: ContainerStatus[] | undefined, name: string): ContainerStatus | undefined {
  if (list === undefined) return undefined;
  for (const s of list) if (s.name === name && (s.containerID ?? "") !== "") return s;
  return undefined;
}
