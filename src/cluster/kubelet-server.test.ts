import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer as createHttpServer, type IncomingHttpHeaders } from "node:http";
import { request } from "node:https";
import { connect, type AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { loadOrCreateServingCert } from "../server/serving-cert.js";
import { systemClock } from "../util/clock.js";
import { silentLogger } from "../util/logger.js";
import { FakeApiServer, type RecordedRequest } from "../../test/cluster/fake-apiserver.js";
import { FakeAgentApi } from "../../test/fakes/fake-agent-api.js";
import { RestClient } from "../client/rest-client.js";
import { KubeletAuth } from "./kubelet-auth.js";
import { startKubeletServer, type KubeletServer } from "./kubelet-server.js";
import { MachineStats } from "./node-stats.js";

const run = promisify(execFile);
let dir: string;
let server: KubeletServer;
let serverCa: Buffer;
let client: { cert: Buffer; key: Buffer };
let stranger: { cert: Buffer; key: Buffer };
let intruder: { cert: Buffer; key: Buffer };
let apiserver: FakeApiServer;
const agent = new FakeAgentApi();

/**
 * The API server's answers: TokenReviews accept "prom-token" as a monitoring service account;
 * SubjectAccessReviews allow the API server's client certificate (CN apiserver) everything and the
 * service account nodes/metrics and nodes/stats, nothing else.
 */
function review(r: RecordedRequest): { code: number; body: unknown } {
  const spec = (r.body as { spec: { token?: string; user?: string; resourceAttributes?: { subresource: string } } }).spec;
  if (r.path.endsWith("/tokenreviews")) {
    return { code: 201, body: { status: spec.token === "prom-token" ? { authenticated: true, user: { username: "system:serviceaccount:monitoring:prom", groups: ["system:serviceaccounts", "system:authenticated"] } } : { authenticated: false } } };
  }
  const sub = spec.resourceAttributes?.subresource ?? "";
  const allowed = spec.user === "apiserver" || (spec.user === "system:serviceaccount:monitoring:prom" && (sub === "metrics" || sub === "stats"));
  return { code: 201, body: { status: { allowed } } };
}

/** issue makes a client certificate for CN `name`, signed by the CA of `caName` (made first when it is `name`), with openssl(1). */
async function issue(name: string, caName = name): Promise<{ ca: Buffer; cert: Buffer; key: Buffer }> {
  const f = (ext: string): string => join(dir, `${name}.${ext}`);
  const ca = (ext: string): string => join(dir, `${caName}.ca.${ext}`);
  if (caName === name) await run("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", ca("key"), "-out", ca("crt"), "-subj", `/CN=${name}-ca`, "-days", "1"]);
  await run("openssl", ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", f("key"), "-out", f("csr"), "-subj", `/O=system:nodes/CN=${name}`]);
  await run("openssl", ["x509", "-req", "-in", f("csr"), "-CA", ca("crt"), "-CAkey", ca("key"), "-CAcreateserial", "-out", f("crt"), "-days", "1"]);
  return { ca: await readFile(ca("crt")), cert: await readFile(f("crt")), key: await readFile(f("key")) };
}

function get(path: string, identity: { cert: Buffer; key: Buffer } | { token: string } | undefined): Promise<{ code: number; body: string }> {
  const credentials = identity === undefined ? {} : "token" in identity ? { headers: { authorization: `Bearer ${identity.token}` } } : identity;
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: server.port, path, ca: serverCa, ...credentials }, (res) => {
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
  const apiserverCert = await issue("apiserver");
  const other = await issue("other");
  const otherNode = await issue("system:node:probelet-b", "apiserver");
  client = { cert: apiserverCert.cert, key: apiserverCert.key };
  stranger = { cert: other.cert, key: other.key };
  intruder = { cert: otherNode.cert, key: otherNode.key };
  apiserver = await FakeApiServer.start(review);
  const serving = await loadOrCreateServingCert(dir, ["127.0.0.1"]);
  serverCa = serving.cert;
  agent.addPod({ metadata: { name: "web", namespace: "default", uid: "u1" }, spec: { containers: [{ name: "app", image: "busybox" }] } });
  agent.appendLog("default", "web", "app", "one");
  agent.appendLog("default", "web", "app", "two");
  const auth = new KubeletAuth({ client: new RestClient({ credentials: apiserver.credentials, clock: systemClock }), nodeName: agent.nodeName, clock: systemClock, logger: silentLogger });
  const machine = new MachineStats(dir, systemClock);
  server = await startKubeletServer({ agent, host: "127.0.0.1", port: 0, cert: serving.cert, key: serving.key, clientCa: apiserverCert.ca, auth, machine, logger: silentLogger });
});

