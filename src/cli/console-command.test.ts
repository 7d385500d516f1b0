import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { captureContext } from "../../test/cli-harness.js";
import { FakeAgentApi } from "../../test/fakes/fake-agent-api.js";
import { ConsoleSessions, SESSION_KEY_HEADER } from "../console/console-sessions.js";
import { systemClock } from "../util/clock.js";
import { loadOrCreateAgentToken } from "../server/agent-token.js";
import { startStatusServer } from "../server/server.js";
import { agentSocketPath } from "./agent-url-file.js";
import { runConsoleCommand } from "./console-command.js";

/** agent serves one fake agent as `probelet run` does: on loopback TCP and on the state directory's socket. */
async function agent(t: TestContext): Promise<{ dir: string; url: string; token: string }> {
  const dir = await mkdtemp(join(tmpdir(), "probelet-console-cmd-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const token = await loadOrCreateAgentToken(dir);
  const api = new FakeAgentApi();
  const consoleSessions = new ConsoleSessions(systemClock);
  const server = await startStatusServer(api, { listen: "127.0.0.1:0", token, consoleSessions });
  t.after(() => server.close());
  const socket = await startStatusServer(api, { listen: `unix:${agentSocketPath(dir)}`, token, consoleUrl: server.url, consoleSessions });
  t.after(() => socket.close());
  return { dir, url: server.url, token };
}

/** run runs `probelet console ARGS` with the agent's state directory. */
async function run(dir: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  const { ctx, out, err } = captureContext();
  const code = await runConsoleCommand([...args, "--state-dir", dir], ctx);
  return { code, out: out(), err: err() };
}

/** loginAs does what the console page does with the URL's code: trades it for a session. */
async function loginAs(url: string, login: string, userAgent: string): Promise<{ cookie: string; key: string; status: number }> {
  const code = login.slice(login.indexOf("#/login/") + "#/login/".length);
  const res = await fetch(`${url}/console/sessions`, { method: "POST", headers: { "Content-Type": "application/json", "User-Agent": userAgent }, body: JSON.stringify({ code }) });
  const body = (await res.json().catch(() => ({}))) as { key?: string };
  return { cookie: (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "", key: body.key ?? "", status: res.status };
}

test("probelet console --no-open asks the agent on its socket for a login URL on its HTTP address, whose code logs a browser in once", async (t) => {
  const { dir, url, token } = await agent(t);
  const { code, out, err } = await run(dir, ["--no-open"]);
  assert.equal(code, 0, err);
  const login = /(http:\/\/\S+\/#\/login\/\S+)/.exec(out)?.[1];
  assert.ok(login !== undefined && login.startsWith(`${url}/#/login/`), out);
  assert.ok(!login.includes(token));
  const session = await loginAs(url, login, "browser");
  assert.equal(session.status, 201);
  assert.equal((await fetch(`${url}/api/v1/pods`, { headers: { Cookie: session.cookie, [SESSION_KEY_HEADER]: session.key } })).status, 200);
  assert.equal((await loginAs(url, login, "browser")).status, 401, "the code works once");
});

test("probelet console sessions lists the sessions and revoke ends one, or all", async (t) => {
  const { dir, url } = await agent(t);
  const none = await run(dir, ["sessions"]);
  assert.equal(none.code, 0);
  assert.equal(none.err, "No console sessions.\n");
  const logins: { cookie: string; key: string }[] = [];
  for (const browser of ["firefox-one", "chromium-two"]) {
    const login = /(http:\/\/\S+)/.exec((await run(dir, ["--no-open"])).out)?.[1] ?? "";
    logins.push(await loginAs(url, login, browser));
  }
  const listed = await run(dir, ["sessions"]);
  assert.equal(listed.code, 0, listed.err);
  const lines = listed.out.trimEnd().split("\n");
  assert.match(lines[0] ?? "", /^ID\s+CREATED\s+LAST USED\s+EXPIRES\s+FROM\s+BROWSER$/);
  assert.match(lines[1] ?? "", /^[0-9a-f]{16}\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\s+\S+\s+\S+\s+127\.0\.0\.1\s+firefox-one$/);
  assert.match(lines[2] ?? "", /chromium-two$/);
  const id = (lines[1] ?? "").split(/\s+/)[0] ?? "";
  const revoked = await run(dir, ["revoke", id, "0123456789abcdef"]);
  assert.equal(revoked.code, 1);
  assert.equal(revoked.out, `console session "${id}" revoked\n`);
  assert.equal(revoked.err, 'Error from server (NotFound): console session "0123456789abcdef" not found\n');
  const read = (s: { cookie: string; key: string }) => fetch(`${url}/api/v1/pods`, { headers: { Cookie: s.cookie, [SESSION_KEY_HEADER]: s.key } }).then((r) => r.status);
  assert.equal(await read(logins[0]!), 401);
  assert.equal(await read(logins[1]!), 200);
  assert.deepEqual(await run(dir, ["revoke", "--all"]), { code: 0, out: "1 console session(s) revoked\n", err: "" });
  assert.equal(await read(logins[1]!), 401);
});

test("probelet console fails with kubectl's text when the token is wrong, refuses --token, and checks its arguments", async (t) => {
  const { dir } = await agent(t);
  const wrong = join(dir, "wrong-token");
  await writeFile(wrong, "not-the-token\n", { mode: 0o600 });
  const refused = await run(dir, ["--no-open", "--token-file", wrong]);
  assert.equal(refused.code, 1);
  assert.equal(refused.err, "error: You must be logged in to the server (Unauthorized)\n");
  await assert.rejects(runConsoleCommand(["--token", "x"], captureContext().ctx), /--token would show the token/);
  await assert.rejects(runConsoleCommand(["revoke"], captureContext().ctx), /revoke takes session IDs/);
  await assert.rejects(runConsoleCommand(["sessions", "x"], captureContext().ctx), /console sessions takes no arguments/);
  await assert.rejects(runConsoleCommand(["open"], captureContext().ctx), /unknown console action "open"/);
  assert.equal(await readFile(join(dir, "console-login.html"), "utf8").catch(() => "none"), "none", "--no-open writes no launcher page");
});
