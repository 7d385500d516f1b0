import assert from "node:assert/strict";
import { test } from "node:test";
import { FakeAgentApi } from "../../test/fakes/fake-agent-api.js";
import { parseRangeQuery } from "./probe-range-query.js";
import { startStatusServer } from "./server.js";
import { StatusError } from "../apiserver/endpoints/status-object.js";

const DAY = 24 * 3600_000;

test("parseRangeQuery reads RFC 3339 bounds, a container and a probe type", () => {
  const q = parseRangeQuery(new URLSearchParams("since=2026-11-25T10:00:00Z&until=2026-11-25T11:00:00.5%2B01:00&container=app&probeType=Liveness"), DAY);
  assert.deepEqual(q, { since: Date.UTC(2026, 10, 25, 10), until: Date.UTC(2026, 10, 25, 10, 0, 0, 500), container: "app", probeType: "liveness" });
  assert.deepEqual(parseRangeQuery(new URLSearchParams("container="), DAY), {});
});

test("parseRangeQuery refuses a malformed time, an inverted or too long range and an unknown probe type with 400", () => {
  for (const [query, message] of [
    ["since=yesterday", /invalid since "yesterday": want an RFC 3339 time/],
    ["until=2026-11-25", /invalid until/],
    ["since=2026-11-25T12:00:00Z&until=2026-11-25T11:00:00Z", /since .* is after until/],
    ["since=2026-11-20T00:00:00Z&until=2026-11-25T00:00:00Z", /longer than the probe history window of 86400s/],
    ["probeType=sideways", /invalid probeType "sideways"/],
    [`container=${"x".repeat(300)}`, /longer than 256 characters/],
  ] as const) {
    assert.throws(() => parseRangeQuery(new URLSearchParams(query), DAY), (err: unknown) => err instanceof StatusError && err.status.code === 400 && message.test(err.status.message), query);
  }
});

test("GET …/probes?since=… answers a 400 Status for a malformed range", async (t) => {
  const api = new FakeAgentApi();
  api.addPod({ metadata: { name: "web", namespace: "default" }, spec: { containers: [{ name: "app" }] } });
  const server = await startStatusServer(api, { listen: "127.0.0.1:0" });
  t.after(() => server.close());
  const bad = await fetch(`${server.url}/api/v1/namespaces/default/pods/web/probes?since=nope`);
  assert.equal(bad.status, 400);
  assert.equal(((await bad.json()) as { reason: string }).reason, "BadRequest");
  const good = await fetch(`${server.url}/api/v1/namespaces/default/pods/web/probes?since=2026-11-25T00:00:00Z`);
  assert.equal(good.status, 200);
  assert.deepEqual(((await good.json()) as { segments: unknown[] }).segments, []);
});
