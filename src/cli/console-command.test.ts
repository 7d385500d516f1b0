import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { captureContext } from "../../test/cli-harness.js";
import { FakeAgentApi } from "../../test/fakes/fake-agent-api.js";
import { loadOrCreateAgentToken } from "../server/agent-token.js";
import { startStatusServer } from "../server/server.js";
import { writeAgentUrl } from "./agent-url-file.js";
import { runConsoleCommand } from "./console-command.js";

async function agent(t: TestContext): Promise<{ dir: string; url: string; token: string }> {
  const dir = await mkdtemp(join(tmpdir(), "probelet-console-cmd-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const token = await loadOrCreateAgentToken(dir);
  const server = await startStatusServer(new FakeAgentApi(), { listen: "127.0.0.1:0", token });
  t.after(() => server.close());
  await writeAgentUrl(dir, server.url);
  return { dir, url: server.url, token };
}

test("probelet console --no-open prints a login URL for the state directory's agent whose code opens the console once", async (t) => {
  const { dir, url, token } = await agent(t);
  const { ctx, out, err } = captureContext();
  assert.equal(await runConsoleCommand(["--no-open", "--state-dir", dir], ctx), 0, err());
  const login = /(http:\/\/\S+\/console\/login\?code=\S+)/.exec(out())?.[1];
  assert.ok(login !== undefined && login.startsWith(`${url}/console/login?code=`), out());
  assert.ok(!login.includes(token));
  const res = await fetch(login);
  assert.equal(res.status, 200);
  assert.match(res.headers.get("set-cookie") ?? "", /^probelet_session=/);
  await res.arrayBuffer();
  assert.equal((await fetch(login)).status, 401);
});

test("probelet console fails with a clear message when the token is wrong, and refuses --token", async (t) => {
  const { dir } = await agent(t);
  const wrong = join(dir, "wrong-token");
  await writeFile(wrong, "not-the-token\n", { mode: 0o600 });
  const { ctx, err } = captureContext();
  assert.equal(await runConsoleCommand(["--no-open", "--state-dir", dir, "--token-file", wrong], ctx), 1);
  assert.match(err(), /refused a console login \(401\)/);
  await assert.rejects(runConsoleCommand(["--token", "x"], captureContext().ctx), /--token would show the token/);
  assert.equal(await readFile(join(dir, "console-login.html"), "utf8").catch(() => "none"), "none", "--no-open writes no launcher page");
});
