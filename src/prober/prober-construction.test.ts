// The prober as the kubelet builds it (prober_test.go TestNewExecInContainer, TestNewProber):
// the real handlers, the runner it is given for exec, the recorder it is given for events.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Container, Probe } from "../api/types.js";
import type { CommandResult, CommandRunner, CommandRunOptions } from "../probe/command-runner.js";
import { limitOutput } from "../probe/exec.js";
import { MAX_OUTPUT_BYTES } from "../probe/probe-result.js";
import { getTestPod, runningStatus, testContainerID } from "../../test/fixtures.js";
import { startGrpcHealthServer } from "../../test/servers/grpc-health-server.js";
import { startHttpServer } from "../../test/servers/http-servers.js";
import { startTcpServer } from "../../test/servers/tcp-server.js";
import { MemoryEventRecorder } from "./event-recorder.js";
import { Prober } from "./prober.js";

/** RecordingRunner answers every command with `answer` and remembers what it was asked to run. */
class RecordingRunner implements CommandRunner {
  readonly calls: { containerId: string; argv: readonly string[] }[] = [];
  constructor(private readonly answer: () => Promise<CommandResult>) {}
  runInContainer(containerId: string, argv: readonly string[], _options: CommandRunOptions): Promise<CommandResult> {
    this.calls.push({ containerId, argv });
    return this.answer();
  }
}

const result = (stdout: string | Buffer, exitCode = 0): CommandResult => ({ stdout: Buffer.from(stdout), stderr: Buffer.alloc(0), exitCode });

async function probeWith(prober: Prober, probe: Probe) {
  const container: Container = { name: "c", livenessProbe: probe };
  return prober.probe("liveness", getTestPod(container), runningStatus(), container, testContainerID);
}

describe("prober construction (kubelet prober_test.go)", () => {
  test("[case 97] exec in container: the runner's stdout is the output, the runner gets the container ID and the command", async () => {
    const runner = new RecordingRunner(async () => result("foo"));
    const prober = new Prober({ runner, recorder: new MemoryEventRecorder() });
    const got = await probeWith(prober, { exec: { command: ["/foo", "bar"] }, timeoutSeconds: 1 });
    assert.equal(got.result, "Success");
    assert.equal(got.outcome?.output, "foo");
    assert.deepEqual(runner.calls, [{ containerId: testContainerID, argv: ["/foo", "bar"] }]);
  });

  test("[case 97] exec in container: output larger than the limit writer keeps only the first bytes (1024 as upstream's test, 10 KiB in production)", async () => {
    const big = Buffer.alloc(10 * 1024, "x");
    assert.deepEqual(limitOutput(big, Buffer.alloc(0), 1024), big.subarray(0, 1024));
    const runner = new RecordingRunner(async () => result(Buffer.concat([big, big, Buffer.from("tail")])));
    const got = await probeWith(new Prober({ runner, recorder: new MemoryEventRecorder() }), { exec: { command: ["/foo"] }, timeoutSeconds: 1 });
    assert.equal(got.outcome?.output.length, MAX_OUTPUT_BYTES);
    assert.equal(got.outcome?.output, "x".repeat(MAX_OUTPUT_BYTES));
  });

  test("[case 97] exec in container: a runner error 'bad' is the probe's error (exec.go keeps no output with a non-exit error)", async () => {
    const runner = new RecordingRunner(async () => {
      throw new Error("bad");
    });
    const got = await probeWith(new Prober({ runner, recorder: new MemoryEventRecorder() }), { exec: { command: ["/foo"] }, timeoutSeconds: 1 });
    assert.equal(got.result, "Failure");
    assert.equal(got.error?.message, "bad");
    assert.equal(got.outcome?.output, "");
  });

  test("[case 98] a new Prober has the real exec, HTTP, TCP and gRPC handlers, the runner and the recorder it was given", async (t) => {
    const http = await startHttpServer((_req, res) => res.end("ok"));
    t.after(() => http.close());
    const tcp = await startTcpServer();
    t.after(() => tcp.close());
    const grpc = await startGrpcHealthServer();
    t.after(() => grpc.close());
    const runner = new RecordingRunner(async () => result("not yet", 1));
    const recorder = new MemoryEventRecorder();
    const prober = new Prober({ runner, recorder });

    assert.equal((await probeWith(prober, { httpGet: { host: "127.0.0.1", port: http.port, path: "/" }, timeoutSeconds: 1 })).result, "Success");
    assert.equal((await probeWith(prober, { tcpSocket: { host: "127.0.0.1", port: tcp.port }, timeoutSeconds: 1 })).result, "Success");
    assert.equal(tcp.accepted, 1);
    const container: Container = { name: "c", livenessProbe: { grpc: { port: grpc.port }, timeoutSeconds: 1 } };
    const pod = getTestPod(container);
    const status = runningStatus();
    status.podIP = "127.0.0.1";
    assert.equal((await prober.probe("liveness", pod, status, container, testContainerID)).result, "Success");
    assert.equal(grpc.checks.length, 1);
    assert.equal((await probeWith(prober, { exec: { command: ["check"] }, timeoutSeconds: 1 })).result, "Failure");
    assert.equal(runner.calls.length, 1, "the exec probe ran through the given runner");
    assert.deepEqual(recorder.strings(), ["Warning Unhealthy Liveness probe failed: not yet"], "the failure was recorded by the given recorder");
  });

  test("[case 222] TestRunProbeHTTPGetHTTP2ProtocolFeatureGateDisabled: httpGet protocol HTTP2 with H2CContainerProbe off is an HTTP/1.1 probe, not an error about the gate", async (t) => {
    let version = "";
    const http = await startHttpServer((req, res) => {
      version = req.httpVersion;
      res.end("ok");
    });
    t.after(() => http.close());
    const prober = new Prober({ runner: new RecordingRunner(async () => result("")), recorder: new MemoryEventRecorder() });
    // A library caller may hand over a Probe with the field; the manifest path drops it at decoding.
    const probe = { httpGet: { host: "127.0.0.1", port: http.port, path: "/healthz", scheme: "HTTP", protocol: "HTTP2" }, timeoutSeconds: 1 } as Probe;
    const got = await probeWith(prober, probe);
    assert.deepEqual([got.result, got.error], ["Success", undefined]);
    assert.equal(version, "1.1");
  });
});
