import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer as createHttpServer, type IncomingHttpHeaders } from "node:http";
import { request } from "node:https";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { loadOrCreateServingCert } from "../server/serving-cert.js";
import { silentLogger } from "../util/logger.js";
import { FakeAgentApi } from "../../test/fakes/fake-agent-api.js";
import { startKubeletServer, type KubeletServer } from "./kubelet-server.js";

const run = promisify(execFile);
let dir: string;
let server: KubeletServer;
let serverCa: Buffer;
let client: { cert: Buffer; key: Buffer };
let stranger: { cert: Buffer; key: Buffer };
const agent = new FakeAgentApi();

/** issue makes a CA and a client certificate it signs, with openssl(1). */
async function issue(name: string): Promise<{ ca: Buffer; cert: Buffer; key: Buffer }> {
  const f = (ext: string): string => join(dir, `${name}.${ext}`);
  await run("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", f("ca.key"), "-out", f("ca.crt"), "-subj", `/CN=${name}-ca`, "-days", "1"]);
  await run("openssl", ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", f("key"), "-out", f("csr"), "-subj", `/CN=${name}`]);
  await run("openssl", ["x509", "-req", "-in", f("csr"), "-CA", f("ca.crt"), "-CAkey", f("ca.key"), "-CAcreateserial", "-out", f("crt"), "-days", "1"]);
  return { ca: await readFile(f("ca.crt")), cert: await readFile(f("crt")), key: await readFile(f("key")) };
}

function get(path: string, identity: { cert: Buffer; key: Buffer } | undefined): Promise<{ code: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: server.port, path, ca: serverCa, ...(identity ?? {}) }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ code: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "probelet-kubelet-server-"));
  const apiserver = await issue("apiserver");
  const other = await issue("other");
  client = { cert: apiserver.cert, key: apiserver.key };
  stranger = { cert: other.cert, key: other.key };
  const serving = await loadOrCreateServingCert(dir, ["127.0.0.1"]);
  serverCa = serving.cert;
  agent.addPod({ metadata: { name: "web", namespace: "default", uid: "u1" }, spec: { containers: [{ name: "app", image: "busybox" }] } });
  agent.appendLog("default", "web", "app", "one");
  agent.appendLog("default", "web", "app", "two");
  server = await startKubeletServer({ agent, host: "127.0.0.1", port: 0, cert: serving.cert, key: serving.key, clientCa: apiserver.ca, logger: silentLogger });
});

after(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

test("a client certificate signed by the client CA reads /healthz, /pods and a container's log with tailLines", async () => {
  assert.deepEqual(await get("/healthz", client), { code: 200, body: "ok" });
  const pods = JSON.parse((await get("/pods", client)).body) as { kind: string; items: { metadata: { name: string } }[] };
  assert.equal(pods.kind, "PodList");
  assert.deepEqual(pods.items.map((p) => p.metadata.name), ["web"]);
  assert.deepEqual(await get("/containerLogs/default/web/app?tailLines=1", client), { code: 200, body: "two\n" });
  assert.equal((await get("/containerLogs/default/nope/app", client)).code, 404);
  assert.equal((await get("/containerLogs/default/web/app?tailLines=x", client)).code, 400);
});

test("a client without a certificate, or with one from another CA, is refused in the TLS handshake", async () => {
  await assert.rejects(get("/pods", undefined));
  await assert.rejects(get("/pods", stranger));
});

/** upgrade sends an upgrade request as the API server's node proxy does and resolves with the answer's first bytes. */
function upgrade(path: string, send: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: server.port, path, ca: serverCa, ...client, headers: { Connection: "Upgrade", Upgrade: "SPDY/3.1", "X-Stream-Protocol-Version": "v4.channel.k8s.io" } });
    req.on("upgrade", (res, socket: Duplex, head: Buffer) => {
      let got = `${res.statusCode ?? 0} ${head.toString("utf8")}`;
      socket.on("data", (chunk: Buffer) => {
        got += chunk.toString("utf8");
        if (got.includes("\n")) socket.destroy();
      });
      socket.on("close", () => resolve(got));
      socket.write(send);
    });
    req.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve(`${res.statusCode ?? 0} ${body}`));
    });
    req.on("error", reject);
    req.end();
  });
}

test("/exec and /portForward proxy the upgraded connection to the runtime's streaming URL, with the stream options of the query", async () => {
  // The runtime's streaming server: it answers 101 and echoes, as containerd's would speak SPDY.
  const seen: { url: string; headers: IncomingHttpHeaders }[] = [];
  const backend = createHttpServer();
  backend.on("upgrade", (req, socket: Duplex) => {
    seen.push({ url: req.url ?? "", headers: req.headers });
    socket.write("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n");
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => backend.listen(0, "127.0.0.1", resolve));
  const asked: unknown[] = [];
  const runtime = {
    execStream: () => Promise.reject(new Error("unused")),
    streamingUrl: (r: unknown) => {
      asked.push(r);
      return Promise.resolve(`http://127.0.0.1:${(backend.address() as AddressInfo).port}/stream/tok1`);
    },
  };
  const saved = { exec: agent.execContainer.bind(agent), sandbox: agent.podSandbox.bind(agent) };
  agent.execContainer = () => ({ runtime, containerId: "c1" });
  agent.podSandbox = () => ({ runtime, sandboxId: "s1", uid: "u1" });
  try {
    const answer = await upgrade("/exec/default/web/app?command=sh&command=-c&command=echo+hi&output=1&error=1", "hello\n");
    assert.match(answer, /^101 /);
    assert.ok(answer.endsWith("hello\n"), answer);
    assert.deepEqual(asked[0], { kind: "exec", containerId: "c1", cmd: ["sh", "-c", "echo hi"], stdin: false, stdout: true, stderr: true, tty: false });
    assert.equal(seen[0]?.url, "/stream/tok1");
    assert.equal(seen[0]?.headers["x-stream-protocol-version"], "v4.channel.k8s.io");
    assert.equal(seen[0]?.headers.host, `127.0.0.1:${(backend.address() as AddressInfo).port}`);
    assert.match(await upgrade("/portForward/default/web/u1", "x\n"), /^101 /);
    assert.deepEqual(asked[1], { kind: "portforward", sandboxId: "s1", ports: [] });
    // Refusals come before any upgrade, as plain text.
    assert.equal(await upgrade("/exec/default/web/app?command=true", ""), "400 you must specify at least 1 of stdin, stdout, stderr\n");
    assert.equal(await upgrade("/portForward/default/web/other-uid", ""), "404 pod not found\n");
    assert.equal(await upgrade("/exec/default/nope/app?output=1", ""), "404 pod does not exist\n");
    assert.deepEqual(await get("/exec/default/web/app?output=1", client), { code: 500, body: "Upgrade request required" });
  } finally {
    agent.execContainer = saved.exec;
    agent.podSandbox = saved.sandbox;
    backend.closeAllConnections();
    await new Promise<void>((resolve) => backend.close(() => resolve()));
  }
});

test("the process runtime has no streaming server: an exec through the daemon endpoint is refused with the reason", async () => {
  const saved = agent.execContainer.bind(agent);
  agent.execContainer = () => ({ runtime: { execStream: () => Promise.reject(new Error("unused")) }, containerId: "c1" });
  try {
    assert.equal(await upgrade("/exec/default/web/app?command=true&output=1", ""), "400 exec is not supported by the process runtime: it has no streaming server\n");
  } finally {
    agent.execContainer = saved;
  }
});
