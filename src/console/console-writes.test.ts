import assert from "node:assert/strict";
import { test } from "node:test";
import { FakeAgentApi } from "../../test/fakes/fake-agent-api.js";
import { startStatusServer } from "../server/server.js";
import { consoleGateFactory, SESSIONS_PATH } from "./console-gate.js";
import { ConsoleSessions, SESSION_KEY_HEADER } from "./console-sessions.js";
import { systemClock } from "../util/clock.js";

const TOKEN = "owner-token";

test("a console session deletes a pod and triggers a probe from the console's own origin, and writes nothing else", async (t) => {
  const api = new FakeAgentApi();
  for (const name of ["a", "b"]) api.addPod({ metadata: { name, namespace: "default" }, spec: { containers: [{ name: "app" }] } });
  const server = await startStatusServer(api, { listen: "127.0.0.1:0", token: TOKEN, consoleGate: consoleGateFactory(new ConsoleSessions(systemClock)) });
  t.after(() => server.close());
  const issued = await fetch(`${server.url}/console/login-codes`, { method: "POST", headers: { Authorization: `Bearer ${TOKEN}` } });
  const { code } = (await issued.json()) as { code: string };
  // What the console page does with the code: a session of a cookie and a key.
  const login = await fetch(`${server.url}${SESSIONS_PATH}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ code }) });
  const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const { key } = (await login.json()) as { key: string };
  const own = new URL(server.url).origin;
  const send = async (method: string, path: string, origin: string | undefined): Promise<number> => {
    const res = await fetch(`${server.url}${path}`, { method, headers: { Cookie: cookie, [SESSION_KEY_HEADER]: key, ...(origin !== undefined ? { Origin: origin } : {}) } });
    await res.arrayBuffer();
    return res.status;
  };
  assert.equal(await send("DELETE", "/api/v1/namespaces/default/pods/a", undefined), 401, "no Origin: not the console's page");
  assert.equal(await send("DELETE", "/api/v1/namespaces/default/pods/a", "http://127.0.0.1:1"), 401, "another port's page");
  assert.equal(await send("DELETE", "/api/v1/namespaces/default/pods/a", own), 200);
  assert.deepEqual(api.calls.deletePod.map((d) => d.name), ["a"]);
  assert.equal(await send("POST", "/api/v1/namespaces/default/pods/b/probes/trigger?probeType=liveness", own), 404, "through to the API: b has no probe");
  assert.equal(await send("DELETE", "/api/v1/namespaces/default/pods", own), 401, "deleting a collection");
  assert.equal(await send("POST", "/api/v1/namespaces/default/pods", own), 401, "creating");
  assert.equal(await send("DELETE", "/api/v1/namespaces/default/configmaps/x", own), 401, "other resources");
  assert.equal(await send("PATCH", "/api/v1/namespaces/default/pods/b", own), 401, "changing");
  // The cookie alone (what another port's server receives from the browser) opens no action.
  const alone = await fetch(`${server.url}/api/v1/namespaces/default/pods/b`, { method: "DELETE", headers: { Cookie: cookie, Origin: own } });
  await alone.arrayBuffer();
  assert.equal(alone.status, 401, "the cookie without the key");
});
