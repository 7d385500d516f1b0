import assert from "node:assert/strict";
import { connect, createServer, type AddressInfo } from "node:net";
import { networkInterfaces } from "node:os";
import { test, type TestContext } from "node:test";
import { FakeAgentApi } from "../../test/fakes/fake-agent-api.js";
import { createLogger } from "../util/logger.js";
import { startStatusServer, type StatusServer, type StatusServerOptions } from "./server.js";

async function start(t: TestContext, options: Partial<StatusServerOptions> = {}): Promise<{ api: FakeAgentApi; server: StatusServer }> {
  const api = new FakeAgentApi();
  const server = await startStatusServer(api, { listen: "127.0.0.1:0", ...options });
  t.after(() => server.close());
  return { api, server };
}

const UNAUTHORIZED = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "Unauthorized", reason: "Unauthorized", code: 401 };

test("refuses a non-loopback listen address without both a token and TLS", async () => {
  const api = new FakeAgentApi();
  const tls = { cert: Buffer.from(""), key: Buffer.from("") };
  for (const listen of ["0.0.0.0:0", "[::]:0", ":0", "10.1.2.3:10255"]) {
    for (const options of [{}, { token: "t" }, { tls }]) {
      await assert.rejects(startStatusServer(api, { listen, ...options }), /refusing to serve the status API on non-loopback address .* without a token and TLS/, listen);
    }
  }
});

test("rejects malformed listen addresses and an empty token", async () => {
  const api = new FakeAgentApi();
  await assert.rejects(startStatusServer(api, { listen: "127.0.0.1" }), /missing port in address/);
  await assert.rejects(startStatusServer(api, { listen: "127.0.0.1:99999" }), /is not a number in 0\.\.65535/);
  await assert.rejects(startStatusServer(api, { listen: "127.0.0.1:0", token: "" }), /token must not be empty or contain whitespace/);
});

test("rejects when the port is taken", async (t) => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
  const port = (blocker.address() as AddressInfo).port;
  await assert.rejects(startStatusServer(new FakeAgentApi(), { listen: `127.0.0.1:${port}` }), /EADDRINUSE/);
});

test("binds port 0 on 127.0.0.1 and reports the real address", async (t) => {
  const { server } = await start(t);
  assert.equal(server.address.host, "127.0.0.1");
  assert.ok(server.address.port > 0);
  assert.equal(server.url, `http://127.0.0.1:${server.address.port}`);
});

const hasIPv6Loopback = Object.values(networkInterfaces()).some((list) => (list ?? []).some((i) => i.address === "::1"));

test("serves on the IPv6 loopback [::1]:0", { skip: hasIPv6Loopback ? false : "this machine has no ::1" }, async (t) => {
  const { server } = await start(t, { listen: "[::1]:0" });
  assert.equal(server.address.host, "::1");
  assert.equal(server.url, `http://[::1]:${server.address.port}`);
  const res = await fetch(`${server.url}/healthz`);
  assert.equal(res.status, 200);
  assert.equal(await res.text(), "ok");
});

test("with a token every request but /healthz needs Authorization: Bearer <token>", async (t) => {
  const { server } = await start(t, { token: "s3cret-token" });
  const cases: { name: string; headers: Record<string, string>; status: number }[] = [
    { name: "no header", headers: {}, status: 401 },
    { name: "wrong token", headers: { Authorization: "Bearer s3cret-tokeN" }, status: 401 },
    { name: "token prefix", headers: { Authorization: "Bearer s3cret" }, status: 401 },
    { name: "basic scheme", headers: { Authorization: "Basic s3cret-token" }, status: 401 },
    { name: "empty bearer", headers: { Authorization: "Bearer " }, status: 401 },
    { name: "right token", headers: { Authorization: "Bearer s3cret-token" }, status: 200 },
    { name: "scheme in lower case", headers: { Authorization: "bearer s3cret-token" }, status: 200 },
  ];
  for (const c of cases) {
    for (const path of ["/healthz", "/api/v1/pods", "/nope"]) {
      const res = await fetch(`${server.url}${path}`, { headers: c.headers });
      const expected = path === "/healthz" ? 200 : c.status === 200 && path === "/nope" ? 404 : c.status;
      assert.equal(res.status, expected, `${c.name} ${path}`);
      if (expected === 401) {
        assert.equal(res.headers.get("content-type"), "application/json");
        assert.deepEqual(await res.json(), UNAUTHORIZED);
      } else await res.arrayBuffer();
    }
  }
});

