import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { ApiError } from "./host-interface.js";
import type { Pod } from "../../api/types.js";
import { FakeAgentApi } from "../../../test/fakes/fake-agent-api.js";
import { startStatusServer, type StatusServer } from "../../server/server.js";

async function start(t: TestContext): Promise<{ api: FakeAgentApi; server: StatusServer }> {
  const api = new FakeAgentApi();
  const server = await startStatusServer(api, { listen: "127.0.0.1:0" });
  t.after(() => server.close());
  const web: Pod = { metadata: { name: "web", namespace: "default" }, spec: { containers: [{ name: "app" }] } };
  const two: Pod = { metadata: { name: "two", namespace: "default" }, spec: { containers: [{ name: "app" }, { name: "sidecar" }] } };
  api.addPod(web);
  api.addPod(two);
  api.appendLog("default", "web", "app", "one", "two", "three");
  api.appendLog("default", "two", "sidecar", "proxy up");
  return { api, server };
}

/** TextStream reads a streamed text response with fetch; every wait is bounded. */
class TextStream {
  readonly controller = new AbortController();
  text = "";
  status = 0;
  private reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  private readonly decoder = new TextDecoder();

  async open(url: string): Promise<this> {
    const res = await fetch(url, { signal: this.controller.signal });
    this.status = res.status;
    this.reader = res.body?.getReader();
    return this;
  }

