// Probes against real containers through containerd (scripts/containerd.sh start): exec probes
// run inside the container via ExecSync, and the test images' servers (liveness,
// test-webserver, gRPC health) answer httpGet/tcpSocket/grpc probes on loopback (hostNetwork
// pods). Skipped, with the reason, without root, containerd or PROBELET_CRI_SOCKET.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { request } from "node:http";
import { test } from "node:test";
import { criSuite, freePort, GRPC_IMAGE, SLEEPER, shContainer } from "../../../test/cri/containerd-env.js";
import { CommandTimeoutError } from "../../probe/command-runner.js";
import { probeExec } from "../../probe/exec.js";
import { probeGrpc } from "../../probe/grpc.js";
import { probeHttp } from "../../probe/http.js";
import { buildProbeHeaders } from "../../probe/http-request.js";
import { probeTcp } from "../../probe/tcp.js";
import { PROBE_USER_AGENT } from "../../probe/user-agent.js";
import { waitFor } from "../../../test/process-testing.js";
import { RuntimeError } from "../runtime.js";

const { skip, env, runtime, pods } = criSuite();
const grpcSkip = skip || (env?.images.has(GRPC_IMAGE) ? false : `${GRPC_IMAGE} was not built (PROBELET_CRI_NODE_IMAGE=0 or no node)`);

function httpGet(port: number, path: string) {
  const { headers } = buildProbeHeaders(undefined, PROBE_USER_AGENT);
  return probeHttp({ url: `http://127.0.0.1:${port}${path}`, host: "", headers }, { timeoutMs: 2_000, followNonLocalRedirects: false });
}

/** waitListening polls a TCP port until it accepts (a container's server takes a moment to bind). */
function waitListening(port: number): Promise<true> {
  return waitFor(`port ${port}`, async () => (await probeTcp({ host: "127.0.0.1", port }, { timeoutMs: 1_000 })).result === "success", { timeoutMs: 15_000, intervalMs: 50 });
}

test("exec probes run inside the container: image and container files, container env, stdout then stderr", { skip }, async (t) => {
  const pod = await pods.newPod(t);
  const marker = `/tmp/probelet-health-${pod.config.podUid}`;
  const id = await pods.start(pod, shContainer("app", `echo ok > ${marker}; ${SLEEPER}`, { envs: [{ key: "GREETING", value: "hello" }] }));
  await waitFor("the marker file", async () => (await runtime.runInContainer(id, ["cat", marker], { timeoutMs: 5_000 })).exitCode === 0);

  const cases: [string[], { result: string; output: string }][] = [
    [["cat", "/etc/probelet-image"], { result: "success", output: "probelet test image\n" }],
    [["cat", marker], { result: "success", output: "ok\n" }],
    [["sh", "-c", "echo $GREETING"], { result: "success", output: "hello\n" }],
    [["sh", "-c", "echo err >&2; echo out; exit 7"], { result: "failure", output: "out\nerr\n" }],
    [["sh", "-c", "head -c 20000 /dev/zero | tr '\\0' x"], { result: "success", output: "x".repeat(10_240) }],
  ];
  for (const [argv, expected] of cases) {
    assert.deepEqual(await probeExec(runtime, id, argv, { timeoutMs: 5_000 }), expected, argv.join(" "));
  }
  assert.equal(existsSync("/etc/probelet-image"), false, "the image file is not on the host");
  assert.equal(existsSync(marker), false, "the container's file is not on the host");

  const missing = await probeExec(runtime, id, ["/no/such/probe"], { timeoutMs: 5_000 });
  assert.equal(missing.result, "unknown");
  assert.ok(missing.error instanceof RuntimeError);
  assert.match(missing.error.message, /no such file or directory/);
});

