// Watches as the API server serves them, against a real loopback server and store: headers at
// once, from a resourceVersion, 410 Expired as an ERROR event, bookmarks, timeoutSeconds, and
// filtered watches that see objects enter and leave as ADDED and DELETED.
import assert from "node:assert/strict";
import { test } from "node:test";
import { podBody, startApiServer } from "../../../test/servers/api-server.js";

const PODS = "/api/v1/namespaces/default/pods";

interface WatchLine {
  type: string;
  object: { metadata: { name?: string; resourceVersion?: string; labels?: Record<string, string> }; code?: number; reason?: string; message?: string };
}

/** openWatch starts a watch and collects its lines until `done` is called or the stream ends. */
async function openWatch(url: string): Promise<{ lines: WatchLine[]; ended: Promise<void>; done: () => void; waitFor: (n: number) => Promise<void> }> {
  const controller = new AbortController();
  const res = await fetch(url, { signal: controller.signal });
  assert.equal(res.status, 200);
  const lines: WatchLine[] = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const ended = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
          lines.push(JSON.parse(buffer.slice(0, nl)) as WatchLine);
          buffer = buffer.slice(nl + 1);
        }
      }
    } catch {
      // aborted by done()
    }
  })();
  const waitFor = async (n: number): Promise<void> => {
    for (let i = 0; i < 200 && lines.length < n; i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(lines.length >= n, `waited for ${n} lines, got ${JSON.stringify(lines)}`);
  };
  return { lines, ended, done: () => controller.abort(), waitFor };
}

test("a watch without a resourceVersion starts with every object as ADDED, then streams changes", async (t) => {
  const { server, call } = await startApiServer(t);
  await call("POST", PODS, podBody("a"));
  const watch = await openWatch(`${server.url}${PODS}?watch=true`);
  t.after(watch.done);
  await watch.waitFor(1);
  await call("DELETE", `${PODS}/a?gracePeriodSeconds=0`);
  await watch.waitFor(2);
  assert.deepEqual(watch.lines.map((l) => `${l.type} ${l.object.metadata.name}`), ["ADDED a", "DELETED a"]);
});

test("a watch from a list's resourceVersion replays only the later changes", async (t) => {
  const { server, call } = await startApiServer(t);
  await call("POST", PODS, podBody("a"));
  const rv = (await call("GET", PODS)).body["metadata"]["resourceVersion"];
  await call("POST", PODS, podBody("b"));
  const watch = await openWatch(`${server.url}${PODS}?watch=1&resourceVersion=${rv}`);
  t.after(watch.done);
  await watch.waitFor(1);
  assert.deepEqual(watch.lines.map((l) => `${l.type} ${l.object.metadata.name}`), ["ADDED b"]);
});

test("a watch from a resourceVersion older than the kept history gets a 410 Expired Status as an ERROR event", async (t) => {
  const { api, server } = await startApiServer(t);
  const first = Number(api.store.resourceVersion);
  for (let i = 0; i < 1005; i++) api.recordEvent({ involvedObject: { kind: "Pod", name: `p${i}`, namespace: "default" }, reason: "R", message: "m", type: "Normal", count: 1, firstTimestamp: "", lastTimestamp: "", source: { component: "test" }, reportingComponent: "test" });
  const watch = await openWatch(`${server.url}/api/v1/namespaces/default/events?watch=true&resourceVersion=${first}`);
  await watch.ended;
  assert.equal(watch.lines.length, 1);
  assert.equal(watch.lines[0]?.type, "ERROR");
  assert.equal(watch.lines[0]?.object.code, 410);
  assert.equal(watch.lines[0]?.object.reason, "Expired");
  assert.match(watch.lines[0]?.object.message ?? "", /^too old resource version: \d+ \(\d+\)$/);
});

test("allowWatchBookmarks sends BOOKMARK events carrying only the resourceVersion; timeoutSeconds ends the watch", async (t) => {
  const { server, call } = await startApiServer(t, { bookmarkIntervalMs: 50 });
  await call("POST", PODS, podBody("a"));
  const watch = await openWatch(`${server.url}${PODS}?watch=true&allowWatchBookmarks=true&timeoutSeconds=1`);
  await watch.ended;
  const bookmarks = watch.lines.filter((l) => l.type === "BOOKMARK");
  assert.ok(bookmarks.length >= 2, JSON.stringify(watch.lines));
  assert.deepEqual(Object.keys(bookmarks[0]!.object), ["kind", "apiVersion", "metadata"]);
  assert.deepEqual(Object.keys(bookmarks[0]!.object.metadata), ["resourceVersion"]);
});

test("a filtered watch sees a pod enter its selector as ADDED and leave it as DELETED", async (t) => {
  const { api, server, call } = await startApiServer(t);
  await call("POST", PODS, podBody("a"));
  const rv = (await call("GET", PODS)).body["metadata"]["resourceVersion"];
  const watch = await openWatch(`${server.url}${PODS}?watch=true&resourceVersion=${rv}&fieldSelector=status.phase%3DRunning`);
  t.after(watch.done);
  api.updatePod("default", "a", (p) => (p.status = { phase: "Running" }));
  api.updatePod("default", "a", (p) => (p.status = { phase: "Succeeded" }));
  await watch.waitFor(2);
  assert.deepEqual(watch.lines.map((l) => `${l.type} ${l.object.metadata.name}`), ["ADDED a", "DELETED a"]);
});

test("a watch's response headers come at once, before any event", async (t) => {
  const { server } = await startApiServer(t);
  const controller = new AbortController();
  t.after(() => controller.abort());
  const res = await fetch(`${server.url}/api/v1/namespaces/empty/pods?watch=true`, { signal: controller.signal });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "application/json");
});

test("a watch with kubectl's Table Accept carries a one-row Table per event", async (t) => {
  const { server, call } = await startApiServer(t);
  await call("POST", PODS, podBody("a"));
  const controller = new AbortController();
  t.after(() => controller.abort());
  const res = await fetch(`${server.url}${PODS}?watch=true`, { signal: controller.signal, headers: { Accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json" } });
  const reader = res.body!.getReader();
  let text = "";
  for (let i = 0; i < 50 && !text.includes("\n"); i++) text += new TextDecoder().decode((await reader.read()).value);
  const event = JSON.parse(text.slice(0, text.indexOf("\n"))) as { type: string; object: { kind: string; rows: { cells: unknown[] }[] } };
  assert.equal(event.type, "ADDED");
  assert.equal(event.object.kind, "Table");
  assert.equal(event.object.rows.length, 1);
  assert.equal(event.object.rows[0]?.cells[0], "a");
});

test("a client that goes away, and closing the server, end watches and remove their store watchers", async (t) => {
  const { api, server } = await startApiServer(t);
  const first = await openWatch(`${server.url}${PODS}?watch=true`);
  const second = await openWatch(`${server.url}/api/v1/events?watch=true`);
  for (let i = 0; i < 100 && (api.watcherCount().pods !== 1 || api.watcherCount().events !== 1); i++) await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(api.watcherCount(), { pods: 1, events: 1 });
  first.done();
  for (let i = 0; i < 100 && api.watcherCount().pods !== 0; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(api.watcherCount().pods, 0);
  await server.close();
  await second.ended;
  assert.equal(api.watcherCount().events, 0);
});