test("unknown paths are 404 NotFound Status, wrong methods 405 MethodNotAllowed with Allow", async (t) => {
  const { server } = await start(t);
  for (const path of ["/nope", "/api/v1/namespaces/default/pods/web/attach", "/api/v1/namespaces//pods", "/healthz/"]) {
    const res = await fetch(`${server.url}${path}`);
    assert.equal(res.status, 404, path);
    assert.deepEqual(await res.json(), {
      kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure",
      message: "the server could not find the requested resource", reason: "NotFound", code: 404,
    });
  }
  const cases: { method: string; path: string; allow: string }[] = [
    { method: "POST", path: "/healthz", allow: "GET" },
    { method: "PUT", path: "/api/v1/namespaces/default/pods", allow: "GET, POST, DELETE" },
    { method: "POST", path: "/api/v1/namespaces/default/pods/web", allow: "GET, PUT, PATCH, DELETE" },
    { method: "DELETE", path: "/api/v1/pods", allow: "GET" },
    { method: "PATCH", path: "/metrics", allow: "GET" },
  ];
  for (const c of cases) {
    const res = await fetch(`${server.url}${c.path}`, { method: c.method });
    assert.equal(res.status, 405, `${c.method} ${c.path}`);
    assert.equal(res.headers.get("allow"), c.allow);
    assert.deepEqual(await res.json(), {
      kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure",
      message: "the server does not allow this method on the requested resource", reason: "MethodNotAllowed", code: 405,
    });
  }
});

test("GET /healthz is 200 ok, or 500 with the agent's message", async (t) => {
  const { api, server } = await start(t);
  let res = await fetch(`${server.url}/healthz`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/plain; charset=utf-8");
  assert.equal(await res.text(), "ok");
  api.health = { ok: false, message: "sync loop stalled for 3m0s" };
  res = await fetch(`${server.url}/healthz`);
  assert.equal(res.status, 500);
  assert.equal(await res.text(), "sync loop stalled for 3m0s");
});

test("metrics routes serve Prometheus text with version 0.0.4", async (t) => {
  const { api, server } = await start(t);
  for (const [path, body] of [["/metrics/probes", api.probeMetricsText], ["/metrics", api.agentMetricsText]] as const) {
    const res = await fetch(`${server.url}${path}`);
    assert.equal(res.status, 200, path);
    assert.equal(res.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
    assert.equal(await res.text(), body);
  }
  api.probeMetricsText = new Error("registry closed");
  const res = await fetch(`${server.url}/metrics/probes`);
  assert.equal(res.status, 500);
  const status = (await res.json()) as Record<string, unknown>;
  assert.equal(status["reason"], "InternalError");
  assert.equal(status["message"], "Internal error occurred: registry closed");
  assert.doesNotMatch(JSON.stringify(status), /\.js:\d+/);
});

test("every request is logged at debug level with method, path, status and ms", async (t) => {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ level: "debug", trace: [], write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) });
  const { server } = await start(t, { logger });
  await (await fetch(`${server.url}/healthz?x=1`)).text();
  await (await fetch(`${server.url}/nope`, { method: "POST" })).text();
  const requests = await waitForLines(lines, 2);
  assert.deepEqual(
    requests.map((l) => [l["level"], l["sub"], l["method"], l["path"], l["status"], typeof l["ms"]]),
    [
      ["debug", "server", "GET", "/healthz", 200, "number"],
      ["debug", "server", "POST", "/nope", 404, "number"],
    ],
  );
});

/** within resolves with the promise's value, or with `fallback` after ms (clearing its timer either way). */
async function within<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function waitForLines(lines: Record<string, unknown>[], count: number): Promise<Record<string, unknown>[]> {
  // The line is written when the response closes, which can trail the client's read slightly.
  for (let i = 0; i < 100; i++) {
    const requests = lines.filter((l) => l["msg"] === "HTTP request");
    if (requests.length >= count) return requests;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`expected ${count} request log lines, got ${JSON.stringify(lines)}`);
}

