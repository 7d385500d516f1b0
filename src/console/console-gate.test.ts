import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { FakeAgentApi } from "../../test/fakes/fake-agent-api.js";
import { FakeClock } from "../../test/fakes/fake-clock.js";
import { startStatusServer, type StatusServer } from "../server/server.js";
import { CONTENT_SECURITY_POLICY } from "./console-assets.js";
import { ConsoleSessions, LOGIN_CODE_TTL_MS, readCookie, SESSION_KEY_HEADER, SESSION_TTL_MS, sessionCookieName, type SessionInfo } from "./console-sessions.js";

const TOKEN = "owner-token";
const OWNER = { Authorization: `Bearer ${TOKEN}` };

async function start(t: TestContext): Promise<StatusServer> {
  const server = await startStatusServer(new FakeAgentApi(), { listen: "127.0.0.1:0", token: TOKEN });
  t.after(() => server.close());
  return server;
}

async function loginCode(server: StatusServer): Promise<{ code: string; url: string }> {
  const res = await fetch(`${server.url}/console/login-codes`, { method: "POST", headers: OWNER });
  assert.equal(res.status, 201);
  return (await res.json()) as { code: string; url: string };
}

/** login does what the console page does with a code: the session's cookie (as a Cookie header) and its key. */
async function login(server: StatusServer, userAgent = "test-browser"): Promise<{ cookie: string; key: string; setCookie: string }> {
  const { code } = await loginCode(server);
  const res = await fetch(`${server.url}/console/sessions`, { method: "POST", headers: { "Content-Type": "application/json", "User-Agent": userAgent }, body: JSON.stringify({ code }) });
  assert.equal(res.status, 201);
  const setCookie = res.headers.get("set-cookie") ?? "";
  const { key } = (await res.json()) as { key: string };
  return { cookie: setCookie.split(";")[0] ?? "", key, setCookie };
}

async function status(url: string, init: RequestInit = {}): Promise<number> {
  const res = await fetch(url, init);
  await res.arrayBuffer();
  return res.status;
}

test("without the token or a session the API, explain, login codes and the session list answer 401; the console's files are public", async (t) => {
  const server = await start(t);
  for (const [method, path] of [["GET", "/api/v1/pods"], ["POST", "/console/login-codes"], ["GET", "/console/explain/default/web"], ["GET", "/console/sessions"], ["DELETE", "/console/sessions"], ["POST", "/console/logout"]] as const) {
    assert.equal(await status(`${server.url}${path}`, { method, headers: { Cookie: `${sessionCookieName(server.address.port)}=forged`, [SESSION_KEY_HEADER]: "forged" } }), 401, `${method} ${path}`);
  }
  const index = await fetch(`${server.url}/`);
  assert.equal(index.status, 200, "the page holds no data: it is the same for everyone");
  assert.equal(index.headers.get("content-type"), "text/html; charset=utf-8");
  assert.equal(index.headers.get("content-security-policy"), CONTENT_SECURITY_POLICY);
  assert.equal(index.headers.get("cache-control"), "no-cache");
  const script = /src="(\/assets\/[^"]+\.js)"/.exec(await index.text())?.[1];
  assert.ok(script, "the index page loads a hashed script");
  const asset = await fetch(`${server.url}${script}`);
  assert.equal(asset.headers.get("content-type"), "text/javascript; charset=utf-8");
  assert.match(asset.headers.get("cache-control") ?? "", /immutable/);
  await asset.arrayBuffer();
});

test("a login code becomes a session once: an HttpOnly SameSite=Strict cookie named after the port, and a key the page sends in a header", async (t) => {
  const server = await start(t);
  const { code, url } = await loginCode(server);
  assert.notEqual(code, TOKEN);
  assert.equal(url, `${server.url}/#/login/${code}`, "the code travels in the fragment, which the browser never sends");
  const res = await fetch(`${server.url}/console/sessions`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ code }) });
  assert.equal(res.status, 201);
  const setCookie = res.headers.get("set-cookie") ?? "";
  assert.match(setCookie, new RegExp(`^${sessionCookieName(server.address.port)}=[A-Za-z0-9_-]{43}; Path=/; HttpOnly; SameSite=Strict; Max-Age=43200$`));
  const { key } = (await res.json()) as { key: string };
  assert.match(key, /^[A-Za-z0-9_-]{43}$/);
  assert.doesNotMatch(setCookie, new RegExp(key), "the cookie and the key are two secrets");
  const again = await fetch(`${server.url}/console/sessions`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ code }) });
  assert.equal(again.status, 401, "a login code works once");
  assert.equal(again.headers.get("set-cookie"), null);
  await again.arrayBuffer();
  assert.equal(await status(`${server.url}/console/sessions`, { method: "POST", body: "{" }), 401, "a malformed body opens nothing");
  assert.equal(await status(`${server.url}/console/sessions`, { method: "POST", body: "x".repeat(5000) }), 400);
});

