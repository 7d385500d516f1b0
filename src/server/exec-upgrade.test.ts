// kubectl exec's WebSocket upgrade reaches the exec handler through the status server: with the
// token, after the ready gate, only on the exec path; the container comes from the node.
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import WebSocket from "ws";
import { FakeAgentApi } from "../../test/fakes/fake-agent-api.js";
import { startStatusServer } from "./server.js";

interface Refusal {
  code: number;
  body: { reason?: string; message?: string };
}

/** upgrade opens a v5.channel.k8s.io WebSocket and reports the HTTP refusal the server answers. */
function upgrade(url: string, headers: Record<string, string> = {}): Promise<Refusal> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, ["v5.channel.k8s.io"], { headers });
    ws.on("unexpected-response", (_req, res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
      res.on("end", () => resolve({ code: res.statusCode ?? 0, body: JSON.parse(text) as Refusal["body"] }));
    });
    ws.on("open", () => {
      ws.close();
      reject(new Error("the upgrade was accepted"));
    });
    ws.on("error", () => undefined);
  });
}

async function start(t: TestContext): Promise<{ api: FakeAgentApi; base: string }> {
  const api = new FakeAgentApi();
  const server = await startStatusServer(api, { listen: "127.0.0.1:0", token: "s3cret" });
  t.after(() => server.close());
  return { api, base: server.url.replace(/^http/, "ws") };
}

test("an exec upgrade without the token is refused with 401 Unauthorized", async (t) => {
  const { base } = await start(t);
  const answer = await upgrade(`${base}/api/v1/namespaces/default/pods/web/exec?command=sh&stdout=true`);
  assert.equal(answer.code, 401);
  assert.equal(answer.body.reason, "Unauthorized");
});

test("an exec upgrade goes to the node's container lookup: an unknown pod is 404, a known one the node's refusal", async (t) => {
  const { api, base } = await start(t);
  const auth = { Authorization: "Bearer s3cret" };
  const missing = await upgrade(`${base}/api/v1/namespaces/default/pods/web/exec?command=sh&stdout=true`, auth);
  assert.equal(missing.code, 404);
  assert.equal(missing.body.message, 'pods "web" not found');
  api.addPod({ metadata: { name: "web", namespace: "default" }, spec: { containers: [{ name: "app", image: "busybox" }] } });
  const stopped = await upgrade(`${base}/api/v1/namespaces/default/pods/web/exec?command=sh&stdout=true`, auth);
  assert.equal(stopped.code, 500);
  assert.equal(stopped.body.message, 'Internal error occurred: container not found ("app")');
});

test("an upgrade on any other path is a 404", async (t) => {
  const { base } = await start(t);
  const answer = await upgrade(`${base}/api/v1/namespaces/default/pods/web/attach?stdout=true`, { Authorization: "Bearer s3cret" });
  assert.equal(answer.code, 404);
});
