// The raw-socket HTTP client end to end against loopback servers that write exact bytes: what
// goes on the wire, the framings a server may choose, responses dribbled byte by byte, and
// hostile or broken servers (they must neither hang a probe nor leak a socket).
import assert from "node:assert/strict";
import type { Socket } from "node:net";
import { test } from "node:test";
import { socketHandles } from "../../test/handles.js";
import { makeSelfSignedCert, startHttpServer, startHttpsServer, startRawServer, type TestServer } from "../../test/servers/http-servers.js";
import { probeHttp, type HttpProbeOptions } from "./http.js";
import { buildProbeHeaders, type HttpProbeRequest } from "./http-request.js";
import type { ProbeOutcome } from "./probe-result.js";
import { PROBE_USER_AGENT } from "./user-agent.js";
import { forEachProbeEngine } from "../../test/probe-engines.js";

const BROKEN = "net/http: HTTP/1.x transport connection broken: ";
const OK = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

function probeRequest(url: string): HttpProbeRequest {
  const built = buildProbeHeaders([], PROBE_USER_AGENT);
  return { url, host: built.host, headers: built.headers };
}

function probe(url: string | HttpProbeRequest, opts: Partial<HttpProbeOptions> = {}): Promise<ProbeOutcome> {
  return probeHttp(typeof url === "string" ? probeRequest(url) : url, { timeoutMs: 2000, followNonLocalRedirects: false, ...opts });
}

type Later = (ms: number, fn: () => void) => void;

/** raw starts a server that answers each request head (read up to the blank line) with `answer`. */
async function raw(t: { after(fn: () => Promise<void>): void }, answer: (s: Socket, head: string, later: Later) => void): Promise<TestServer> {
  const server = await startRawServer((s, later) => {
    let head = "";
    const onData = (chunk: Buffer): void => {
      head += chunk.toString("latin1");
      if (!head.includes("\r\n\r\n")) return;
      s.off("data", onData);
      answer(s, head, later);
    };
    s.on("data", onData);
  });
  t.after(() => server.close());
  return server;
}

const success = (output: string): ProbeOutcome => ({ result: "success", output });