test("a client that never finishes its headers is cut off and does not wedge the server", async (t) => {
  const { server } = await start(t, { headersTimeoutMs: 300, requestTimeoutMs: 600 });
  const socket = connect(server.address.port, "127.0.0.1");
  t.after(() => socket.destroy());
  let received = "";
  socket.on("data", (d: Buffer) => (received += d.toString()));
  const ended = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n");
  // Meanwhile other clients are served normally.
  const res = await fetch(`${server.url}/healthz`);
  assert.equal(await res.text(), "ok");
  assert.equal(await within(ended.then(() => "closed"), 5000, "still open"), "closed");
  assert.match(received, /^HTTP\/1\.1 408 Request Timeout/);
});

test("a request body that trickles past the request timeout is cut off", async (t) => {
  const { server } = await start(t, { headersTimeoutMs: 200, requestTimeoutMs: 400 });
  const socket = connect(server.address.port, "127.0.0.1");
  t.after(() => socket.destroy());
  let received = "";
  socket.on("data", (d: Buffer) => (received += d.toString()));
  const ended = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  socket.write("POST /api/v1/namespaces/default/pods HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{");
  assert.equal(await within(ended.then(() => "closed"), 5000, "still open"), "closed");
  assert.match(received, /^HTTP\/1\.1 408 Request Timeout/);
});

test("close() is idempotent and refuses new connections afterwards", async () => {
  const server = await startStatusServer(new FakeAgentApi(), { listen: "127.0.0.1:0" });
  const keepAlive = await fetch(`${server.url}/healthz`);
  await keepAlive.text();
  await Promise.all([server.close(), server.close()]);
  await server.close();
  await assert.rejects(fetch(`${server.url}/healthz`));
});

test("requests wait for the ready promise before they are routed; /healthz answers at once", async (t) => {
  let markReady = (): void => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const { api, server } = await start(t, { ready });
  assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
  let answered = false;
  const list = fetch(`${server.url}/api/v1/pods`).then(async (res) => {
    answered = true;
    return res;
  });
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(answered, false, "the pod list was answered before the agent was ready");
  api.addPod({ metadata: { name: "restored", namespace: "default" }, spec: { containers: [] } });
  markReady();
  const res = await list;
  assert.equal(res.status, 200);
  assert.deepEqual(((await res.json()) as { items: { metadata: { name: string } }[] }).items.map((p) => p.metadata.name), ["restored"]);
});

/** rawRequest sends one request line as it is (fetch would re-encode the path) and resolves with the whole answer. */
async function rawRequest(port: number, head: string): Promise<string> {
  const socket = connect(port, "127.0.0.1");
  let received = "";
  socket.on("data", (d: Buffer) => (received += d.toString()));
  const ended = new Promise<string>((resolve) => socket.once("close", () => resolve(received)));
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  socket.write(`${head}\r\nHost: x\r\nConnection: close\r\n\r\n`);
  const answer = await within(ended, 5000, "no answer within 5 s");
  socket.destroy();
  return answer;
}

test("a malformed percent escape in the path is a 400 BadRequest at once, before authentication, never a hung connection", async (t) => {
  const { server } = await start(t, { token: "s3cret-token" });
  for (const [path, escape] of [["/api/v1/namespaces/%zz/pods", "%zz"], ["/api/v1/namespaces/default/pods/web%4", "%4"], ["/console/explain/%/web", "%/w"]]) {
    const answer = await rawRequest(server.address.port, `GET ${path} HTTP/1.1`);
    assert.match(answer, /^HTTP\/1\.1 400 Bad Request\r\n/, path);
    const body = JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)) as { reason: string; message: string };
    assert.deepEqual({ reason: body.reason, message: body.message }, { reason: "BadRequest", message: `invalid URL escape "${escape}"` }, path);
  }
  const upgrade = await rawRequest(server.address.port, "GET /api/v1/namespaces/default/pods/%zz/exec HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: websocket");
  assert.match(upgrade, /^HTTP\/1\.1 400 /);
  assert.match(await rawRequest(server.address.port, "GET /api/v1/namespaces/my%20ns/pods HTTP/1.1"), /^HTTP\/1\.1 401 /, "a well-formed escape goes on to authentication");
});
