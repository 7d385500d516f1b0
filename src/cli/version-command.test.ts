// `probelet version`: the CLI's and the agent's versions, both from KUBE_VERSION and package.json.
import assert from "node:assert/strict";
import { test } from "node:test";
import { captureContext, serveAgentApi } from "../../test/cli-harness.js";
import { FakeAgentApi } from "../../test/fakes/fake-agent-api.js";
import { GIT_VERSION } from "../apiserver/discovery/version-info.js";
import { probeletVersion } from "../util/package-version.js";
import { runVersionCommand } from "./version-command.js";

const expected = `${GIT_VERSION} (probelet ${probeletVersion()})`;

test("version prints the client's and the agent's version; --client needs no agent; -o json has both version.Infos", async (t) => {
  assert.match(probeletVersion(), /^\d+\.\d+\.\d+/);
  const server = await serveAgentApi(t, new FakeAgentApi());
  const both = captureContext();
  assert.equal(await runVersionCommand(["--server", server.url], both.ctx), 0, both.err());
  assert.equal(both.out(), `Client Version: ${expected}\nServer Version: ${expected}\n`);
  const client = captureContext();
  assert.equal(await runVersionCommand(["--client", "--server", "http://127.0.0.1:1"], client.ctx), 0);
  assert.equal(client.out(), `Client Version: ${expected}\n`);
  const json = captureContext();
  assert.equal(await runVersionCommand(["-o", "json", "--server", server.url], json.ctx), 0);
  const parsed = JSON.parse(json.out()) as Record<string, { gitVersion: string; probeletVersion: string }>;
  assert.deepEqual([parsed["clientVersion"]?.gitVersion, parsed["serverVersion"]?.gitVersion, parsed["serverVersion"]?.probeletVersion], [GIT_VERSION, GIT_VERSION, probeletVersion()]);
});

test("version without a reachable agent prints the client's version, then the error (exit 1)", async () => {
  const { ctx, out, err } = captureContext();
  assert.equal(await runVersionCommand(["--server", "http://127.0.0.1:1"], ctx), 1);
  assert.equal(out(), `Client Version: ${expected}\n`);
  assert.equal(err(), 'error: cannot reach the probelet agent at http://127.0.0.1:1: is "probelet run" running?\n');
});