forEachProbeEngine(() => {
  test("the request on the wire is Go's, byte for byte, and repeated probes send the same bytes", async (t) => {
    const heads: string[] = [];
    const server = await raw(t, (s, head) => {
      heads.push(head);
      s.end(OK);
    });
    const request = probeRequest(server.url("/healthz?x=1"));
    for (let i = 0; i < 3; i++) assert.deepEqual(await probe(request), success("ok"));
    const wire = `GET /healthz?x=1 HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nUser-Agent: ${PROBE_USER_AGENT}\r\nAccept: */*\r\nConnection: close\r\n\r\n`;
    assert.deepEqual(heads, [wire, wire, wire]);
    assert.equal(server.connections(), 3);
  });

  test("bodies framed by length, chunks or the connection's end; 1xx skipped; dribbled bytes", async (t) => {
    const rows: [string, (s: Socket, later: Later) => void, ProbeOutcome][] = [
      ["chunked", (s) => s.end("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n"), success("abcde")],
      ["read to the end", (s) => s.end("HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil close"), success("until close")],
      ["100 Continue first", (s) => s.end(`HTTP/1.1 100 Continue\r\n\r\n${OK}`), success("ok")],
      ["UTF-8 body", (s) => s.end(Buffer.from("HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nhé€", "utf8")), success("hé€")],
      ["one byte per write", (s, later) => {
        const bytes = Buffer.from("HTTP/1.1 200 OK\r\nX-Long: " + "v".repeat(300) + "\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n");
        s.setNoDelay(true);
        let i = 0;
        const drip = (): void => later(0, () => {
          if (!s.writable) return;
          if (i === bytes.length) return void s.end();
          s.write(bytes.subarray(i, ++i));
          drip();
        });
        drip();
      }, success("hello")],
      ["101 is a final status", (s) => s.end("HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n"), { result: "failure", output: "HTTP probe failed with statuscode: 101" }],
    ];
    for (const [name, answer, expected] of rows) {
      const server = await raw(t, (s, _head, later) => answer(s, later));
      assert.deepEqual(await probe(server.url(), { timeoutMs: 5000 }), expected, name);
    }
  });

  test("broken responses fail with Go's texts and never hang", async (t) => {
    const rows: [string, string | Buffer, (url: string) => ProbeOutcome][] = [
      ["binary garbage", Buffer.from([0x83, 0x00, 0x00, 0x01, 0x8f]), (url) => ({ result: "failure", output: `Get "${url}": ${BROKEN}malformed HTTP response "\\x83\\x00\\x00\\x01\\x8f"` })],
      ["bad status code", "HTTP/1.1 20 OK\r\n\r\n", (url) => ({ result: "failure", output: `Get "${url}": ${BROKEN}malformed HTTP status code "20"` })],
      ["header without colon", "HTTP/1.1 200 OK\r\nbroken\r\n\r\n", (url) => ({ result: "failure", output: `Get "${url}": ${BROKEN}malformed MIME header: missing colon: "broken"` })],
      ["unsupported coding", "HTTP/1.1 200 OK\r\nTransfer-Encoding: br\r\n\r\n", (url) => ({ result: "failure", output: `Get "${url}": ${BROKEN}unsupported transfer encoding: "br"` })],
      ["closed inside the head", "HTTP/1.1 200 OK\r\nContent-Type: text/pl", (url) => ({ result: "failure", output: `Get "${url}": ${BROKEN}unexpected EOF` })],
      ["bad chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nxyz\r\n", () => ({ result: "failure", output: "", error: new Error("invalid byte in chunk length") })],
      ["bad chunk end", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n", () => ({ result: "failure", output: "", error: new Error("malformed chunked encoding") })],
    ];
    const before = socketHandles();
    for (const [name, bytes, expected] of rows) {
      const server = await raw(t, (s) => s.end(bytes));
      const started = performance.now();
      const outcome = await probe(server.url());
      assert.deepEqual({ ...outcome, error: outcome.error?.message }, { ...expected(server.url()), error: expected(server.url()).error?.message }, name);
      assert.ok(performance.now() - started < 1500, `${name}: ${performance.now() - started} ms`);
    }
    await new Promise((r) => setTimeout(r, 50));
    assert.ok(socketHandles() <= before, `client sockets left behind: ${socketHandles()} > ${before}`);
  });

  test("endless bodies stop at 10240 bytes; a redirect's chunked body is drained", async (t) => {
    const endless = await raw(t, (s, _head, later) => {
      s.write("HTTP/1.1 200 OK\r\n\r\n");
      const pump = (): void => later(1, () => void (s.writable && s.write("x".repeat(4096), pump)));
      pump();
    });
    assert.deepEqual(await probe(endless.url()), success("x".repeat(10240)));
    const tinyChunks = await raw(t, (s) => s.end(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${"1\r\nc\r\n".repeat(12_000)}0\r\n\r\n`));
    assert.deepEqual(await probe(tinyChunks.url()), success("c".repeat(10240)));
    const redirecting = await raw(t, (s, head) => {
      if (head.startsWith("GET /start ")) s.end("HTTP/1.1 302 Found\r\nLocation: /done\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nmove\r\n0\r\n\r\n");
      else s.end(OK);
    });
    assert.deepEqual(await probe(redirecting.url("/start")), success("ok"));
    assert.equal(redirecting.connections(), 2);
  });

  test("a server that never closes, or keeps talking after the response, holds the probe one FIN wait at most", async (t) => {
    const silentAfter = await raw(t, (s) => s.write(OK));
    const chatty = await raw(t, (s, _head, later) => {
      s.write(OK);
      const chatter = (): void => later(50, () => void (s.writable && (s.write("noise"), chatter())));
      chatter();
    });
    for (const server of [silentAfter, chatty]) {
      const started = performance.now();
      assert.deepEqual(await probe(server.url(), { timeoutMs: 10_000 }), success("ok"));
      const took = performance.now() - started;
      assert.ok(took >= 900 && took < 3000, `${server.port}: ${took} ms`);
    }
    // The probe's own deadline cuts the FIN wait short.
    const started = performance.now();
    assert.deepEqual(await probe(silentAfter.url(), { timeoutMs: 300 }), success("ok"));
    assert.ok(performance.now() - started < 900);
  });

  test("HTTPS responses in chunks, and a plain server's chunked answer", async (t) => {
    const plain = await startHttpServer((_req, res) => {
      res.write("part one, ");
      res.end("part two");
    });
    t.after(() => plain.close());
    assert.deepEqual(await probe(plain.url()), success("part one, part two"));
    const tls = makeSelfSignedCert();
    if (!tls) return t.skip("openssl is not available to make a certificate");
    const secure = await startHttpsServer((_req, res) => {
      res.write("secure ");
      res.end("chunks");
    }, tls);
    t.after(() => secure.close());
    for (const closeMode of ["graceful", "reset"] as const) assert.deepEqual(await probe(secure.url(), { closeMode }), success("secure chunks"), closeMode);
  });
});
