// Node e2e "Container Lifecycle Hook" (upstream test/e2e/common/node/lifecycle_hook.go, "when
// create a pod with lifecycle hook"): postStart and preStop, exec, httpGet and httpGet over HTTPS
// ([MinimumKubeletVersion:1.23]: an unverified self-signed certificate), each calling a
// handler that records what it was asked. Upstream's handler is an agnhost netexec pod; here it is
// a loopback HTTP server in the test process, reached by the pods at 127.0.0.1 (process pods share
// the host's loopback, CRI pods use the host network). Titled `[<runtime>] Container Lifecycle
// Hook …` for every runtime factory.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Container, Lifecycle } from "../../src/api/types.js";
import { POST_START_HOOK_ERROR, POST_START_HOOK_FAILED } from "../../src/kuberuntime/lifecycle-hooks.js";
import { LIFECYCLE_USER_AGENT } from "../../src/probe/user-agent.js";
import { makeSelfSignedCert, startHttpServer, startHttpsServer, type HttpHandler, type TestServer, type TlsMaterial } from "../servers/http-servers.js";
import { containerStatusOf, E2eEnv, NAMESPACE } from "./harness.js";
import { podWith } from "./pod-specs.js";
import type { RuntimeFactory } from "./runtime-factory.js";

/** HookCase is one upstream test: the hook it sets, given the handler's address. */
interface HookCase {
  name: string;
  phase: "poststart" | "prestop";
  /** The handler serves HTTPS with a self-signed certificate (the kubelet does not verify it). */
  tls?: true;
  lifecycle(env: E2eEnv, handler: TestServer): Lifecycle;
}

const echo = (phase: string): string => `/echo?msg=${phase}`;

const HOOK_CASES: readonly HookCase[] = [
  {
    name: "should execute poststart exec hook properly",
    phase: "poststart",
    lifecycle: (env, handler) => ({ postStart: { exec: { command: env.kit.httpGet(handler.url(echo("poststart"))) } } }),
  },
  {
    name: "should execute prestop exec hook properly",
    phase: "prestop",
    lifecycle: (env, handler) => ({ preStop: { exec: { command: env.kit.httpGet(handler.url(echo("prestop"))) } } }),
  },
  {
    name: "should execute poststart http hook properly",
    phase: "poststart",
    lifecycle: (_env, handler) => ({ postStart: { httpGet: { path: echo("poststart"), host: "127.0.0.1", port: handler.port } } }),
  },
  {
    name: "should execute prestop http hook properly",
    phase: "prestop",
    lifecycle: (_env, handler) => ({ preStop: { httpGet: { path: echo("prestop"), host: "127.0.0.1", port: handler.port } } }),
  },
  {
    name: "should execute poststart https hook properly",
    phase: "poststart",
    tls: true,
    lifecycle: (_env, handler) => ({ postStart: { httpGet: { scheme: "HTTPS", path: echo("poststart"), host: "127.0.0.1", port: handler.port } } }),
  },
  {
    name: "should execute prestop https hook properly",
    phase: "prestop",
    tls: true,
    lifecycle: (_env, handler) => ({ preStop: { httpGet: { scheme: "HTTPS", path: echo("prestop"), host: "127.0.0.1", port: handler.port } } }),
  },
];

let selfSigned: TlsMaterial | undefined | null = null;

/** handlerTls makes the HTTPS handler's certificate once per process (undefined without openssl). */
function handlerTls(): TlsMaterial | undefined {
  if (selfSigned === null) selfSigned = makeSelfSignedCert();
  return selfSigned;
}

/** Upstream waits up to 2 minutes for a postStart hook; the hooks here answer in well under a second. */
const HOOK_WAIT_MS = 20_000;

/**
 * registerLifecycleHookCases declares one test per upstream hook case, then the kubelet rules
 * for hook failures and HTTPS fallback (call inside a describe).
 */
export function registerLifecycleHookCases(factory: RuntimeFactory): void {
  registerUpstreamCases(factory);
  registerHookRuleCases(factory);
}

function registerUpstreamCases(factory: RuntimeFactory): void {
  const skip = factory.available();
  for (const c of HOOK_CASES) {
    test(`[${factory.name}] Container Lifecycle Hook ${c.name}`, { timeout: 60_000, ...(skip !== undefined ? { skip } : {}) }, async (t) => {
      const seen: Array<{ url: string; at: number }> = [];
      const record: HttpHandler = (req, res) => {
        seen.push({ url: req.url ?? "", at: Date.now() });
        res.end("ok");
      };
      const tls = c.tls ? handlerTls() : undefined;
      if (c.tls && tls === undefined) {
        t.skip("openssl is not installed: no certificate for the HTTPS handler (.ci/run installs it)");
        return;
      }
      const handler = tls === undefined ? await startHttpServer(record) : await startHttpsServer(record, tls);
      t.after(() => handler.close());
      const env = await E2eEnv.start(t, factory);
      const container: Container = { name: `pod-with-${c.phase}-hook`, ...env.kit.agnhost("pause"), lifecycle: c.lifecycle(env, handler) };
      const spec = podWith(env.kit, "container", `pod-with-${c.phase}-hook`, container);
      // Upstream deletes the pod with a 15 s grace period.
      const name = env.create({ ...spec, spec: { ...spec.spec, terminationGracePeriodSeconds: 15 } }).metadata.name!;
      await env.waitFor(name, "the hooked container to run", HOOK_WAIT_MS, (p) => containerStatusOf(p, container.name)?.state?.running);
      const hits = (): number => seen.filter((s) => s.url === echo(c.phase)).length;

      if (c.phase === "poststart") {
        await waitUntil(() => hits() > 0, HOOK_WAIT_MS, () => `no ${echo(c.phase)} request; handler saw ${JSON.stringify(seen)}\n${env.describe(name)}`);
        // The hook succeeded: the container keeps running, nothing was killed.
        await env.waitFor(name, "the pod to be Running", HOOK_WAIT_MS, (p) => (p?.status?.phase === "Running" ? true : undefined));
        assert.equal(containerStatusOf(env.get(name), container.name)?.restartCount, 0);
      } else {
        assert.equal(hits(), 0, "preStop ran before the pod was deleted");
        const deletedAt = Date.now();
        env.agent.deletePod(NAMESPACE, name);
        await env.waitFor(name, "the pod to be gone", HOOK_WAIT_MS, (p) => (p === undefined ? true : undefined));
        assert.equal(hits(), 1, `handler saw ${JSON.stringify(seen)}`);
        assert.ok(seen[0]!.at >= deletedAt);
      }
      // No failure event: for the exec preStop hook this also shows the container was still
      // running when the hook ran (an exec in a stopped container fails).
      const reasons = env.events(name).map((e) => e.reason);
      for (const failed of ["FailedPostStartHook", "FailedPreStopHook"]) assert.ok(!reasons.includes(failed), `${failed} event: ${env.describe(name)}`);
    });
  }
}

