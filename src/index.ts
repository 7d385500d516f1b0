// probelet's public programmatic surface: the single barrel. Everything exported here is
// documented where it is defined; docs/architecture.md maps it to the kubelet's files.

// core/v1 data model, defaulting, validation and strict decoding.
export type * from "./api/types.js";
export { defaultPod, defaultProbe, PROBE_DEFAULTS } from "./api/defaults.js";
export { validatePod, validateProbe, defaultAndValidatePod, type ValidationOptions, type DefaultAndValidateResult } from "./api/validation.js";
export { lintPod } from "./api/probe-lint.js";
export { probeExtensionsOf, validatePodProbeExtensions, PROBE_EXTENSION_PREFIX, type ProbeExtensions, type HttpExpectation, type StatusRange } from "./api/probe-extensions.js";
export { formatFieldError, formatFieldErrors, aggregateFieldErrors, type FieldError, type FieldErrorType } from "./api/field-errors.js";
export { decodePods, decodeProbe, type DecodeResult } from "./api/decode.js";

// Handlers: runtime-agnostic, one per probe kind (kubelet pkg/probe).
export { MAX_OUTPUT_BYTES, type ProbeOutcome, type ProbeResult, type HandlerOptions } from "./probe/probe-result.js";
export { probeExec, execTimeoutMessage, type ExecProbeOptions } from "./probe/exec.js";
export { probeHttp, type HttpProbeOptions } from "./probe/http.js";
export { newHttpProbeRequest, formatURL, type HttpProbeRequest } from "./probe/http-request.js";
export { probeTcp, type TcpProbeOptions, type TcpProbeTarget } from "./probe/tcp.js";
export { probeGrpc, type GrpcProbeOptions, type GrpcProbeTarget } from "./probe/grpc.js";
export { expandContainerCommand } from "./probe/expand.js";
export { CommandTimeoutError, type CommandRunner, type CommandResult, type CommandRunOptions } from "./probe/command-runner.js";
export { HostCommandRunner, type HostCommandRunnerOptions, type HostExecContext } from "./probe/host-runner.js";
export { DEFAULT_CLOSE_MODE, type CloseMode } from "./probe/connection.js";
export { PROBE_USER_AGENT, KUBE_VERSION } from "./probe/user-agent.js";

// The prober, workers, manager, results and metrics (kubelet pkg/kubelet/prober).
export { Prober, MAX_PROBE_RETRIES, defaultProbeHandlers, type ProberOptions, type ProberResult, type ProbeHandlers } from "./prober/prober.js";
export { Worker, INITIAL_VALUES, type PodStatusProvider, type ProbeRecord } from "./prober/worker.js";
export { DEFAULT_WORKER_FEATURES, type WorkerFeatures } from "./prober/worker-policy.js";
export { ProbeManager, canInheritProbeState, type ProbeManagerOptions, type ProbeKey } from "./prober/manager.js";
export { ResultsManager, type ResultUpdate, type ResultListener, type SubscribeOptions } from "./prober/results/results-manager.js";
export { resultString, toPrometheusType, type Result } from "./prober/results/cached-result.js";
export { ProberMetrics } from "./prober/metrics.js";
export { ProbeHistory, RECENT_ENTRIES, DEFAULT_HISTORY_WINDOW_MS, describeRun, type ProbeHistoryEntry, type ProbeHistorySegment, type ProbeHistoryRange } from "./prober/probe-history.js";
export { PROBE_TYPES, type ProbeType } from "./prober/probe-type.js";
export { resolveContainerPort } from "./probe/port.js";
export { MemoryEventRecorder, noopEventRecorder, EventReason, type EventRecorder, type EventTarget, type EventType } from "./prober/event-recorder.js";

// Probing a target with a Probe spec, once or until ready (also the lighter "probelet/probe" entry).
export { waitUntilReady, probeOnce, ProbeSpecError, ProbeFailedError, type ProbeAttempt, type ProbeTargetOptions, type WaitOptions, type ReadyResult } from "./target-probe.js";

// Pod status and conditions (kubelet pkg/kubelet/status), and probe-driven runtime decisions.
export { StatusManager, type StatusManagerOptions, type PodLookup } from "./status/status-manager.js";
export { generateContainersReadyCondition, generatePodReadyCondition, generateInitializedCondition } from "./status/generate.js";
export { computeContainerActions, type PodActions, type ContainerDecision } from "./kuberuntime/container-actions.js";
export { killGracePeriodSeconds } from "./kuberuntime/grace-period.js";

// The agent, its runtimes and its status API.
export { Agent, type AgentOptions, type AdmitResult } from "./agent/agent.js";
export { startLocalApiServer, type LocalApiServer } from "./apiserver/local-api-server.js";
export { ConfigObjectError, MemoryConfigObjects, type ConfigObjects, type ConfigObjectChange, type ConfigObjectKind } from "./volumes/config-objects.js";
export { ApiError, type AgentApi, type KubeEvent, type WatchEvent, type LogRequest } from "./apiserver/endpoints/host-interface.js";
export { RuntimeError, type Runtime, type ContainerInfo, type PodSandboxConfig, type PodSandboxStatus, type ContainerConfig } from "./runtime/runtime.js";
export { ProcessRuntime, type ProcessRuntimeOptions } from "./runtime/process/process-runtime.js";
export { startStatusServer, type StatusServer, type StatusServerOptions } from "./server/server.js";
export { consoleGateFactory } from "./console/console-gate.js";
export { ConsoleSessions } from "./console/console-sessions.js";

// Time and logging seams.
export { SystemClock, systemClock, type Clock } from "./util/clock.js";
export { createLogger, silentLogger, type Logger, type LogLevel } from "./util/logger.js";