test("an exec probe that outlives its timeout → CommandTimeoutError with the kubelet's text, quickly", { skip }, async (t) => {
  const pod = await pods.newPod(t);
  const id = await pods.start(pod, shContainer("app", SLEEPER));
  // containerd kills the exec'd process at the timeout and answers DEADLINE_EXCEEDED.
  let started = performance.now();
  await assert.rejects(runtime.runInContainer(id, ["sleep", "30"], { timeoutMs: 1_000 }), (err: unknown) => {
    assert.ok(err instanceof CommandTimeoutError, String(err));
    assert.equal(err.message, 'command timed out: "sleep 30" timed out after 1s');
    return true;
  });
  let elapsed = performance.now() - started;
  assert.ok(elapsed >= 900 && elapsed < 2_900, `server-side timeout took ${elapsed} ms`);
  // An orphan holding the output pipe keeps containerd waiting; the client deadline (timeout + 2 s) ends it.
  started = performance.now();
  const outcome = await probeExec(runtime, id, ["sh", "-c", "sleep 30; echo never"], { timeoutMs: 1_000 });
  elapsed = performance.now() - started;
  assert.deepEqual(outcome, { result: "failure", output: 'command timed out: "sh -c sleep 30; echo never" timed out after 1s' });
  assert.ok(elapsed >= 2_500 && elapsed < 6_000, `client deadline took ${elapsed} ms`);
});

test("liveness image: /healthz 200 then 500 after 10 s, local redirect followed, non-local one a warning, TCP open", { skip }, async (t) => {
  const pod = await pods.newPod(t);
  const port = await freePort();
  await pods.start(pod, shContainer("liveness", "", { command: ["liveness", String(port)] }));
  await waitListening(port);
  assert.deepEqual(await httpGet(port, "/healthz"), { result: "success", output: "ok" });
  assert.deepEqual(await httpGet(port, "/redirect?loc=%2Fhealthz"), { result: "success", output: "ok" });
  assert.deepEqual(await httpGet(port, "/redirect?loc=http%3A%2F%2F0.0.0.0%2F"), {
    result: "warning",
    output: 'Probe terminated redirects, Response body: <a href="http://0.0.0.0/">Found</a>.\n',
  });
  assert.deepEqual(await probeTcp({ host: "127.0.0.1", port }, { timeoutMs: 1_000 }), { result: "success", output: "" });
  const failed = await waitFor("/healthz to fail", async () => {
    const outcome = await httpGet(port, "/healthz");
    return outcome.result === "failure" ? outcome : undefined;
  }, { timeoutMs: 20_000, intervalMs: 500 });
  assert.deepEqual(failed, { result: "failure", output: "HTTP probe failed with statuscode: 500" });
  const body = await new Promise<string>((resolve, reject) => {
    request({ host: "127.0.0.1", port, path: "/healthz" }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk)).on("end", () => resolve(text));
    }).on("error", reject).end();
  });
  assert.match(body, /^error: 1\d\.\d\d$/);
});

test("test-webserver image answers 200 on /; a port nothing listens on fails", { skip }, async (t) => {
  const pod = await pods.newPod(t);
  const port = await freePort();
  await pods.start(pod, shContainer("web", "", { command: ["test-webserver", String(port)] }));
  await waitListening(port);
  assert.deepEqual(await httpGet(port, "/"), { result: "success", output: "ok\n" });
  const closed = await freePort();
  assert.deepEqual(await httpGet(closed, "/"), {
    result: "failure",
    output: `Get "http://127.0.0.1:${closed}/": dial tcp 127.0.0.1:${closed}: connect: connection refused`,
  });
});

test("gRPC health image: SERVING → success, NOT_SERVING → failure, wrong port → failure", { skip: grpcSkip }, async (t) => {
  const pod = await pods.newPod(t);
  const [grpcPort, httpPort] = [await freePort(), await freePort()];
  const id = await pods.start(pod, {
    ...shContainer("grpc", ""),
    image: GRPC_IMAGE,
    command: [],
    args: ["--port", String(grpcPort), "--http-port", String(httpPort)],
  });
  await waitListening(grpcPort);
  const probe = (port: number) => probeGrpc({ host: "127.0.0.1", port, service: "" }, { timeoutMs: 2_000 });
  assert.deepEqual(await probe(grpcPort), { result: "success", output: "service healthy" });
  assert.deepEqual(await httpGet(httpPort, "/make-not-serving"), { result: "success", output: "not serving\n" });
  assert.deepEqual(await probe(grpcPort), { result: "failure", output: 'service unhealthy (responded with "NOT_SERVING")' });
  const wrong = await freePort();
  const outcome = await probe(wrong);
  assert.equal(outcome.result, "failure");
  assert.match(outcome.output, new RegExp(`^timeout: failed to connect service "127.0.0.1:${wrong}" within 2s`));
  const stopStarted = performance.now();
  await runtime.stopContainer(id, 10);
  assert.ok(performance.now() - stopStarted < 5_000, "node exits on SIGTERM");
  assert.equal((await runtime.containerStatus(id)).exitCode, 0);
});