/**
 * registerHookRuleCases: what the kubelet does beyond upstream's success cases
 * (lifecycle/handlers.go runHTTPHandler, kuberuntime_container.go startContainer).
 */
function registerHookRuleCases(factory: RuntimeFactory): void {
  const skip = factory.available();
  const options = { timeout: 60_000, ...(skip !== undefined ? { skip } : {}) };

  test(`[${factory.name}] Container Lifecycle Hook an HTTPS httpGet hook against an HTTP handler is retried over HTTP with a LifecycleHTTPFallback warning`, options, async (t) => {
    const seen: Array<{ url: string; userAgent: string }> = [];
    const handler = await startHttpServer((req, res) => {
      seen.push({ url: req.url ?? "", userAgent: req.headers["user-agent"] ?? "" });
      res.end("ok");
    });
    t.after(() => handler.close());
    const env = await E2eEnv.start(t, factory);
    const lifecycle: Lifecycle = { postStart: { httpGet: { scheme: "HTTPS", path: echo("poststart"), host: "127.0.0.1", port: handler.port } } };
    const container: Container = { name: "pod-with-poststart-hook", ...env.kit.agnhost("pause"), lifecycle };
    const name = env.create(podWith(env.kit, "container", "pod-with-https-fallback", container)).metadata.name!;
    await env.waitFor(name, "the pod to be Running", HOOK_WAIT_MS, (p) => (p?.status?.phase === "Running" ? true : undefined));
    await waitUntil(() => env.events(name).some((e) => e.reason === "LifecycleHTTPFallback"), HOOK_WAIT_MS, () => env.describe(name));
    // The HTTPS attempt was a ClientHello the handler answered with 400; only the retry is a request.
    assert.deepEqual(seen, [{ url: echo("poststart"), userAgent: LIFECYCLE_USER_AGENT }]);
    const fallback = env.events(name).filter((e) => e.reason === "LifecycleHTTPFallback");
    assert.deepEqual(
      fallback.map((e) => [e.type, e.message, e.involvedObject.fieldPath]),
      [["Warning", `request to HTTPS lifecycle hook 127.0.0.1:${handler.port} got HTTP response, retry with HTTP succeeded`, undefined]],
    );
    assert.ok(!env.events(name).some((e) => e.reason === "FailedPostStartHook"), env.describe(name));
    assert.equal(containerStatusOf(env.get(name), container.name)?.restartCount, 0);
  });

  test(`[${factory.name}] Container Lifecycle Hook a failed postStart hook records FailedPostStartHook without its output and its error as the waiting state PostStartHookError`, options, async (t) => {
    const env = await E2eEnv.start(t, factory);
    const lifecycle: Lifecycle = { postStart: { exec: { command: ["sh", "-c", "echo hook-output-stays-private; exit 3"] } } };
    const container: Container = { name: "pod-with-poststart-hook", ...env.kit.agnhost("pause"), lifecycle };
    const name = env.create(podWith(env.kit, "container", "pod-with-failing-hook", container)).metadata.name!;
    await waitUntil(() => env.events(name).some((e) => e.reason === "FailedPostStartHook"), HOOK_WAIT_MS, () => env.describe(name));
    const failed = env.events(name).filter((e) => e.reason === "FailedPostStartHook");
    assert.deepEqual(failed.map((e) => [e.type, e.message, e.involvedObject.fieldPath]), [["Warning", POST_START_HOOK_FAILED, `spec.containers{${container.name}}`]]);
    assert.ok(!env.eventLog.some((e) => e.object.message.includes("hook-output-stays-private")), "an event carries the hook's output");
    const waitingOf = (): { reason?: string; message?: string } | undefined =>
      env.podLog.map((p) => containerStatusOf(p.object, container.name)?.state?.waiting).find((w) => w?.reason === POST_START_HOOK_ERROR);
    await waitUntil(() => waitingOf() !== undefined, HOOK_WAIT_MS, () => env.describe(name));
    const waiting = waitingOf()!;
    assert.ok(waiting.message?.startsWith(`Exec lifecycle hook ([sh -c echo hook-output-stays-private; exit 3]) for Container "${container.name}" in Pod "${name}_`), waiting.message);
    assert.ok(waiting.message?.includes('message: "hook-output-stays-private\\n"'), waiting.message);
  });
}

async function waitUntil(check: () => boolean, timeoutMs: number, explain: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; i < timeoutMs / 100 + 1 && !check(); i++) {
    if (Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.ok(check(), explain());
}
