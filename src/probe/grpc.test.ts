import assert from "node:assert/strict";
import { createServer as createHttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, test } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { countHandles, grownHandles } from "../../test/handles.js";
import { proberTimeWait } from "../../test/time-wait.js";
import { spawnGrpcHealthServer, startGrpcHealthServer, type GrpcHealthServer, type HealthServerOptions, type ServingStatus } from "../../test/servers/grpc-health-server.js";
import { startRawServer } from "../../test/servers/http-servers.js";
import { startBlackholeServer } from "../../test/servers/tcp-server.js";
import { goStatusErrorText, probeGrpc, type GrpcProbeOptions, type GrpcProbeTarget } from "./grpc.js";
import type { ProbeOutcome } from "./probe-result.js";

const UNIMPLEMENTED_PREFIX = "error: this server does not implement the grpc health protocol (grpc.health.v1.Health): ";

/** probeServer starts a health server with `options`, probes it once and shuts it down. */
async function probeServer(options: HealthServerOptions, probe: Partial<GrpcProbeTarget> & GrpcProbeOptions) {
  const server = await startGrpcHealthServer(options);
  try {
    const { timeoutMs, host, service, ...rest } = probe;
    const target = { host: host ?? server.host, port: server.port, service: service ?? "" };
    const outcome = await probeGrpc(target, { timeoutMs, ...rest });
    return { outcome, server };
  } finally {
    await server.close();
  }
}

