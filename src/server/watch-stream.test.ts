import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { FakeAgentApi } from "../../test/fakes/fake-agent-api.js";
import type { Pod } from "../api/types.js";
import { startStatusServer, type StatusServer, type StatusServerOptions } from "./server.js";

interface WatchLine {
  type: string;
  object: { kind?: string; metadata: { name?: string; namespace?: string }; status?: { phase?: string }; reason?: string };
}

/** WatchClient reads a newline-delimited JSON watch with fetch; every read is bounded in time. */
class WatchClient {
  readonly controller = new AbortController();
  private buffer = "";
  private reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  private readonly decoder = new TextDecoder();
  status = 0;
  contentType: string | null = null;

  async open(url: string): Promise<this> {
    const res = await fetch(url, { signal: this.controller.signal });
    this.status = res.status;
    this.contentType = res.headers.get("content-type");
    this.reader = res.body?.getReader();
    return this;
  }

  /** next returns the next watch event, failing after timeoutMs. */
  async next(timeoutMs = 5000): Promise<WatchLine> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const newline = this.buffer.indexOf("\n");
      if (newline >= 0) {
        const line = this.buffer.slice(0, newline);
        this.buffer = this.buffer.slice(newline + 1);
        return JSON.parse(line) as WatchLine;
      }
      const chunk = await this.read(deadline - Date.now());
      if (chunk === undefined) throw new Error(`watch ended; buffered: ${JSON.stringify(this.buffer)}`);
      this.buffer += chunk;
    }
  }

  /** ended resolves true when the server ends the stream within timeoutMs. */
  async ended(timeoutMs = 5000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const chunk = await this.read(deadline - Date.now()).catch(() => "timeout");
      if (chunk === undefined) return true;
      if (chunk === "timeout") return false;
    }
  }

  private async read(ms: number): Promise<string | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("watch read timed out")), Math.max(1, ms))));
    try {
      const { done, value } = await Promise.race([this.reader!.read(), late]);
      return done ? undefined : this.decoder.decode(value, { stream: true });
    } finally {
      clearTimeout(timer);
    }
  }
}

async function start(t: TestContext, options: Partial<StatusServerOptions> = {}): Promise<{ api: FakeAgentApi; server: StatusServer }> {
  const api = new FakeAgentApi();
  const server = await startStatusServer(api, { listen: "127.0.0.1:0", ...options });
  t.after(() => server.close());
  return { api, server };
}

async function watch(t: TestContext, url: string): Promise<WatchClient> {
  const client = await new WatchClient().open(url);
  t.after(() => client.controller.abort());
  return client;
}

