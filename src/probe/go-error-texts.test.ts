// The httpGet and tcpSocket handlers word transport failures as Go does (issue 12 item 9),
// against real loopback servers: a plain HTTP server behind an https URL, a peer that resets
// the connection, and a name that does not resolve (failed by an injected lookup, so no DNS
// query leaves the machine).
import assert from "node:assert/strict";
import type { LookupFunction, Socket } from "node:net";
import { test } from "node:test";
import { makeSelfSignedCert, startHttpServer, startHttpsServer, startRawServer, type TestServer } from "../../test/servers/http-servers.js";
import { probeHttp, type HttpProbeOptions } from "./http.js";
import { systemResolver } from "./resolver-address.js";
import type { ProbeOutcome } from "./probe-result.js";
import { probeTcp } from "./tcp.js";
import { forEachProbeEngine } from "../../test/probe-engines.js";

function probe(url: string, opts: Partial<HttpProbeOptions> = {}): Promise<ProbeOutcome> {
  return probeHttp({ url, host: "", headers: [["User-Agent", "kube-probe/test"]] }, { timeoutMs: 2000, followNonLocalRedirects: false, ...opts });
}

async function rawServer(t: { after(fn: () => Promise<void>): void }, onConnection: (socket: Socket) => void): Promise<TestServer> {
  const server = await startRawServer(onConnection);
  t.after(() => server.close());
  return server;
}

/** failingLookup answers every name as getaddrinfo does for a name that does not exist. */
const failingLookup: LookupFunction = (hostname, _options, callback) => {
  const err = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND", syscall: "getaddrinfo", hostname });
  process.nextTick(() => callback(err, "", 4));
};

forEachProbeEngine(() => {
  test("an HTTPS probe to a plain HTTP server reports Go's `http: server gave HTTP response to HTTPS client`", async (t) => {
    const server = await startHttpServer((_req, res) => res.end("plain"));
    t.after(() => server.close());
    const url = `https://127.0.0.1:${server.port}/path`;
    assert.deepEqual(await probe(url), { result: "failure", output: `Get "${url}": http: server gave HTTP response to HTTPS client` });
  });

  test("an HTTPS probe answered by another protocol reports Go's `tls: first record does not look like a TLS handshake`", async (t) => {
    const server = await rawServer(t, (socket) => socket.once("data", () => socket.end("SSH-2.0-OpenSSH_9.6\r\n")));
    const url = `https://127.0.0.1:${server.port}/`;
    assert.deepEqual(await probe(url), { result: "failure", output: `Get "${url}": tls: first record does not look like a TLS handshake` });
  });

  test("a real TLS server still succeeds through the tap that keeps the server's first bytes", async (t) => {
    const tls = makeSelfSignedCert();
    if (!tls) return t.skip("openssl is not available to make a certificate");
    const server = await startHttpsServer((_req, res) => res.end("secure"), tls);
    t.after(() => server.close());
    assert.deepEqual(await probe(server.url("/")), { result: "success", output: "secure" });
  });

  test("a connection reset while awaiting headers names both ends: `read tcp LOCAL->REMOTE: read: connection reset by peer`", async (t) => {
    const peers: number[] = [];
    const server = await rawServer(t, (socket) => {
      peers.push(socket.remotePort ?? 0);
      socket.once("data", () => socket.resetAndDestroy());
    });
    const url = server.url("/healthz");
    const outcome = await probe(url);
    assert.deepEqual(outcome, {
      result: "failure",
      output: `Get "${url}": read tcp 127.0.0.1:${peers[0]}->127.0.0.1:${server.port}: read: connection reset by peer`,
    });
  });

  test("a connection reset during the TLS handshake names both ends too", async (t) => {
    const peers: number[] = [];
    const server = await rawServer(t, (socket) => {
      peers.push(socket.remotePort ?? 0);
      socket.once("data", () => socket.resetAndDestroy());
    });
    const url = `https://127.0.0.1:${server.port}/`;
    assert.deepEqual(await probe(url), {
      result: "failure",
      output: `Get "${url}": read tcp 127.0.0.1:${peers[0]}->127.0.0.1:${server.port}: read: connection reset by peer`,
    });
  });

  test("a connection reset inside the body is an errored probe with the same read error", async (t) => {
    const peers: number[] = [];
    const server = await rawServer(t, (socket) => {
      peers.push(socket.remotePort ?? 0);
      socket.once("data", () => socket.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial", () => setTimeout(() => socket.resetAndDestroy(), 20)));
    });
    const outcome = await probe(server.url("/"));
    assert.deepEqual([outcome.result, outcome.output], ["failure", ""]);
    assert.equal(outcome.error?.message, `read tcp 127.0.0.1:${peers[0]}->127.0.0.1:${server.port}: read: connection reset by peer`);
  });

  test("a name that does not resolve reports Go's `dial tcp: lookup NAME on RESOLVER:53: no such host` (httpGet and tcpSocket)", async () => {
    const resolver = systemResolver.address();
    assert.match(resolver, /^(\d+\.\d+\.\d+\.\d+|\[[0-9a-fA-F:.%\w]+\]):53$/);
    const url = "http://probe-target.invalid:8080/ready";
    assert.deepEqual(await probe(url, { lookup: failingLookup }), {
      result: "failure",
      output: `Get "${url}": dial tcp: lookup probe-target.invalid on ${resolver}: no such host`,
    });
    assert.deepEqual(await probeTcp({ host: "probe-target.invalid", port: 8080 }, { timeoutMs: 2000, lookup: failingLookup }), {
      result: "failure",
      output: `dial tcp: lookup probe-target.invalid on ${resolver}: no such host`,
    });
  });
});