after(async () => {
  await server?.close();
  await apiserver?.close();
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

test("without credentials the endpoint answers 401 Unauthorized, as the kubelet with anonymous authentication off", async () => {
  assert.deepEqual(await get("/pods", undefined), { code: 401, body: "Unauthorized" });
  assert.deepEqual(await get("/healthz", { token: "forged" }), { code: 401, body: "Unauthorized" });
});

test("a client certificate of another CA is refused before any request (the TLS connection ends)", async () => {
  await assert.rejects(get("/pods", stranger));
});

test("a malformed percent escape is answered 400, not a hung connection; a silent connection is cut off after the TLS handshake timeout", { timeout: 20_000 }, async () => {
  for (const path of ["/containerLogs/default/web/%zz", "/containerLogs/%E0%A4%A/web/app"]) {
    const answer = await Promise.race([get(path, client), new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 5000))]);
    assert.equal(answer?.code, 400, `${path} must be answered`);
    assert.match(answer?.body ?? "", /invalid URL escape/);
  }
  const silent = connect(server.port, "127.0.0.1");
  const started = performance.now();
  const closed = await new Promise<boolean>((resolve) => {
    silent.once("close", () => resolve(true));
    silent.on("error", () => undefined);
    setTimeout(() => resolve(false), 15_000);
  });
  silent.destroy();
  assert.ok(closed, "a connection that never starts its handshake is closed");
  assert.ok(performance.now() - started < 10_000, `closed after ${Math.round(performance.now() - started)} ms`);
});

test("a certificate of the client CA without the API server's authorization reads nothing: 403 with the kubelet's text", async () => {
  assert.deepEqual(await get("/pods", intruder), { code: 403, body: "Forbidden (user=system:node:probelet-b, verb=get, resource=nodes, subresource(s)=[pods proxy])\n" });
  assert.equal((await get("/containerLogs/default/web/app", intruder)).code, 403);
  assert.equal((await get("/stats/summary", intruder)).code, 403);
});

test("a bearer token the API server accepts reads what its SubjectAccessReviews allow: /metrics and /stats/summary, not /pods", async () => {
  const metrics = await get("/metrics", { token: "prom-token" });
  assert.equal(metrics.code, 200);
  assert.match(metrics.body, /^# HELP probelet_pods /);
  const summary = JSON.parse((await get("/stats/summary", { token: "prom-token" })).body) as { node: { nodeName: string } };
  assert.equal(summary.node.nodeName, agent.nodeName);
  assert.equal((await get("/pods", { token: "prom-token" })).code, 403);
});

test("/metrics/probes, /metrics/resource and /stats/summary answer in the kubelet's formats", async () => {
  const probes = await get("/metrics/probes", client);
  assert.match(probes.body, /^# HELP prober_probe_total /);
  const resource = await get("/metrics/resource", client);
  assert.equal(resource.code, 200);
  assert.match(resource.body, /^# HELP node_cpu_usage_seconds_total \[STABLE\] Cumulative cpu time consumed by the node in core-seconds\n# TYPE node_cpu_usage_seconds_total counter\nnode_cpu_usage_seconds_total \d+(\.\d+)? \d{13}$/m);
  assert.match(resource.body, /^resource_scrape_error 0$/m);
  const summary = JSON.parse((await get("/stats/summary", client)).body) as { node: Record<string, unknown>; pods: unknown[] };
  assert.deepEqual(Object.keys(summary.node).filter((k) => ["nodeName", "startTime", "cpu", "memory", "fs", "rlimit"].includes(k)).sort(), ["cpu", "fs", "memory", "nodeName", "rlimit", "startTime"]);
  assert.ok(Array.isArray(summary.pods));
  assert.equal((await get("/nope", client)).code, 404);
});

/** upgrade sends an upgrade request as the API server's node proxy does and resolves with the answer's first bytes. */
function upgrade(path: string, send: string, identity: { cert: Buffer; key: Buffer } | "anonymous" = client): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: server.port, path, ca: serverCa, ...(identity === "anonymous" ? {} : identity), headers: { Connection: "Upgrade", Upgrade: "SPDY/3.1", "X-Stream-Protocol-Version": "v4.channel.k8s.io" } });
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

test("/exec and /portForward proxy the upgraded connection to the runtime's streaming URL, with the stream options of the query, after the auth filter", { timeout: 30_000 }, async () => {
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
    // The auth filter comes first for upgrades too: no credentials 401, a node's certificate 403.
    assert.equal(await upgrade("/exec/default/web/app?command=sh&output=1", "", "anonymous"), "401 Unauthorized\n");
    assert.match(await upgrade("/exec/default/web/app?command=sh&output=1", "", intruder), /^403 Forbidden \(user=system:node:probelet-b, verb=get, resource=nodes, subresource\(s\)=\[proxy\]\)/);
    assert.deepEqual(await get("/exec/default/web/app?output=1", undefined), { code: 401, body: "Unauthorized" });
    assert.equal(asked.length, 2, "refused upgrades never reach the runtime");
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
