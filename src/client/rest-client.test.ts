import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer as createHttpServer, type IncomingHttpHeaders } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { createLogger } from "../util/logger.js";
import { FakeClock } from "../../test/fakes/fake-clock.js";
import { FakeApiServer, statusBody } from "../../test/cluster/fake-apiserver.js";
import { RestClient, ApiStatusError, MAX_RESPONSE_BYTES, MAX_WATCH_EVENT_BYTES, type ApiWatchEvent } from "./rest-client.js";

const servers: FakeApiServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

test("a 429 with Retry-After is retried after that many seconds, and the bearer token is sent", async () => {
  let calls = 0;
  const server = await FakeApiServer.start(() => (calls++ === 0 ? { code: 429, body: statusBody(429, "TooManyRequests", "slow down"), headers: { "retry-after": "2" } } : { code: 200, body: { kind: "Node" } }));
  servers.push(server);
  const clock = new FakeClock();
  const client = new RestClient({ credentials: server.credentials, clock });
  const result = client.request<{ kind: string }>("GET", "/api/v1/nodes/n");
  await server.waitForRequests(1);
  await clock.advance(1999);
  assert.equal(server.requests.length, 1);
  await clock.advance(1);
  assert.deepEqual(await result, { kind: "Node" });
  assert.equal(server.requests[1]?.authorization, "Bearer test-token");
});

test("a 403 rejects with the API server's own message and reason, without retrying", async () => {
  const message = 'nodes "other" is forbidden: node "n" is not allowed to modify node "other"';
  const server = await FakeApiServer.start(() => ({ code: 403, body: statusBody(403, "Forbidden", message) }));
  servers.push(server);
  const client = new RestClient({ credentials: server.credentials, clock: new FakeClock() });
  await assert.rejects(client.request("PATCH", "/api/v1/nodes/other/status", { body: {} }), (err: Error) => err instanceof ApiStatusError && err.code === 403 && err.reason === "Forbidden" && err.message === message);
  assert.equal(server.requests.length, 1);
});

test("a refused connection is worded as Go's net/http words it", async () => {
  const port = await new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  const client = new RestClient({ credentials: { server: `https://127.0.0.1:${port}`, insecureSkipTlsVerify: false }, clock: new FakeClock() });
  await assert.rejects(client.request("GET", "/api/v1/nodes"), { message: `Get "https://127.0.0.1:${port}/api/v1/nodes": dial tcp 127.0.0.1:${port}: connect: connection refused` });
});

test("a response larger than the limit is refused instead of buffered", async () => {
  const server = await FakeApiServer.start(() => ({ code: 200, body: { items: "x".repeat(MAX_RESPONSE_BYTES + 10) } }));
  servers.push(server);
  const client = new RestClient({ credentials: server.credentials, clock: new FakeClock() });
  await assert.rejects(client.request("GET", "/api/v1/pods"), /the response is larger than/);
});

test("a server certificate the client does not trust is refused before any request reaches the server", async () => {
  const server = await FakeApiServer.start(() => ({ code: 200, body: {} }));
  servers.push(server);
  const client = new RestClient({ credentials: { server: server.credentials.server, insecureSkipTlsVerify: false }, clock: new FakeClock() });
  await assert.rejects(client.request("GET", "/api/v1/nodes"), /self.signed certificate|unable to verify/);
  assert.equal(server.requests.length, 0);
});

