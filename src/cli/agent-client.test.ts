import assert from "node:assert/strict";
import { createServer } from "node:http";
import { createServer as createTcpServer, type AddressInfo } from "node:net";
import { test } from "node:test";
import { FakeAgentApi } from "../../test/fakes/fake-agent-api.js";
import { startStatusServer } from "../server/server.js";
import { UsageError } from "./args.js";
import { MAX_RESPONSE_BYTES } from "../client/rest-client.js";
import { AgentUnreachableError, clientFromFlags, formatStatusError, parseCommandArgs, ServerStatusError, type ServerStatus } from "./agent-client.js";

const never = new AbortController().signal;

test("formatStatusError renders Status failures as kubectl does", () => {
  const invalid = (details: NonNullable<ServerStatus["details"]>): ServerStatus => ({ kind: "Status", reason: "Invalid", code: 422, message: 'Pod "web" is invalid: …', details });
  const cases: { name: string; status: ServerStatus; want: string }[] = [
    { name: "not found", status: { reason: "NotFound", message: 'pods "x" not found', code: 404 }, want: 'Error from server (NotFound): pods "x" not found' },
    { name: "already exists", status: { reason: "AlreadyExists", message: 'pods "x" already exists' }, want: 'Error from server (AlreadyExists): pods "x" already exists' },
    { name: "no reason", status: { message: "boom" }, want: "Error from server: boom" },
    { name: "unauthorized", status: { reason: "Unauthorized", message: "Unauthorized" }, want: "error: You must be logged in to the server (Unauthorized)" },
    {
      name: "invalid, one cause",
      status: invalid({ kind: "Pod", name: "web", causes: [{ field: "spec.containers[0].livenessProbe.successThreshold", message: "Invalid value: 2: must be 1" }] }),
      want: 'The Pod "web" is invalid: spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1',
    },
    {
      name: "invalid, several causes, repeats dropped, field not doubled",
      status: invalid({
        kind: "Pod",
        name: "web",
        causes: [
          { field: "metadata.name", message: "Required value" },
          { field: "spec.containers[0].name", message: "spec.containers[0].name: Required value" },
          { field: "metadata.name", message: "Required value" },
        ],
      }),
      want: 'The Pod "web" is invalid: \n* metadata.name: Required value\n* spec.containers[0].name: Required value',
    },
    { name: "invalid without details", status: { reason: "Invalid", message: "bad" }, want: "The request is invalid: bad" },
    { name: "invalid without kind or name", status: invalid({ causes: [] }), want: 'The request is invalid: Pod "web" is invalid: …' },
  ];
  for (const c of cases) assert.equal(formatStatusError(c.status), c.want, c.name);
});

test("clientFromFlags: --server, then $PROBELET_SERVER, then the state directory's socket, never a default port; --token is refused (ps would show it)", () => {
  assert.equal(clientFromFlags({}, never, { PROBELET_STATE_DIR: "/srv/probelet" }).server, "unix:/srv/probelet/agent.sock");
  assert.equal(clientFromFlags({ "state-dir": "/tmp/other" }, never, { PROBELET_STATE_DIR: "/srv/probelet" }).server, "unix:/tmp/other/agent.sock");
  assert.equal(clientFromFlags({}, never, { PROBELET_SERVER: "http://127.0.0.1:9/" }).server, "http://127.0.0.1:9");
  assert.equal(clientFromFlags({ server: "https://[::1]:8443" }, never, { PROBELET_SERVER: "http://127.0.0.1:9" }).server, "https://[::1]:8443");
  for (const server of ["127.0.0.1:10255", "localhost:10255", "http://"]) {
    assert.throws(() => clientFromFlags({ server }, never, {}), new UsageError(`invalid server URL "${server}": want an http:// or https:// URL such as http://127.0.0.1:10255`));
  }
  assert.throws(() => clientFromFlags({ token: "t" }, never, {}), new UsageError("--token would show the token to every user of this machine (ps): use --token-file FILE or $PROBELET_TOKEN"));
});