async function until(what: string, condition: () => boolean): Promise<void> {
  for (let i = 0; i < 250 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.ok(condition(), what);
}

function pod(name: string, namespace = "default"): Pod {
  return { metadata: { name, namespace }, spec: { containers: [{ name: "app" }] } };
}

const brief = (e: WatchLine): string => `${e.type} ${e.object.metadata.namespace}/${e.object.metadata.name}`;

test("a pod watch sends the current pods as ADDED, then changes as they happen", { timeout: 20_000 }, async (t) => {
  const { api, server } = await start(t);
  api.addPod(pod("a"));
  api.addPod(pod("b", "other"));
  const client = await watch(t, `${server.url}/api/v1/pods?watch=true`);
  assert.equal(client.status, 200);
  assert.equal(client.contentType, "application/json");
  assert.deepEqual([brief(await client.next()), brief(await client.next())], ["ADDED default/a", "ADDED other/b"]);

  api.updatePod("default", "a", (p) => (p.status = { phase: "Running" }));
  const modified = await client.next();
  assert.equal(brief(modified), "MODIFIED default/a");
  assert.equal(modified.object.kind, "Pod");
  assert.equal(modified.object.status?.phase, "Running");

  api.addPod(pod("c"));
  api.removePod("other", "b");
  assert.deepEqual([brief(await client.next()), brief(await client.next())], ["ADDED default/c", "DELETED other/b"]);
});

test("a namespaced pod watch (watch=1) only sees its namespace", { timeout: 20_000 }, async (t) => {
  const { api, server } = await start(t);
  api.addPod(pod("a"));
  api.addPod(pod("b", "other"));
  const client = await watch(t, `${server.url}/api/v1/namespaces/other/pods?watch=1`);
  assert.equal(brief(await client.next()), "ADDED other/b");
  api.updatePod("default", "a", (p) => (p.status = { phase: "Running" }));
  api.updatePod("other", "b", (p) => (p.status = { phase: "Running" }));
  assert.equal(brief(await client.next()), "MODIFIED other/b");
});

test("?watch=false and ?watch=0 are plain lists", async (t) => {
  const { api, server } = await start(t);
  api.addPod(pod("a"));
  for (const q of ["watch=false", "watch=0", "watch=FALSE"]) {
    const res = await fetch(`${server.url}/api/v1/pods?${q}`);
    const body = (await res.json()) as { kind: string; items: unknown[] };
    assert.equal(body.kind, "PodList", q);
    assert.equal(body.items.length, 1, q);
  }
});

test("a client that disconnects from a watch is unsubscribed", { timeout: 20_000 }, async (t) => {
  const { api, server } = await start(t);
  api.addPod(pod("a"));
  const pods = await watch(t, `${server.url}/api/v1/pods?watch=true`);
  const events = await watch(t, `${server.url}/api/v1/events?watch=true`);
  await pods.next();
  assert.deepEqual(api.watcherCount(), { pods: 1, events: 1 });
  pods.controller.abort();
  events.controller.abort();
  await until("watchers removed", () => api.watcherCount().pods === 0 && api.watcherCount().events === 0);
  // Changes after the disconnect reach nobody and break nothing.
  api.updatePod("default", "a", (p) => (p.status = { phase: "Running" }));
  const res = await fetch(`${server.url}/healthz`);
  assert.equal(await res.text(), "ok");
});

test("a quiet watch outlives the idle timeout of ordinary requests", { timeout: 20_000 }, async (t) => {
  const { api, server } = await start(t, { idleTimeoutMs: 200 });
  const client = await watch(t, `${server.url}/api/v1/pods?watch=true`);
  await new Promise((resolve) => setTimeout(resolve, 700));
  api.addPod(pod("late"));
  assert.equal(brief(await client.next()), "ADDED default/late");
});

test("close() ends open watches and unsubscribes them", { timeout: 20_000 }, async (t) => {
  const api = new FakeAgentApi();
  const server = await startStatusServer(api, { listen: "127.0.0.1:0" });
  const pods = await watch(t, `${server.url}/api/v1/pods?watch=true`);
  const events = await watch(t, `${server.url}/api/v1/namespaces/default/events?watch=true`);
  await until("subscribed", () => api.watcherCount().pods === 1 && api.watcherCount().events === 1);
  await server.close();
  assert.equal(await pods.ended(), true);
  assert.equal(await events.ended(), true);
  assert.deepEqual(api.watcherCount(), { pods: 0, events: 0 });
});

test("an event watch honours the namespace and the field selector", { timeout: 20_000 }, async (t) => {
  const { api, server } = await start(t);
  const event = (name: string, namespace: string, reason: string): void => {
    api.recordEvent({
      involvedObject: { kind: "Pod", name, namespace },
      reason,
      message: `${reason} on ${name}`,
      type: "Warning",
      count: 1,
      firstTimestamp: "2026-01-01T00:00:00Z",
      lastTimestamp: "2026-01-01T00:00:00Z",
      source: { component: "kubelet" },
      reportingComponent: "kubelet",
    });
  };
  event("web", "default", "Unhealthy");
  event("db", "default", "Killing");
  const client = await watch(t, `${server.url}/api/v1/namespaces/default/events?watch=true&fieldSelector=involvedObject.name%3Dweb`);
  const first = await client.next();
  assert.deepEqual([first.type, first.object.reason], ["ADDED", "Unhealthy"]);
  event("db", "default", "Started");
  event("web", "other", "Started");
  event("web", "default", "ProbeWarning");
  const next = await client.next();
  assert.deepEqual([next.type, next.object.reason, next.object.metadata.namespace], ["ADDED", "ProbeWarning", "default"]);
});
