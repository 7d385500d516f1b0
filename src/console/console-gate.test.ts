import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { FakeAgentApi } from "../../test/fakes/fake-agent-api.js";
import { FakeClock } from "../../test/fakes/fake-clock.js";
import { startStatusServer, type StatusServer } from "../server/server.js";
import { CONTENT_SECURITY_POLICY } from "./console-assets.js";
import { ConsoleSessions, LOGIN_CODE_TTL_MS, readCookie, SESSION_COOKIE, SESSION_TTL_MS } from "./console-sessions.js";

const TOKEN = "owner-token";

async function start(t: TestContext): Promise<StatusServer> {
  const server = await startStatusServer(new FakeAgentApi(), { listen: "127.0.0.1:0", token: TOKEN });
  t.after(() => server.close());
  return server;
}

async function loginCode(server: StatusServer): Promise<string> {
  const res = await fetch(`${server.url}/console/login-codes`, { method: "POST", headers: { Authorization: `Bearer ${TOKEN}` } });
  assert.equal(res.status, 201);
  const body = (await res.json()) as { code: string };
  return body.code;
}

test("the console and the API refuse a request without the bearer token or a session cookie (401)", async (t) => {
  const server = await start(t);
  for (const [method, path] of [["GET", "/"], ["GET", "/api/v1/pods"], ["POST", "/console/login-codes"], ["GET", "/console/explain/default/web"]] as const) {
    const res = await fetch(`${server.url}${path}`, { method, headers: { Cookie: `${SESSION_COOKIE}=forged` } });
    assert.equal(res.status, 401, `${method} ${path}`);
    await res.arrayBuffer();
  }
});

test("a login code becomes an HttpOnly SameSite=Strict session once; the cookie opens the console and reading the API, not writing", async (t) => {
  const server = await start(t);
  const code = await loginCode(server);
  assert.notEqual(code, TOKEN);
  const login = await fetch(`${server.url}/console/login?code=${code}`);
  assert.equal(login.status, 200);
  const setCookie = login.headers.get("set-cookie") ?? "";
  assert.match(setCookie, /HttpOnly/);
  assert.match(setCookie, /SameSite=Strict/);
  assert.doesNotMatch(setCookie, new RegExp(TOKEN));
  const cookie = setCookie.split(";")[0] ?? "";
  await login.arrayBuffer();

  const index = await fetch(`${server.url}/`, { headers: { Cookie: cookie } });
  assert.equal(index.status, 200);
  assert.equal(index.headers.get("content-type"), "text/html; charset=utf-8");
  assert.equal(index.headers.get("content-security-policy"), CONTENT_SECURITY_POLICY);
  assert.equal(index.headers.get("cache-control"), "no-cache");
  const html = await index.text();
  const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
  assert.ok(script, "the index page loads a hashed script");
  const asset = await fetch(`${server.url}${script}`, { headers: { Cookie: cookie } });
  assert.equal(asset.headers.get("content-type"), "text/javascript; charset=utf-8");
  assert.match(asset.headers.get("cache-control") ?? "", /immutable/);
  await asset.arrayBuffer();

  assert.equal((await fetch(`${server.url}/api/v1/pods`, { headers: { Cookie: cookie } })).status, 200);
  const write = await fetch(`${server.url}/api/v1/namespaces/default/pods`, { method: "POST", headers: { Cookie: cookie, "Content-Type": "application/json" }, body: "{}" });
  assert.equal(write.status, 401, "a cookie never creates or deletes pods");
  await write.arrayBuffer();

  const again = await fetch(`${server.url}/console/login?code=${code}`);
  assert.equal(again.status, 401, "a login code works once");
  assert.equal(again.headers.get("set-cookie"), null);
  await again.arrayBuffer();
});

test("login codes expire after LOGIN_CODE_TTL_MS and sessions after SESSION_TTL_MS", async () => {
  const clock = new FakeClock();
  const sessions = new ConsoleSessions(clock);
  const late = sessions.issueCode();
  await clock.advance(LOGIN_CODE_TTL_MS);
  assert.equal(sessions.exchange(late), undefined);
  const session = sessions.exchange(sessions.issueCode());
  assert.ok(session);
  assert.equal(sessions.authenticate(`a=b; ${SESSION_COOKIE}=${session}`), true);
  await clock.advance(SESSION_TTL_MS);
  assert.equal(sessions.authenticate(`${SESSION_COOKIE}=${session}`), false);
  assert.equal(readCookie("x=1; y = 2", "y"), "2");
});