test("parseCommandArgs: kubectl's --flag=true|false for booleans, short usage errors", () => {
  const options = { wait: { type: "boolean" }, tail: { type: "string" } } as const;
  assert.equal(parseCommandArgs(["--wait=false"], options).values.wait, false);
  assert.equal(parseCommandArgs(["--wait=true"], options).values.wait, true);
  assert.equal(parseCommandArgs(["--tail=-1"], options).values.tail, "-1");
  assert.throws(() => parseCommandArgs(["--nope"], options), new UsageError("unknown flag: --nope"));
  assert.throws(() => parseCommandArgs(["--tail"], options), new UsageError("flag needs an argument: --tail"));
  assert.throws(() => parseCommandArgs(["--tail", "-1"], options), new UsageError('flag --tail: a value starting with "-" must be written as --tail=VALUE'));
});

test("a closed port is reported as an unreachable agent", async () => {
  const blocker = createTcpServer();
  await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
  const { port } = blocker.address() as AddressInfo;
  await new Promise<void>((resolve) => blocker.close(() => resolve()));
  const client = clientFromFlags({ server: `http://127.0.0.1:${port}` }, never, {});
  await assert.rejects(client.listPods("default"), (err: unknown) => {
    assert.ok(err instanceof AgentUnreachableError);
    assert.equal(err.message, `cannot reach the probelet agent at http://127.0.0.1:${port}: is "probelet run" running?`);
    return true;
  });
});

test("the token is sent as a bearer token; a wrong one is kubectl's Unauthorized text", async (t) => {
  const api = new FakeAgentApi();
  const server = await startStatusServer(api, { listen: "127.0.0.1:0", token: "s3cret" });
  t.after(() => server.close());
  assert.deepEqual(await clientFromFlags({ server: server.url }, never, { PROBELET_TOKEN: "s3cret" }).listPods(undefined), []);
  await assert.rejects(clientFromFlags({ server: server.url }, never, { PROBELET_TOKEN: "wrong" }).listPods(undefined), {
    name: "ServerStatusError",
    message: "error: You must be logged in to the server (Unauthorized)",
  });
});

test("a failure body that is not a Status becomes kubectl's 'an error on the server' text", async (t) => {
  const raw = createServer((_req, res) => {
    res.writeHead(502, { "Content-Type": "text/plain" });
    res.end("bad gateway\n");
  });
  await new Promise<void>((resolve) => raw.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => raw.close(() => resolve())));
  const { port } = raw.address() as AddressInfo;
  await assert.rejects(clientFromFlags({ server: `http://127.0.0.1:${port}` }, never, {}).getPod("default", "web"), (err: unknown) => {
    assert.ok(err instanceof ServerStatusError);
    assert.equal(err.message, 'Error from server (InternalError): an error on the server ("bad gateway") has prevented the request from succeeding');
    return true;
  });
});

test("an agent's answer larger than the limit is refused instead of buffered", async (t) => {
  const raw = createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(`{"items":"${"x".repeat(MAX_RESPONSE_BYTES)}"}`);
  });
  await new Promise<void>((resolve) => raw.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => raw.close(() => resolve())));
  const { port } = raw.address() as AddressInfo;
  await assert.rejects(clientFromFlags({ server: `http://127.0.0.1:${port}` }, never, {}).listPods("default"), /the response is larger than 33554432 bytes/);
});

test("a log larger than an answer's bound is streamed whole, not refused (rotated files may hold more)", async (t) => {
  const chunk = "x".repeat(1024 * 1024 - 1) + "\n";
  const raw = createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "text/plain" });
    for (let i = 0; i < 33; i++) res.write(chunk);
    res.end();
  });
  await new Promise<void>((resolve) => raw.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => raw.close(() => resolve())));
  const { port } = raw.address() as AddressInfo;
  let received = 0;
  for await (const text of clientFromFlags({ server: `http://127.0.0.1:${port}` }, never, {}).streamLogs("default", "web", {})) received += text.length;
  assert.equal(received, 33 * chunk.length);
  assert.ok(received > MAX_RESPONSE_BYTES);
});

test("findPod resolves undefined for NotFound; path segments are escaped", async (t) => {
  const api = new FakeAgentApi();
  api.addPod({ metadata: { name: "web", namespace: "my ns" }, spec: { containers: [{ name: "app" }] } });
  const server = await startStatusServer(api, { listen: "127.0.0.1:0" });
  t.after(() => server.close());
  const client = clientFromFlags({ server: server.url }, never, {});
  assert.equal((await client.findPod("my ns", "web"))?.metadata.name, "web");
  assert.equal(await client.findPod("my ns", "nope"), undefined);
  assert.equal(await client.findPod("default", "web"), undefined);
});
