// postStart and preStop hooks (kubelet pkg/kubelet/lifecycle/handlers.go): exec in the
// container, httpGet against the pod IP, or sleep. Reuses the probe handlers' machinery.
import type { Container, HTTPGetAction, LifecycleHandler, Pod } from "../api/types.js";
import type { CommandRunner } from "../probe/command-runner.js";
import { goQuote } from "../api/field-errors.js";
import { formatPod } from "../api/format-pod.js";
import { decodeOutput } from "../probe/exec.js";
import { isHttpStatusFailure, probeHttp } from "../probe/http.js";
import { SCHEME_MISMATCH } from "../probe/http-errors.js";
import { newHttpProbeRequest, parseUrlReference, renderUrl, type HttpProbeRequest } from "../probe/http-request.js";
import type { ProbeOutcome } from "../probe/probe-result.js";
import { LIFECYCLE_USER_AGENT } from "../probe/user-agent.js";
import type { EventRecorder } from "../prober/event-recorder.js";
import type { Clock } from "../util/clock.js";

// Hook failures are recorded with fixed event messages: the hook's output may hold secrets, so
// the detail goes only to the container's waiting state (kuberuntime_container.go
// startContainer and executePreStopHook).

/** POST_START_HOOK_FAILED is the FailedPostStartHook event's message. */
export const POST_START_HOOK_FAILED = "PostStartHook failed";

/** PRE_STOP_HOOK_FAILED is the FailedPreStopHook event's message. */
export const PRE_STOP_HOOK_FAILED = "PreStopHook failed";

/** POST_START_HOOK_ERROR is the waiting reason after a failed postStart hook (ErrPostStartHook). */
export const POST_START_HOOK_ERROR = "PostStartHookError";

/** HookContext is what running a hook needs. */
export interface HookContext {
  runner: CommandRunner;
  clock: Clock;
  /** Receives the pod's LifecycleHTTPFallback event. */
  events: EventRecorder;
  pod: Pod;
  container: Container;
  containerId: string;
  podIP: string;
  /** The hook may run at most this long (the grace period for preStop). */
  timeoutMs: number;
}

/**
 * runLifecycleHook runs a hook and resolves with an error message when it failed, or undefined
 * on success. Failures are reported by the caller as FailedPostStartHook / FailedPreStopHook.
 */
export async function runLifecycleHook(handler: LifecycleHandler, ctx: HookContext): Promise<string | undefined> {
  const timeoutMs = Math.max(ctx.timeoutMs, 1);
  if (handler.exec) {
    return await runExecHook(handler.exec.command ?? [], ctx, timeoutMs);
  }
  if (handler.httpGet) {
    const cause = await runHttpHook(handler.httpGet, ctx, timeoutMs);
    if (cause === undefined) return undefined;
    return `HTTP lifecycle hook (${handler.httpGet.path ?? "/"}) for Container "${ctx.container.name}" in Pod "${formatPod(ctx.pod)}" failed - error: ${cause}`;
  }
  if (handler.sleep) {
    await ctx.clock.sleep(Math.min(handler.sleep.seconds * 1000, timeoutMs));
    return undefined;
  }
  // kubelet handlerRunner.Run: tcpSocket is accepted by validation for compatibility but has no
  // runner, so the hook fails ("Cannot run handler: invalid handler: ...") like any other failure.
  return `Cannot run handler: invalid handler: ${goHandler(handler)}`;
}

/**
 * runExecHook runs an exec hook in the container. A non-zero exit fails it with the error the
 * kubelet's CRI client builds ("command '<argv>' exited with <code>: <stderr>") and the whole
 * output, stdout then stderr, quoted (handlers.go Run, remote_runtime.go ExecSync).
 */