  /** readUntil reads until the text so far satisfies done, or the stream ends ("ended"), or times out. */
  async readUntil(done: (text: string) => boolean, timeoutMs = 5000): Promise<"ok" | "ended"> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out; have ${JSON.stringify(this.text)}`)), timeoutMs)));
    try {
      while (!done(this.text)) {
        const { done: ended, value } = await Promise.race([this.reader!.read(), late]);
        if (ended) return "ended";
        this.text += this.decoder.decode(value, { stream: true });
      }
      return "ok";
    } finally {
      clearTimeout(timer);
    }
  }
}

async function until(what: string, condition: () => boolean): Promise<void> {
  for (let i = 0; i < 250 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.ok(condition(), what);
}

const LOG = "/api/v1/namespaces/default/pods/web/log";

test("GET …/log returns the container log as text/plain, honouring the query options", async (t) => {
  const { api, server } = await start(t);
  const cases: { query: string; body: string; request: Record<string, unknown> }[] = [
    { query: "", body: "one\ntwo\nthree\n", request: { previous: false, follow: false, timestamps: false } },
    { query: "?tailLines=2", body: "two\nthree\n", request: { previous: false, follow: false, timestamps: false, tailLines: 2 } },
    { query: "?tailLines=0", body: "", request: { previous: false, follow: false, timestamps: false, tailLines: 0 } },
    {
      query: "?timestamps=true&tailLines=1",
      body: "2026-01-01T00:00:00Z three\n",
      request: { previous: false, follow: false, timestamps: true, tailLines: 1 },
    },
    { query: "?container=app&previous=true", body: "", request: { previous: true, follow: false, timestamps: false, container: "app" } },
  ];
  for (const c of cases) {
    const res = await fetch(`${server.url}${LOG}${c.query}`);
    assert.equal(res.status, 200, c.query);
    assert.equal(res.headers.get("content-type"), "text/plain; charset=utf-8");
    assert.equal(await res.text(), c.body, c.query);
    assert.deepEqual(api.calls.readLogs.at(-1), { namespace: "default", name: "web", ...c.request }, c.query);
  }
  const sidecar = await fetch(`${server.url}/api/v1/namespaces/default/pods/two/log?container=sidecar`);
  assert.equal(await sidecar.text(), "proxy up\n");
  await until("readers released", () => api.activeLogReaders === 0);
});

test("log errors are Status objects sent before any log byte", async (t) => {
  const { server } = await start(t);
  const status = (code: number, reason: string, message: string, details?: object): object => {
    const head = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason };
    return details === undefined ? { ...head, code } : { ...head, details, code };
  };
  const cases: { path: string; expected: object }[] = [
    { path: "/api/v1/namespaces/default/pods/ghost/log", expected: status(404, "NotFound", 'pods "ghost" not found', { name: "ghost", kind: "pods" }) },
    {
      path: "/api/v1/namespaces/default/pods/two/log",
      expected: status(400, "BadRequest", "a container name must be specified for pod two, choose one of: [app sidecar]"),
    },
    { path: `${LOG}?container=nope`, expected: status(400, "BadRequest", "container nope is not valid for pod web") },
    { path: `${LOG}?tailLines=-3`, expected: status(400, "BadRequest", 'invalid tailLines "-3": must be a non-negative integer') },
    { path: `${LOG}?tailLines=ten&follow=true`, expected: status(400, "BadRequest", 'invalid tailLines "ten": must be a non-negative integer') },
  ];
  for (const c of cases) {
    const res = await fetch(`${server.url}${c.path}`);
    assert.equal(res.headers.get("content-type"), "application/json", c.path);
    assert.deepEqual(await res.json(), c.expected, c.path);
  }
});

test("readLogs throwing synchronously is answered with its Status too", async (t) => {
  const { api, server } = await start(t);
  api.readLogs = () => {
    throw new ApiError("NotFound", 'pods "web" not found');
  };
  const res = await fetch(`${server.url}${LOG}`);
  assert.equal(res.status, 404);
});

test("follow streams new lines until the client disconnects, which stops the agent's reader", { timeout: 20_000 }, async (t) => {
  const { api, server } = await start(t);
  const stream = await new TextStream().open(`${server.url}${LOG}?follow=true&tailLines=1`);
  t.after(() => stream.controller.abort());
  assert.equal(stream.status, 200);
  assert.equal(await stream.readUntil((s) => s === "three\n"), "ok");
  api.appendLog("default", "web", "app", "four");
  assert.equal(await stream.readUntil((s) => s.endsWith("four\n")), "ok");
  api.appendLog("default", "web", "app", "five", "six");
  assert.equal(await stream.readUntil((s) => s.endsWith("six\n")), "ok");
  assert.equal(stream.text, "three\nfour\nfive\nsix\n");
  assert.equal(api.activeLogReaders, 1);
  stream.controller.abort();
  await until("the agent's reader ended", () => api.activeLogReaders === 0);
});

test("following an empty log sends the headers at once", { timeout: 20_000 }, async (t) => {
  const { api, server } = await start(t);
  const stream = await new TextStream().open(`${server.url}/api/v1/namespaces/default/pods/two/log?container=app&follow=1`);
  t.after(() => stream.controller.abort());
  assert.equal(stream.status, 200);
  api.appendLog("default", "two", "app", "first");
  assert.equal(await stream.readUntil((s) => s === "first\n"), "ok");
});

test("close() ends followed logs", { timeout: 20_000 }, async (t) => {
  const api = new FakeAgentApi();
  api.addPod({ metadata: { name: "web", namespace: "default" }, spec: { containers: [{ name: "app" }] } });
  api.appendLog("default", "web", "app", "hello");
  const server = await startStatusServer(api, { listen: "127.0.0.1:0" });
  const stream = await new TextStream().open(`${server.url}${LOG}?follow=true`);
  t.after(() => stream.controller.abort());
  assert.equal(await stream.readUntil((s) => s === "hello\n"), "ok");
  await server.close();
  assert.equal(await stream.readUntil(() => false), "ended");
  assert.equal(stream.text, "hello\n");
  await until("the agent's reader ended", () => api.activeLogReaders === 0);
});

test("an error in the middle of a log cuts the connection", { timeout: 20_000 }, async (t) => {
  const { api, server } = await start(t);
  api.readLogs = async function* () {
    yield "partial";
    await Promise.resolve();
    throw new Error("log file rotated away");
  };
  const stream = await new TextStream().open(`${server.url}${LOG}`);
  assert.equal(stream.status, 200);
  await assert.rejects(stream.readUntil(() => false), /terminated|other side closed|aborted/i);
  assert.equal(stream.text, "partial\n");
});
