// postStart and preStop hooks: each handler's outcome and message (kubelet lifecycle/handlers.go),
// HTTP against real loopback servers, and the agent's reactions (kuberuntime startContainer and
// killContainer) on a fake runtime and a fake clock.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Container, LifecycleHandler, Pod } from "../api/types.js";
import type { CommandResult, CommandRunner } from "../probe/command-runner.js";
import { FakeClock, flushMicrotasks } from "../../test/fakes/fake-clock.js";
import { admitRunning, startAgentOnFakes } from "../../test/fakes/fake-agent.js";
import { makeSelfSignedCert, startHttpServer, startHttpsServer, startRawServer, type TestServer } from "../../test/servers/http-servers.js";
import { MemoryEventRecorder } from "../prober/event-recorder.js";
import { KUBE_VERSION } from "../probe/user-agent.js";
import { Agent } from "../agent/agent.js";
import { POST_START_HOOK_ERROR, POST_START_HOOK_FAILED, PRE_STOP_HOOK_FAILED, runLifecycleHook, type HookContext } from "./lifecycle-hooks.js";

const POD: Pod = { metadata: { name: "web", namespace: "default", uid: "uid-1" }, spec: { containers: [] } };
const CONTAINER: Container = { name: "app", ports: [{ name: "http", containerPort: 8080 }] };

