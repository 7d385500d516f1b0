import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { KubeEvent } from "../agent/agent-api.js";
import { FakeAgentApi } from "../../test/fakes/fake-agent-api.js";
import { startStatusServer, type StatusServer } from "./server.js";

let api: FakeAgentApi;
let server: StatusServer;

before(async () => {
  api = new FakeAgentApi();
  server = await startStatusServer(api, { listen: "127.0.0.1:0" });
  const record = (name: string, namespace: string, reason: string, uid: string, type: "Normal" | "Warning" = "Normal"): void => {
    api.recordEvent({
      involvedObject: { kind: "Pod", apiVersion: "v1", name, namespace, uid, fieldPath: "spec.containers{app}" },
      reason,
      message: `${reason} ${name}`,
      type,
      count: 1,
      firstTimestamp: "2026-01-01T00:00:00Z",
      lastTimestamp: "2026-01-01T00:00:00Z",
      source: { component: "kubelet", host: "node-1" },
      reportingComponent: "kubelet",
      reportingInstance: "node-1",
    });
  };
  record("web", "default", "Started", "uid-web");
  record("web", "default", "Unhealthy", "uid-web", "Warning");
  record("db", "default", "Killing", "uid-db");
  record("web", "prod", "Started", "uid-web-prod");
});
after(() => server.close());

async function events(path: string): Promise<{ code: number; body: Record<string, unknown> }> {
  const res = await fetch(`${server.url}${path}`);
  return { code: res.status, body: (await res.json()) as Record<string, unknown> };
}

const summary = (body: Record<string, unknown>): string[] =>
  (body["items"] as KubeEvent[]).map((e) => `${e.metadata.namespace}/${e.involvedObject.name}/${e.reason}`);

test("GET /api/v1/events and /api/v1/namespaces/{ns}/events return an EventList", async () => {
  const all = await events("/api/v1/events");
  assert.equal(all.code, 200);
  assert.deepEqual([all.body["kind"], all.body["apiVersion"], all.body["metadata"]], ["EventList", "v1", {}]);
  assert.deepEqual(summary(all.body), ["default/web/Started", "default/web/Unhealthy", "default/db/Killing", "prod/web/Started"]);
  assert.deepEqual(summary((await events("/api/v1/namespaces/prod/events")).body), ["prod/web/Started"]);
  assert.deepEqual(summary((await events("/api/v1/namespaces/none/events")).body), []);
  const first = (all.body["items"] as KubeEvent[])[0];
  assert.equal(first?.kind, "Event");
  assert.equal(first?.involvedObject.fieldPath, "spec.containers{app}");
});

test("fieldSelector narrows events the way kubectl describe asks", async () => {
  const cases: { path: string; expected: string[] }[] = [
    { path: "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dweb", expected: ["default/web/Started", "default/web/Unhealthy"] },
    {
      path: "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dweb%2CinvolvedObject.namespace%3Ddefault%2CinvolvedObject.uid%3Duid-web",
      expected: ["default/web/Started", "default/web/Unhealthy"],
    },
    { path: "/api/v1/events?fieldSelector=involvedObject.name%3D%3Dweb", expected: ["default/web/Started", "default/web/Unhealthy", "prod/web/Started"] },
    { path: "/api/v1/events?fieldSelector=involvedObject.name%21%3Dweb", expected: ["default/db/Killing"] },
    { path: "/api/v1/events?fieldSelector=type%3DWarning", expected: ["default/web/Unhealthy"] },
    { path: "/api/v1/events?fieldSelector=involvedObject.uid%3Dnobody", expected: [] },
    { path: "/api/v1/events?fieldSelector=", expected: ["default/web/Started", "default/web/Unhealthy", "default/db/Killing", "prod/web/Started"] },
  ];
  for (const c of cases) {
    const res = await events(c.path);
    assert.equal(res.code, 200, c.path);
    assert.deepEqual(summary(res.body), c.expected, c.path);
  }
});

test("an unsupported or malformed field selector is a 400 BadRequest", async () => {
  const cases: { selector: string; message: string }[] = [
    { selector: "spec.nodeName=node-1", message: "field label not supported: spec.nodeName" },
    { selector: "involvedObject.name", message: "invalid selector: 'involvedObject.name'; can't understand 'involvedObject.name'" },
  ];
  for (const c of cases) {
    const res = await events(`/api/v1/events?fieldSelector=${encodeURIComponent(c.selector)}`);
    assert.equal(res.code, 400, c.selector);
    assert.deepEqual(res.body, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: c.message, reason: "BadRequest", code: 400 });
  }
});
