import assert from "node:assert/strict";
import { createServer as createHttpServer } from "node:http";
import { createServer, type AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { countHandles, grownHandles } from "../../test/handles.js";
import { spawnNodeServer, startBlackholeServer, spawnTcpServer, startTcpServer, type TcpTestServer } from "../../test/servers/tcp-server.js";
import { proberTimeWait } from "../../test/time-wait.js";
import { nativeEngine } from "./probe-engine.js";
import { probeTcp } from "./tcp.js";
import { forEachProbeEngine } from "../../test/probe-engines.js";

/** closedPort returns a loopback port that was just free (bound, then released). */
async function closedPort(host = "127.0.0.1"): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen({ host, port: 0 }, resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function ipv6LoopbackAvailable(): Promise<boolean> {
  try {
    await closedPort("::1");
    return true;
  } catch {
    return false;
  }
}

forEachProbeEngine((engine) => {
  describe("probeTcp", () => {
    let server: TcpTestServer;
    before(async () => {
      server = await startTcpServer();
    });
    after(() => server.close());

    test("[case 58] TestTcpHealthChecker #0 — listening loopback server, timeout 1 s → success, no error", async () => {
      const outcome = await probeTcp({ host: "127.0.0.1", port: server.port }, { timeoutMs: 1000 });
      assert.deepEqual(outcome, { result: "success", output: "" });
    });

    test("[case 59] TestTcpHealthChecker #1 — same host, port -1 → failure, no error", async () => {
      const outcome = await probeTcp({ host: "127.0.0.1", port: -1 }, { timeoutMs: 1000 });
      assert.deepEqual(outcome, { result: "failure", output: "dial tcp: address -1: invalid port" });
    });

    test("[case 60] success output is empty string; failure output is the dial error text", async (t) => {
      const refused = await closedPort();
      const hasIpv6 = await ipv6LoopbackAvailable();
      const cases: Array<{ name: string; host: string; port: number; output: string; skip?: string }> = [
        { name: "listening server", host: "127.0.0.1", port: server.port, output: "" },
        { name: "refused", host: "127.0.0.1", port: refused, output: `dial tcp 127.0.0.1:${refused}: connect: connection refused` },
        { name: "empty host keeps Go's :port form", host: "", port: refused, output: `dial tcp :${refused}: connect: connection refused` },
        { name: "port 0 is dialled and refused", host: "127.0.0.1", port: 0, output: "dial tcp 127.0.0.1:0: connect: connection refused" },
        { name: "port 65536 is out of range", host: "127.0.0.1", port: 65536, output: "dial tcp: address 65536: invalid port" },
        { name: "non-integer port", host: "127.0.0.1", port: 1.5, output: "dial tcp: address 1.5: invalid port" },
      ];
      if (hasIpv6) {
        const refused6 = await closedPort("::1");
        cases.push({ name: "IPv6 is bracketed", host: "::1", port: refused6, output: `dial tcp [::1]:${refused6}: connect: connection refused` });
      }
      for (const c of cases) {
        await t.test(c.name, async () => {
          const outcome = await probeTcp({ host: c.host, port: c.port }, { timeoutMs: 1000 });
          assert.deepEqual(outcome, { result: c.output === "" ? "success" : "failure", output: c.output });
        });
      }
    });

    test("[case 61] TCP probe of a port whose HTTP server returns 500 → success (no bytes exchanged)", async (t) => {
      let requests = 0;
      let connections = 0;
      const http = createHttpServer((_req, res) => {
        requests++;
        res.writeHead(500).end("boom");
      });
      http.on("connection", () => connections++);
      await new Promise<void>((resolve) => http.listen({ host: "127.0.0.1", port: 0 }, resolve));
      t.after(() => {
        http.closeAllConnections();
        http.close();
      });
      const { port } = http.address() as AddressInfo;
      const outcome = await probeTcp({ host: "127.0.0.1", port }, { timeoutMs: 1000 });
      assert.deepEqual(outcome, { result: "success", output: "" });
      assert.equal(connections, 1);
      assert.equal(requests, 0);
    });

    test("a host name is resolved and dialled (localhost)", async () => {
      const outcome = await probeTcp({ host: "localhost", port: server.port }, { timeoutMs: 1000 });
      assert.deepEqual(outcome, { result: "success", output: "" });
    });

    test("an unanswered SYN fails with Go's i/o timeout text after the timeout", async (t) => {
      const blackhole = await startBlackholeServer();
      t.after(() => blackhole.close());
      await blackhole.fillBacklog();
      const started = performance.now();
      const outcome = await probeTcp({ host: "127.0.0.1", port: blackhole.port }, { timeoutMs: 1000 });
      const elapsed = performance.now() - started;
      assert.deepEqual(outcome, { result: "failure", output: `dial tcp 127.0.0.1:${blackhole.port}: i/o timeout` });
      assert.ok(elapsed >= 900 && elapsed < 1500, `took ${elapsed.toFixed(0)} ms`); // within 1.5 × the timeout
    });

    test("an aborted signal fails the dial with Go's cancel text", async (t) => {
      const preAborted = await probeTcp({ host: "127.0.0.1", port: server.port }, { timeoutMs: 1000, signal: AbortSignal.abort() });
      assert.deepEqual(preAborted, { result: "failure", output: `dial tcp 127.0.0.1:${server.port}: operation was canceled` });

      const blackhole = await startBlackholeServer();
      t.after(() => blackhole.close());
      await blackhole.fillBacklog();
      const controller = new AbortController();
      const pending = probeTcp({ host: "127.0.0.1", port: blackhole.port }, { timeoutMs: 5000, signal: controller.signal });
      setTimeout(() => controller.abort(), 100);
      const started = performance.now();
      assert.deepEqual(await pending, { result: "failure", output: `dial tcp 127.0.0.1:${blackhole.port}: operation was canceled` });
      assert.ok(performance.now() - started < 2000);
    });

    test("closeMode: graceful (default) ends with a FIN, reset with an RST; nothing is written either way", async (t) => {
      const observed = await startTcpServer();
      t.after(() => observed.close());
      const target = { host: "127.0.0.1", port: observed.port };
      assert.equal((await probeTcp(target, { timeoutMs: 1000 })).result, "success");
      assert.deepEqual(await observed.waitForEnds(1), ["fin"]);
      assert.equal((await probeTcp(target, { timeoutMs: 1000, closeMode: "graceful" })).result, "success");
      assert.deepEqual(await observed.waitForEnds(2), ["fin", "fin"]);
      assert.equal((await probeTcp(target, { timeoutMs: 1000, closeMode: "reset" })).result, "success");
      assert.deepEqual(await observed.waitForEnds(3), ["fin", "fin", "reset"]);
      assert.equal(observed.accepted, 3);
      assert.equal(observed.bytesReceived, 0);
    });

    const jsCloses = engine === "js" ? "the JS path closes at once, as the kubelet does" : false;
    test("graceful close: a server that closes right after accept keeps the TIME-WAIT, not the prober", { skip: jsCloses }, async (t) => {
      // A separate process, as a real health port is: it ends every connection it accepts.
      const script = `const s = require("node:net").createServer((c) => c.end()); s.listen(0, "127.0.0.1", () => console.log(s.address().port));`;
      const server = await spawnNodeServer(["-e", script]);
      t.after(() => server.close());
      if (proberTimeWait(server.port) === undefined) return t.skip("ss is not available");
      for (let i = 0; i < 30; i++) assert.equal((await probeTcp({ host: "127.0.0.1", port: server.port }, { timeoutMs: 1000 })).result, "success");
      await new Promise((resolve) => setTimeout(resolve, 50)); // the last probes' grace (10 ms) runs out
      // Closing at connect, as the kubelet does, leaves nearly all 30 on the prober's side; a
      // server process delayed past the grace by a loaded machine may leave a few.
      const left = proberTimeWait(server.port)!;
      assert.ok(left <= 5, `${left} of 30 probe connections in TIME-WAIT on the prober's side`);
      assert.equal(nativeEngine()?.inFlight() ?? 0, 0, "the native engine holds no probe socket");
    });

    test("no socket or timer is left behind after successful and failed probes", async (t) => {
      const remote = await spawnTcpServer();
      t.after(() => remote.close());
      const refused = await closedPort();
      const before = countHandles();
      for (let i = 0; i < 100; i++) {
        const ok = await probeTcp({ host: "127.0.0.1", port: remote.port }, { timeoutMs: 1000, closeMode: i % 2 === 0 ? "graceful" : "reset" });
        const failed = await probeTcp({ host: "127.0.0.1", port: refused }, { timeoutMs: 1000 });
        assert.equal(failed.result, "failure");
        // A loopback SYN is very rarely lost under heavy load; only a timeout is tolerated.
        if (ok.result !== "success") assert.match(ok.output, /i\/o timeout$/);
      }
      // destroy() closes the fd at once; libuv drops the handle in the next loop's close phase.
      await new Promise((resolve) => setTimeout(resolve, 20));
      const after = countHandles();
      assert.deepEqual(grownHandles(before, after).filter((g) => /^(TCPSocketWrap|Timeout):/.test(g)), []);
      assert.equal(nativeEngine()?.inFlight() ?? 0, 0, "the native engine holds no probe socket");
    });
  });
});