async function runExecHook(argv: readonly string[], ctx: HookContext, timeoutMs: number): Promise<string | undefined> {
  let cause: string;
  let output = "";
  try {
    const { stdout, stderr, exitCode } = await ctx.runner.runInContainer(ctx.containerId, argv, { timeoutMs });
    if (exitCode === 0) return undefined;
    cause = `command '${argv.join(" ")}' exited with ${exitCode}: ${decodeOutput(stderr)}`;
    output = decodeOutput(Buffer.concat([stdout, stderr]));
  } catch (err) {
    cause = err instanceof Error ? err.message : String(err);
  }
  return `Exec lifecycle hook (${goSlice(argv)}) for Container "${ctx.container.name}" in Pod "${formatPod(ctx.pod)}" failed - error: ${cause}, message: ${goQuote(output)}`;
}

/**
 * runHttpHook sends the hook's GET (User-Agent kube-lifecycle/<major>.<minor>) and resolves with
 * why it failed, or undefined. Only a request that got no response fails; the status code is not
 * looked at. An HTTPS hook that met an HTTP server is sent again over HTTP without its
 * Authorization header; if that gets a response, the hook succeeds with a LifecycleHTTPFallback
 * warning on the pod, otherwise the HTTPS error stands (handlers.go runHTTPHandler).
 */
async function runHttpHook(action: HTTPGetAction, ctx: HookContext, timeoutMs: number): Promise<string | undefined> {
  let request: HttpProbeRequest;
  try {
    request = newHttpProbeRequest(action, ctx.container, ctx.podIP, LIFECYCLE_USER_AGENT);
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  const deadline = ctx.clock.monotonic() + timeoutMs;
  const out = await probeHttp(request, { timeoutMs, followNonLocalRedirects: false });
  if (gotResponse(out)) return undefined;
  const failure = out.error?.message ?? out.output;
  const plain = failure.endsWith(`: ${SCHEME_MISMATCH}`) ? plainHttpRetry(request) : undefined;
  if (plain === undefined) return failure;
  const retry = await probeHttp(plain.request, { timeoutMs: Math.max(1, deadline - ctx.clock.monotonic()), followNonLocalRedirects: false });
  if (!gotResponse(retry)) return failure;
  ctx.events.event({ pod: ctx.pod }, "Warning", "LifecycleHTTPFallback", `request to HTTPS lifecycle hook ${plain.host} got HTTP response, retry with HTTP succeeded`);
  return undefined;
}

/** gotResponse: the hook's request was answered, whatever the status. */
function gotResponse(out: ProbeOutcome): boolean {
  return out.result === "success" || out.result === "warning" || isHttpStatusFailure(out);
}

/** plainHttpRetry is the https request over http, without Authorization, and its host:port. */
function plainHttpRetry(request: HttpProbeRequest): { request: HttpProbeRequest; host: string } | undefined {
  const parts = parseUrlReference(request.url);
  if (typeof parts === "string" || parts.scheme !== "https") return undefined;
  const headers = request.headers.filter(([name]) => name !== "Authorization");
  return { request: { ...request, url: renderUrl({ ...parts, scheme: "http" }), headers }, host: parts.authority ?? "" };
}

function goSlice(items: readonly string[]): string {
  return `[${items.join(" ")}]`;
}

/**
 * goHandler renders a handler as Go's %v of a *LifecycleHandler does (its generated String()), so
 * the failure reads as the kubelet's. Only the tcpSocket arm ever reaches it.
 */
function goHandler(handler: LifecycleHandler): string {
  const tcp = handler.tcpSocket;
  // intstr.IntOrString prints as {Type IntVal StrVal}: Type 0 for numbers, 1 for names.
  const port = tcp === undefined ? "" : typeof tcp.port === "number" ? `{0 ${tcp.port} }` : `{1 0 ${tcp.port}}`;
  const tcpText = tcp === undefined ? "nil" : `&TCPSocketAction{Port:${port},Host:${tcp.host ?? ""},}`;
  return `&LifecycleHandler{Exec:nil,HTTPGet:nil,TCPSocket:${tcpText},Sleep:nil,}`;
}