describe("probeGrpc", () => {
  test("[case 72] TestNew — probeGrpc implements the handler contract (resolves an outcome, never rejects)", async () => {
    const handler: (target: GrpcProbeTarget, options: GrpcProbeOptions) => Promise<ProbeOutcome> = probeGrpc;
    const outcome = await handler({ host: "127.0.0.1", port: 1, service: "" }, { timeoutMs: 50 });
    assert.deepEqual(outcome, { result: "failure", output: 'timeout: failed to connect service "127.0.0.1:1" within 50ms: context deadline exceeded' });
  });

  test('[case 73] "Should: failed but return nil error because cant find host" — host "", port 32, timeout 1 s', async () => {
    const outcome = await probeGrpc({ host: "", port: 32, service: "" }, { timeoutMs: 1000 });
    assert.deepEqual(outcome, { result: "failure", output: 'timeout: failed to connect service ":32" within 1s: context deadline exceeded' });
  });

  test('[case 74] "Should: return nil error because connection closed" — port is a plain HTTP/1 server → failure', async (t) => {
    const http = createHttpServer((_req, res) => res.end("res"));
    await new Promise<void>((resolve) => http.listen({ host: "127.0.0.1", port: 0 }, resolve));
    t.after(() => {
      http.closeAllConnections();
      http.close();
    });
    const { port } = http.address() as AddressInfo;
    const outcome = await probeGrpc({ host: "127.0.0.1", port, service: "" }, { timeoutMs: 1000 });
    assert.deepEqual(outcome, { result: "failure", output: `timeout: failed to connect service "127.0.0.1:${port}" within 1s: context deadline exceeded` });
  });

  test('[case 75] "Should: return nil error because server response not served" — NOT_SERVING → failure', async () => {
    const { outcome } = await probeServer({ status: "NOT_SERVING" }, { timeoutMs: 1000 });
    assert.deepEqual(outcome, { result: "failure", output: 'service unhealthy (responded with "NOT_SERVING")' });
  });

  test('[case 76] "Should: return nil-error because server not response in time" — Check sleeps 4 s, timeout 2 s', async () => {
    const started = performance.now();
    const { outcome } = await probeServer({ delayMs: 4000 }, { timeoutMs: 2000 });
    const elapsed = performance.now() - started;
    assert.deepEqual(outcome, { result: "failure", output: "timeout: health rpc did not complete within 2s" });
    assert.ok(elapsed >= 1900 && elapsed < 3500, `took ${elapsed.toFixed(0)} ms`);
  });

  test('[case 77] "Should: not return error because check was success" — SERVING, timeout 2 s → success', async () => {
    const { outcome } = await probeServer({ status: "SERVING" }, { timeoutMs: 2000 });
    assert.deepEqual(outcome, { result: "success", output: "service healthy" });
  });

  test('[case 78] "Should: not return error because check was success, when listen port is 0" — OS-assigned port → success', async () => {
    const { outcome, server } = await probeServer({}, { timeoutMs: 2000 });
    assert.ok(server.port > 0);
    assert.deepEqual(outcome, { result: "success", output: "service healthy" });
  });

  test("[case 79] server without the health service → failure naming the health protocol", async () => {
    const { outcome } = await probeServer({ withHealthService: false }, { timeoutMs: 1000 });
    assert.equal(outcome.result, "failure");
    assert.ok(outcome.output.startsWith(UNIMPLEMENTED_PREFIX), outcome.output);
    assert.equal(outcome.output, `${UNIMPLEMENTED_PREFIX}The server does not implement the method /grpc.health.v1.Health/Check`);
  });

  test("[case 80] success output is `service healthy`; the request carries the service name and a kube-probe/ user agent", async () => {
    const { outcome, server } = await probeServer({}, { timeoutMs: 1000, service: "my-service" });
    assert.deepEqual(outcome, { result: "success", output: "service healthy" });
    assert.equal(server.checks.length, 1);
    assert.equal(server.checks[0]?.service, "my-service");
    assert.match(server.checks[0]?.userAgent ?? "", /^kube-probe\/1\.37 grpc-node-js\/\d+\.\d+\.\d+$/);
  });

  test("every status other than SERVING is a failure quoting the enum name", async (t) => {
    const cases: Array<[ServingStatus, string]> = [
      ["UNKNOWN", 'service unhealthy (responded with "UNKNOWN")'],
      ["SERVICE_UNKNOWN", 'service unhealthy (responded with "SERVICE_UNKNOWN")'],
      [7, 'service unhealthy (responded with "7")'],
    ];
    for (const [status, output] of cases) {
      await t.test(String(status), async () => {
        const { outcome } = await probeServer({ status }, { timeoutMs: 1000 });
        assert.deepEqual(outcome, { result: "failure", output });
      });
    }
  });

  test("other RPC errors render as grpc-go's `rpc error: code = X desc = Y`", async (t) => {
    const cases: Array<[code: number, details: string, output: string]> = [
      [14, "boom", "error: health rpc probe failed: rpc error: code = Unavailable desc = boom"],
      [7, "go away", "error: health rpc probe failed: rpc error: code = PermissionDenied desc = go away"],
      [5, "unknown service x", "error: health rpc probe failed: rpc error: code = NotFound desc = unknown service x"],
    ];
    for (const [code, details, output] of cases) {
      await t.test(output, async () => {
        const { outcome } = await probeServer({ error: { code, details } }, { timeoutMs: 1000 });
        assert.deepEqual(outcome, { result: "failure", output });
      });
    }
    assert.equal(goStatusErrorText(17, "x"), "rpc error: code = Code(17) desc = x");
  });

  test("an unanswered connect (SYN dropped) times out with the connect message", async (t) => {
    const blackhole = await startBlackholeServer();
    t.after(() => blackhole.close());
    await blackhole.fillBacklog();
    const outcome = await probeGrpc({ host: "127.0.0.1", port: blackhole.port, service: "" }, { timeoutMs: 1000 });
    assert.deepEqual(outcome, {
      result: "failure",
      output: `timeout: failed to connect service "127.0.0.1:${blackhole.port}" within 1s: context deadline exceeded`,
    });
  });

  test("a server that accepts and never answers the HTTP/2 preface fails at the timeout, not later", async (t) => {
    const silent = await startRawServer(() => undefined);
    t.after(() => silent.close());
    const started = performance.now();
    const outcome = await probeGrpc({ host: "127.0.0.1", port: silent.port, service: "" }, { timeoutMs: 1000 });
    const elapsed = performance.now() - started;
    assert.deepEqual(outcome, {
      result: "failure",
      output: `timeout: failed to connect service "127.0.0.1:${silent.port}" within 1s: context deadline exceeded`,
    });
    assert.ok(silent.connections() >= 1, "the server accepted the connection");
    assert.ok(elapsed < 1500, `took ${elapsed.toFixed(0)} ms for a 1000 ms timeout`);
  });

  test("an aborted signal fails with Go's context-canceled texts, before and after connecting", async (t) => {
    const preAborted = await probeGrpc({ host: "127.0.0.1", port: 1, service: "" }, { timeoutMs: 1000, signal: AbortSignal.abort() });
    assert.deepEqual(preAborted, { result: "failure", output: 'error: failed to connect service at "127.0.0.1:1": context canceled' });

    const slow = await startGrpcHealthServer({ delayMs: 4000 });
    t.after(() => slow.close());
    const controller = new AbortController();
    const pending = probeGrpc({ host: "127.0.0.1", port: slow.port, service: "" }, { timeoutMs: 3000, signal: controller.signal });
    setTimeout(() => controller.abort(), 300);
    assert.deepEqual(await pending, {
      result: "failure",
      output: "error: health rpc probe failed: rpc error: code = Canceled desc = context canceled",
    });
  });

  test("IPv6 loopback targets are dialled bracketed", async (t) => {
    let server: GrpcHealthServer;
    try {
      server = await startGrpcHealthServer({ host: "::1" });
    } catch {
      t.skip("no IPv6 loopback on this host");
      return;
    }
    t.after(() => server.close());
    const outcome = await probeGrpc({ host: "::1", port: server.port, service: "" }, { timeoutMs: 1000 });
    assert.deepEqual(outcome, { result: "success", output: "service healthy" });
  });

  test("closeMode reset aborts the connection: no TIME-WAIT on the prober's side", async (t) => {
    const server = await startGrpcHealthServer();
    t.after(() => server.close());
    if (proberTimeWait(server.port) === undefined) {
      t.skip("ss is not available");
      return;
    }
    for (let i = 0; i < 20; i++) {
      const outcome = await probeGrpc({ host: "127.0.0.1", port: server.port, service: "" }, { timeoutMs: 1000, closeMode: "reset" });
      assert.equal(outcome.result, "success");
    }
    assert.equal(proberTimeWait(server.port), 0);
    assert.equal(server.checks.length, 20);
  });

  test("500 probes leave no handle behind and the heap flat", async (t) => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const remote = await spawnGrpcHealthServer();
    t.after(() => remote.close());
    const target = { host: "127.0.0.1", port: remote.port, service: "" };
    const handlesBefore = countHandles();
    let heapAfterWarmup = 0;
    let failures = 0;
    for (let i = 1; i <= 500; i++) {
      const outcome = await probeGrpc(target, { timeoutMs: 2000, closeMode: i % 2 === 0 ? "reset" : "graceful" });
      if (outcome.result !== "success") failures++;
      if (i === 100) {
        gc();
        heapAfterWarmup = process.memoryUsage().heapUsed;
      }
    }
    gc();
    const heapGrowth = process.memoryUsage().heapUsed - heapAfterWarmup;
    await new Promise((resolve) => setTimeout(resolve, 50));
    t.diagnostic(`heap growth over probes 100..500: ${(heapGrowth / 1024).toFixed(0)} KiB; rss ${(process.memoryUsage().rss / 1e6).toFixed(1)} MB`);
    assert.ok(failures <= 5, `${failures} probes failed`);
    assert.deepEqual(grownHandles(handlesBefore, countHandles()), []);
    assert.ok(heapGrowth < 2 * 1024 * 1024, `heap grew by ${heapGrowth} bytes`);
  });
});