test("a 401 or 403 rejects with the server's text and logs one warning naming the request and what is wrong, without the token", async () => {
  const server = await FakeApiServer.start((r) =>
    r.path.startsWith("/api/v1/pods") ? { code: 401, body: statusBody(401, "Unauthorized", "Unauthorized") } : { code: 403, body: statusBody(403, "Forbidden", 'secrets is forbidden: User "system:node:n" cannot list resource "secrets" in API group "" at the cluster scope: can only read namespaced object of this type') },
  );
  servers.push(server);
  const lines: string[] = [];
  const client = new RestClient({ credentials: server.credentials, clock: new FakeClock(), logger: createLogger({ level: "info", write: (l) => lines.push(l) }) });
  await assert.rejects(client.request("GET", "/api/v1/pods?fieldSelector=spec.nodeName%3Dn"), { message: "Unauthorized" });
  await assert.rejects(client.watch("/api/v1/secrets?watch=true", () => undefined, new AbortController().signal), { code: 403 });
  const logged = lines.map((l) => JSON.parse(l) as { level: string; msg: string; request: string; code: number });
  assert.deepEqual(logged.map((l) => [l.level, l.code, l.request]), [
    ["warn", 401, `GET ${server.credentials.server}/api/v1/pods?fieldSelector=spec.nodeName%3Dn`],
    ["warn", 403, `GET ${server.credentials.server}/api/v1/secrets?watch=true`],
  ]);
  assert.match(logged[0]!.msg, /did not accept the node's credentials/);
  assert.ok(!lines.join("").includes("test-token"));
});

test("a 5xx with Retry-After is retried after it, and one without is returned at once for the caller's back-off", async () => {
  let calls = 0;
  const server = await FakeApiServer.start(() => {
    calls++;
    if (calls === 1) return { code: 503, body: statusBody(503, "ServiceUnavailable", "etcd is away"), headers: { "retry-after": "1" } };
    if (calls === 2) return { code: 200, body: { kind: "Node" } };
    return { code: 500, body: statusBody(500, "InternalError", "boom") };
  });
  servers.push(server);
  const clock = new FakeClock();
  const client = new RestClient({ credentials: server.credentials, clock });
  const first = client.request("GET", "/api/v1/nodes/n");
  await server.waitForRequests(1);
  await clock.advance(1000);
  assert.deepEqual(await first, { kind: "Node" });
  await assert.rejects(client.request("GET", "/api/v1/nodes/n"), (err: Error) => err instanceof ApiStatusError && err.code === 500 && err.message === "boom");
  assert.equal(server.requests.length, 3);
});

test("over a Unix socket: plain HTTP with the token only in its header; a watch yields its events, a stream its text, and an oversized event ends the watch", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "rest-client-"));
  const seen: { url: string | undefined; headers: IncomingHttpHeaders }[] = [];
  const server = createHttpServer((req, res) => {
    seen.push({ url: req.url, headers: req.headers });
    res.writeHead(200, { "content-type": "application/json" });
    if (req.url === "/watch") res.end('{"type":"ADDED","object":{"n":1}}\n\n{"type":"DELETED","object":{"n":2}}\n');
    else if (req.url === "/big-watch") res.end(`{"type":"ADDED","object":"${"x".repeat(MAX_WATCH_EVENT_BYTES + 1)}"}\n`);
    else res.end("line 1\nline 2\n");
  });
  const socketPath = join(dir, "api.sock");
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  t.after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });
  const client = new RestClient({ credentials: { server: "http://localhost", token: "s3cret", socketPath }, clock: new FakeClock() });
  t.after(() => client.close());
  const events: ApiWatchEvent[] = [];
  await client.watch("/watch", (e) => events.push(e), new AbortController().signal);
  assert.deepEqual(events, [{ type: "ADDED", object: { n: 1 } }, { type: "DELETED", object: { n: 2 } }]);
  let text = "";
  for await (const chunk of client.stream("/log", new AbortController().signal)) text += chunk;
  assert.equal(text, "line 1\nline 2\n");
  await assert.rejects(client.watch("/big-watch", () => undefined, new AbortController().signal), /an event larger than/);
  assert.deepEqual(seen.map((r) => [r.url, r.headers.authorization]), [["/watch", "Bearer s3cret"], ["/log", "Bearer s3cret"], ["/big-watch", "Bearer s3cret"]]);
  assert.equal(seen[0]?.headers["user-agent"], undefined, "no User-Agent unless one is given");
});
