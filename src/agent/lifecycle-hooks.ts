// postStart and preStop hooks (kubelet pkg/kubelet/lifecycle/handlers.go): exec in the
// container, httpGet against the pod IP, or sleep. Reuses the probe handlers' machinery.
import type { Container, LifecycleHandler, Pod } from "../api/types.js";
import type { CommandRunner } from "../probe/command-runner.js";
import { probeExec } from "../probe/exec.js";
import { probeHttp } from "../probe/http.js";
import { newHttpProbeRequest } from "../probe/http-request.js";
import { probeTcp } from "../probe/tcp.js";
import { resolveContainerPort, resolveProbeHost } from "../prober/port.js";
import type { Clock } from "../util/clock.js";

/** HookContext is what running a hook needs. */
export interface HookContext {
  runner: CommandRunner;
  clock: Clock;
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
  try {
    if (handler.exec) {
      const argv = handler.exec.command ?? [];
      const out = await probeExec(ctx.runner, ctx.containerId, argv, { timeoutMs });
      if (out.result === "success") return undefined;
      const cause = out.error?.message ?? `command '${argv.join(" ")}' exited with a failure`;
      return `Exec lifecycle hook (${goSlice(argv)}) for Container "${ctx.container.name}" in Pod "${podName(ctx.pod)}" failed - error: ${cause}, message: ${JSON.stringify(out.output)}`;
    }
    if (handler.httpGet) {
      const request = newHttpProbeRequest(handler.httpGet, ctx.container, ctx.podIP);
      const out = await probeHttp(request, { timeoutMs, followNonLocalRedirects: false });
      if (out.result === "success" || out.result === "warning") return undefined;
      return `HTTP lifecycle hook (${handler.httpGet.path ?? "/"}) for Container "${ctx.container.name}" in Pod "${podName(ctx.pod)}" failed - error: ${out.error?.message ?? out.output}`;
    }
    if (handler.tcpSocket) {
      // The kubelet never implemented tcpSocket hooks; it only logs. Probe the port for parity of effect.
      const port = resolveContainerPort(handler.tcpSocket.port, ctx.container);
      await probeTcp({ host: resolveProbeHost(handler.tcpSocket.host, ctx.podIP), port }, { timeoutMs });
      return undefined;
    }
    if (handler.sleep) {
      await ctx.clock.sleep(Math.min(handler.sleep.seconds * 1000, timeoutMs));
      return undefined;
    }
    return "lifecycle hook has no handler";
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

function podName(pod: Pod): string {
  return `${pod.metadata.name ?? ""}_${pod.metadata.namespace ?? ""}(${pod.metadata.uid ?? ""})`;
}

function goSlice(items: readonly string[]): string {
  return `[${items.join(" ")}]`;
}