test("a session's cookie alone, replayed as another port's server receives it, opens nothing; with its key it reads the API but never writes or reads Secrets", async (t) => {
  const server = await start(t);
  const { cookie, key } = await login(server);
  const pods = `${server.url}/api/v1/pods`;
  assert.equal(await status(pods, { headers: { Cookie: cookie, [SESSION_KEY_HEADER]: key } }), 200);
  assert.equal(await status(`${server.url}/console/explain/default/web`, { headers: { Cookie: cookie, [SESSION_KEY_HEADER]: key } }), 404, "explain is open to the session (no such pod)");
  assert.equal(await status(pods, { headers: { Cookie: cookie } }), 401, "a cookie alone (what any server on another port of 127.0.0.1 receives)");
  assert.equal(await status(pods, { headers: { [SESSION_KEY_HEADER]: key } }), 401, "a key alone");
  assert.equal(await status(pods, { headers: { Cookie: cookie, [SESSION_KEY_HEADER]: `${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}` } }), 401, "a wrong key");
  const other = await start(t);
  assert.equal(await status(`${other.url}/api/v1/pods`, { headers: { Cookie: cookie.replace(/_\d+=/, `_${other.address.port}=`), [SESSION_KEY_HEADER]: key } }), 401, "another agent knows nothing of it");
  const write = { method: "POST", headers: { Cookie: cookie, [SESSION_KEY_HEADER]: key, "Content-Type": "application/json" }, body: "{}" };
  assert.equal(await status(`${server.url}/api/v1/namespaces/default/pods`, write), 401, "a session never creates or deletes pods");
  for (const path of ["/api/v1/secrets", "/api/v1/namespaces/default/secrets", "/api/v1/namespaces/default/secrets/db", "/api/v1/namespaces/default/secrets?watch=true"]) {
    const res = await fetch(`${server.url}${path}`, { headers: { Cookie: cookie, [SESSION_KEY_HEADER]: key } });
    assert.equal(res.status, 403, path);
    assert.match(((await res.json()) as { message: string }).message, /a console session may not read Secrets/);
  }
  assert.equal(await status(`${server.url}/api/v1/namespaces/default/secrets`, { headers: OWNER }), 200, "the token still reads them");
});

test("logout ends the session and clears its cookie", async (t) => {
  const server = await start(t);
  const { cookie, key } = await login(server);
  const headers = { Cookie: cookie, [SESSION_KEY_HEADER]: key };
  const out = await fetch(`${server.url}/console/logout`, { method: "POST", headers });
  assert.equal(out.status, 200);
  assert.match(out.headers.get("set-cookie") ?? "", new RegExp(`^${sessionCookieName(server.address.port)}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0$`));
  await out.arrayBuffer();
  assert.equal(await status(`${server.url}/api/v1/pods`, { headers }), 401);
});

test("the owner lists sessions (no secret in the list) and revokes one, or all, with the token; a session cannot", async (t) => {
  const server = await start(t);
  const first = await login(server, "browser-one");
  const second = await login(server, "browser-two");
  const list = async (): Promise<SessionInfo[]> => ((await (await fetch(`${server.url}/console/sessions`, { headers: OWNER })).json()) as { items: SessionInfo[] }).items;
  const sessions = await list();
  assert.deepEqual(sessions.map((s) => s.userAgent), ["browser-one", "browser-two"]);
  for (const s of sessions) {
    assert.match(s.id, /^[0-9a-f]{16}$/);
    assert.equal(s.source, "127.0.0.1");
    assert.doesNotMatch(JSON.stringify(s), new RegExp(`${first.key}|${second.key}|${first.cookie.split("=")[1]}`));
  }
  const asSession = { Cookie: first.cookie, [SESSION_KEY_HEADER]: first.key };
  assert.equal(await status(`${server.url}/console/sessions`, { headers: asSession }), 401, "a session does not see the others");
  assert.equal(await status(`${server.url}/console/sessions/${sessions[1]!.id}`, { method: "DELETE", headers: asSession }), 401);
  assert.equal(await status(`${server.url}/console/sessions/${sessions[0]!.id}`, { method: "DELETE", headers: OWNER }), 200);
  assert.equal(await status(`${server.url}/api/v1/pods`, { headers: asSession }), 401, "the revoked session is over");
  assert.equal(await status(`${server.url}/api/v1/pods`, { headers: { Cookie: second.cookie, [SESSION_KEY_HEADER]: second.key } }), 200, "the other one goes on");
  assert.equal(await status(`${server.url}/console/sessions/${sessions[0]!.id}`, { method: "DELETE", headers: OWNER }), 404);
  const all = await fetch(`${server.url}/console/sessions`, { method: "DELETE", headers: OWNER });
  assert.deepEqual(await all.json(), { revoked: 1 });
  assert.deepEqual(await list(), []);
});

test("login codes expire after LOGIN_CODE_TTL_MS and sessions after SESSION_TTL_MS", async () => {
  const clock = new FakeClock();
  const sessions = new ConsoleSessions(clock);
  const client = { source: "127.0.0.1", userAgent: "" };
  const late = sessions.issueCode();
  await clock.advance(LOGIN_CODE_TTL_MS);
  assert.equal(sessions.exchange(late, client), undefined);
  const session = sessions.exchange(sessions.issueCode(), client);
  assert.ok(session);
  assert.equal(sessions.authenticate(session.cookie, session.key), true);
  assert.equal(sessions.authenticate(session.cookie, undefined), false);
  await clock.advance(SESSION_TTL_MS);
  assert.equal(sessions.authenticate(session.cookie, session.key), false);
  assert.deepEqual(sessions.list(), []);
  assert.equal(readCookie("x=1; y = 2", "y"), "2");
});