/** scripted answers a hook's exec with a fixed result, or rejects with an error. */
function scripted(answer: CommandResult | Error): CommandRunner {
  return {
    runInContainer: async () => {
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
}

function context(runner: CommandRunner, overrides: Partial<HookContext> = {}): HookContext {
  return { runner, clock: new FakeClock(0), events: new MemoryEventRecorder(), pod: POD, container: CONTAINER, containerId: "fake://c1", podIP: "127.0.0.1", timeoutMs: 2000, ...overrides };
}

const exited = (exitCode: number, stdout = "", stderr = ""): CommandResult => ({ exitCode, stdout: Buffer.from(stdout), stderr: Buffer.from(stderr) });

describe("runLifecycleHook", () => {
  let server: TestServer;
  let closedPort: number;
  before(async () => {
    server = await startHttpServer((req, res) => {
      res.statusCode = req.url === "/broken" ? 500 : req.url === "/moved" ? 302 : 200;
      if (res.statusCode === 302) res.setHeader("Location", "http://192.0.2.1/elsewhere");
      res.end("body");
    });
    const closed = await startHttpServer((_req, res) => res.end());
    closedPort = closed.port;
    await closed.close();
  });
  after(() => server.close());

  const cases: Array<{ name: string; handler: () => LifecycleHandler; runner?: CommandRunner; want: () => string | undefined }> = [
    { name: "exec exit 0 → done", handler: () => ({ exec: { command: ["sh", "-c", "true"] } }), runner: scripted(exited(0, "ignored")), want: () => undefined },
    {
      name: "exec exit 3 → the CRI client's error and stdout then stderr, quoted",
      handler: () => ({ exec: { command: ["sh", "-c", "exit 3"] } }),
      runner: scripted(exited(3, "out\n", "bad \"thing\"")),
      want: () => `Exec lifecycle hook ([sh -c exit 3]) for Container "app" in Pod "web_default(uid-1)" failed - error: command 'sh -c exit 3' exited with 3: bad "thing", message: "out\\nbad \\"thing\\""`,
    },
    {
      name: "exec that cannot run → its error and an empty message",
      handler: () => ({ exec: { command: ["missing"] } }),
      runner: scripted(new Error("container not running (c1)")),
      want: () => `Exec lifecycle hook ([missing]) for Container "app" in Pod "web_default(uid-1)" failed - error: container not running (c1), message: ""`,
    },
    { name: "httpGet 200 → done", handler: () => ({ httpGet: { path: "/ok", port: server.port } }), want: () => undefined },
    { name: "httpGet 500 → done (the hook runner does not look at the status)", handler: () => ({ httpGet: { path: "/broken", port: server.port } }), want: () => undefined },
    { name: "httpGet redirect to another host → done", handler: () => ({ httpGet: { path: "/moved", port: server.port } }), want: () => undefined },
    {
      name: "httpGet with no answer → the request's error",
      handler: () => ({ httpGet: { path: "/hook", port: closedPort } }),
      want: () => `HTTP lifecycle hook (/hook) for Container "app" in Pod "web_default(uid-1)" failed - error: Get "http://127.0.0.1:${closedPort}/hook": dial tcp 127.0.0.1:${closedPort}: connect: connection refused`,
    },
    {
      name: "httpGet with a named port that the container does not have → the kubelet's port error",
      handler: () => ({ httpGet: { path: "/", port: "metrics" } }),
      want: () => `HTTP lifecycle hook (/) for Container "app" in Pod "web_default(uid-1)" failed - error: port "metrics" not found`,
    },
    {
      name: "tcpSocket with a number → cannot run (the kubelet has no tcpSocket hook runner)",
      handler: () => ({ tcpSocket: { port: 8080 } }),
      want: () => "Cannot run handler: invalid handler: &LifecycleHandler{Exec:nil,HTTPGet:nil,TCPSocket:&TCPSocketAction{Port:{0 8080 },Host:,},Sleep:nil,}",
    },
    {
      name: "tcpSocket with a name and a host → cannot run",
      handler: () => ({ tcpSocket: { port: "http", host: "10.0.0.1" } }),
      want: () => "Cannot run handler: invalid handler: &LifecycleHandler{Exec:nil,HTTPGet:nil,TCPSocket:&TCPSocketAction{Port:{1 0 http},Host:10.0.0.1,},Sleep:nil,}",
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      assert.equal(await runLifecycleHook(c.handler(), context(c.runner ?? scripted(exited(0)))), c.want());
    });
  }

  test("sleep waits its seconds on the clock, at most the hook's time", async () => {
    for (const [seconds, timeoutMs, wantMs] of [[3, 30_000, 3000], [60, 2000, 2000]] as const) {
      const clock = new FakeClock(0);
      let done: string | undefined | "pending" = "pending";
      void runLifecycleHook({ sleep: { seconds } }, context(scripted(exited(0)), { clock, timeoutMs })).then((r) => (done = r));
      await clock.advance(wantMs - 1);
      await flushMicrotasks(10);
      assert.equal(done, "pending", `sleep ${seconds}s ended early`);
      await clock.advance(1);
      await flushMicrotasks(10);
      assert.equal(done, undefined, `sleep ${seconds}s did not end at ${wantMs} ms`);
    }
  });
});

describe("httpGet hooks", () => {
  const seen: Array<{ url: string; userAgent: string; authorization: string }> = [];
  let plain: TestServer;
  before(async () => {
    plain = await startHttpServer((req, res) => {
      seen.push({ url: req.url ?? "", userAgent: req.headers["user-agent"] ?? "", authorization: req.headers.authorization ?? "" });
      res.end("ok");
    });
  });
  after(() => plain.close());

  test("an httpGet hook sends User-Agent kube-lifecycle/<major>.<minor>, the emulated kubelet version", async () => {
    seen.length = 0;
    assert.equal(await runLifecycleHook({ httpGet: { path: "/ua", port: plain.port } }, context(scripted(exited(0)))), undefined);
    assert.deepEqual(seen.map((s) => s.userAgent), [`kube-lifecycle/${KUBE_VERSION.major}.${KUBE_VERSION.minor}`]);
  });

  test("an HTTPS hook that meets an HTTP server is retried over HTTP without Authorization, with a LifecycleHTTPFallback warning", async () => {
    seen.length = 0;
    const events = new MemoryEventRecorder();
    const handler: LifecycleHandler = {
      httpGet: { scheme: "HTTPS", path: "/fallback", port: plain.port, httpHeaders: [{ name: "Authorization", value: "Bearer hook-secret" }] },
    };
    assert.equal(await runLifecycleHook(handler, context(scripted(exited(0)), { events })), undefined);
    // The HTTPS attempt reached the server as a TLS ClientHello it could not parse; only the retry is a request.
    assert.deepEqual(seen, [{ url: "/fallback", userAgent: `kube-lifecycle/${KUBE_VERSION.major}.${KUBE_VERSION.minor}`, authorization: "" }]);
    assert.deepEqual(events.strings(), [`Warning LifecycleHTTPFallback request to HTTPS lifecycle hook 127.0.0.1:${plain.port} got HTTP response, retry with HTTP succeeded`]);
    assert.equal(events.events[0]!.target.containerName, undefined, "the event is the pod's");
  });

  test("an HTTPS hook whose HTTP retry gets no answer fails with the HTTPS error and records no fallback", async (t) => {
    let connections = 0;
    const server = await startRawServer((socket) => {
      connections++;
      // First connection: an HTTP answer to the ClientHello. Second (the HTTP retry): reset.
      if (connections === 1) socket.once("data", () => socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n"));
      else socket.once("data", () => socket.resetAndDestroy());
    });
    t.after(() => server.close());
    const events = new MemoryEventRecorder();
    const failure = await runLifecycleHook({ httpGet: { scheme: "HTTPS", path: "/hook", port: server.port } }, context(scripted(exited(0)), { events }));
    assert.equal(failure, `HTTP lifecycle hook (/hook) for Container "app" in Pod "web_default(uid-1)" failed - error: Get "https://127.0.0.1:${server.port}/hook": http: server gave HTTP response to HTTPS client`);
    assert.equal(connections, 2, "the HTTP retry was sent");
    assert.deepEqual(events.strings(), []);
  });

  test("an HTTPS hook against an HTTPS server succeeds without a retry", async (t) => {
    const tls = makeSelfSignedCert();
    if (!tls) return t.skip("openssl is not available to make a certificate");
    const agents: string[] = [];
    const server = await startHttpsServer((req, res) => (agents.push(req.headers["user-agent"] ?? ""), res.end("ok")), tls);
    t.after(() => server.close());
    const events = new MemoryEventRecorder();
    assert.equal(await runLifecycleHook({ httpGet: { scheme: "HTTPS", path: "/", port: server.port } }, context(scripted(exited(0)), { events })), undefined);
    assert.deepEqual([agents, events.strings()], [[`kube-lifecycle/${KUBE_VERSION.major}.${KUBE_VERSION.minor}`], []]);
    assert.equal(server.connections(), 1);
  });
});

describe("agent lifecycle hooks", () => {
  const reasons = (agent: Agent) => agent.listEvents("default").map((e) => `${e.reason}: ${e.message}`);

  test("a failed postStart hook kills the container with FailedPostStartHook and it is restarted", async () => {
    const { clock, runtime, agent } = startAgentOnFakes();
    runtime.execExit.set("app", 1);
    await admitRunning(agent, clock, {
      metadata: { name: "p", namespace: "default" },
      spec: { containers: [{ name: "app", image: "img", command: ["app"], lifecycle: { postStart: { exec: { command: ["init-hook"] } } } }] },
    });
    const calls = runtime.calls.filter((c) => /^(start|exec|stop) /.test(c));
    assert.deepEqual(calls.slice(0, 3), ["start app#0", "exec app#0 init-hook", "stop app#0 grace=30"]);
    const events = reasons(agent);
    assert.ok(events.includes(`FailedPostStartHook: ${POST_START_HOOK_FAILED}`), events.join("\n"));
    assert.ok(events.includes("Killing: FailedPostStartHook"), events.join("\n"));
    // The kill is a container exit like any other: restartPolicy Always starts it again after the back-off.
    for (let s = 0; s < 15; s++) await clock.advance(1000);
    await flushMicrotasks(50);
    assert.ok(runtime.calls.includes("start app#1"), runtime.calls.join("\n"));
    await agent.close();
  });

  test("preStop runs before the stop; when it fails, FailedPreStopHook is recorded and the stop goes on", async () => {
    for (const exitCode of [0, 7]) {
      const { clock, runtime, agent } = startAgentOnFakes();
      runtime.execExit.set("app", exitCode);
      await admitRunning(agent, clock, {
        metadata: { name: "p", namespace: "default" },
        spec: { terminationGracePeriodSeconds: 20, containers: [{ name: "app", image: "img", command: ["app"], lifecycle: { preStop: { exec: { command: ["drain", "--now"] } } } }] },
      });
      agent.deletePod("default", "p");
      await flushMicrotasks(50);
      assert.deepEqual(runtime.calls.filter((c) => /^(exec|stop) /.test(c)), ["exec app#0 drain --now", "stop app#0 grace=20"]);
      const failed = reasons(agent).filter((e) => e.startsWith("FailedPreStopHook: "));
      assert.deepEqual(failed.length, exitCode === 0 ? 0 : 1, failed.join("\n"));
      if (exitCode !== 0) assert.equal(failed[0], `FailedPreStopHook: ${PRE_STOP_HOOK_FAILED}`);
      for (let s = 0; s < 3; s++) await clock.advance(1000);
      await agent.close();
    }
  });

  test("executePreStopHook: a preStop hook still running when the grace period ends is only logged, no FailedPreStopHook, and the kill goes on", async () => {
    const { clock, runtime, agent } = startAgentOnFakes();
    runtime.execDelayMs.set("app", 60_000);
    await admitRunning(agent, clock, {
      metadata: { name: "p", namespace: "default" },
      spec: { terminationGracePeriodSeconds: 3, containers: [{ name: "app", image: "img", command: ["app"], lifecycle: { preStop: { exec: { command: ["drain"] } } } }] },
    });
    agent.deletePod("default", "p");
    for (let s = 0; s < 5; s++) {
      await clock.advance(1000);
      await flushMicrotasks(50);
    }
    assert.deepEqual(runtime.calls.filter((c) => /^(exec|stop) /.test(c)), ["exec app#0 drain", "stop app#0 grace=2"]);
    assert.deepEqual(reasons(agent).filter((e) => e.startsWith("FailedPreStopHook")), []);
    await agent.close();
  });

  test("a failed postStart hook's event carries the fixed message only; its error goes to the waiting state PostStartHookError", async () => {
    const { clock, runtime, agent } = startAgentOnFakes();
    runtime.execExit.set("app", 1);
    await admitRunning(agent, clock, {
      metadata: { name: "p", namespace: "default" },
      spec: { containers: [{ name: "app", image: "img", command: ["app"], lifecycle: { postStart: { exec: { command: ["init-hook", "--token=s3cret"] } } } }] },
    });
    const failed = agent.listEvents("default").filter((e) => e.reason === "FailedPostStartHook");
    assert.deepEqual(failed.map((e) => [e.type, e.message, e.involvedObject.fieldPath]), [["Warning", "PostStartHook failed", "spec.containers{app}"]]);
    assert.ok(!agent.listEvents("default").some((e) => e.message.includes("s3cret")), "no event carries the hook's command or output");
    const waiting = agent.getPod("default", "p").status?.containerStatuses?.[0]?.state?.waiting;
    assert.equal(waiting?.reason, POST_START_HOOK_ERROR);
    assert.match(waiting?.message ?? "", /^Exec lifecycle hook \(\[init-hook --token=s3cret\]\) for Container "app" in Pod "p_default\(.+\)" failed - error: command 'init-hook --token=s3cret' exited with 1: , message: ""$/);
    await agent.close();
  });

  test("with restartPolicy Never a failed postStart hook leaves the container terminated, not waiting", async () => {
    const { clock, runtime, agent } = startAgentOnFakes();
    runtime.execExit.set("app", 1);
    await admitRunning(agent, clock, {
      metadata: { name: "p", namespace: "default" },
      spec: { restartPolicy: "Never", containers: [{ name: "app", image: "img", command: ["app"], lifecycle: { postStart: { exec: { command: ["init-hook"] } } } }] },
    });
    await flushMicrotasks(50);
    const state = agent.getPod("default", "p").status?.containerStatuses?.[0]?.state;
    assert.equal(state?.waiting, undefined, JSON.stringify(state));
    assert.ok(state?.terminated, JSON.stringify(state));
    await agent.close();
  });
});
