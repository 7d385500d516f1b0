import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { FakeAgentApi } from "../../test/fakes/fake-agent-api.js";
import { loadOrCreateAgentToken } from "../server/agent-token.js";
import { loadOrCreateServingCert } from "../server/serving-cert.js";
import { startStatusServer, type StatusServerOptions } from "../server/server.js";
import { credentialLoader } from "./client-credentials.js";
import { clientFromFlags, ServerStatusError } from "./client.js";

const never = new AbortController().signal;
const hasOpenssl = spawnSync("openssl", ["version"]).status === 0;

async function stateDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "probelet-cred-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function serve(t: TestContext, options: Omit<StatusServerOptions, "listen"> & { listen?: string }) {
  const api = new FakeAgentApi();
  api.addPod({ metadata: { name: "web" }, spec: { containers: [] } });
  const server = await startStatusServer(api, { listen: "127.0.0.1:0", ...options });
  t.after(() => server.close());
  return server;
}

test("the agent token is created once, 0600, alone in its file (no newline), and read back by later starts", async (t) => {
  const dir = await stateDir(t);
  const token = await loadOrCreateAgentToken(dir);
  assert.match(token, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(await readFile(join(dir, "agent-token"), "utf8"), token, "client-node sends the file's bytes as they are");
  assert.equal((await stat(join(dir, "agent-token"))).mode & 0o777, 0o600);
  assert.equal(await loadOrCreateAgentToken(dir), token);
});

test("a token file others could read is narrowed to 0600 and an older agent's newline dropped before it is used", async (t) => {
  const dir = await stateDir(t);
  await writeFile(join(dir, "agent-token"), "kept-token\n", { mode: 0o644 });
  assert.equal(await loadOrCreateAgentToken(dir), "kept-token");
  assert.equal((await stat(join(dir, "agent-token"))).mode & 0o777, 0o600);
  assert.equal(await readFile(join(dir, "agent-token"), "utf8"), "kept-token");
});

test("the owner's CLI finds the local agent's token in its state directory; a remote server never gets it", async (t) => {
  const dir = await stateDir(t);
  const token = await loadOrCreateAgentToken(dir);
  const server = await serve(t, { token });
  const env = { PROBELET_STATE_DIR: dir };
  assert.deepEqual((await clientFromFlags({ server: server.url }, never, env).listPods("default")).map((p) => p.metadata.name), ["web"]);
  assert.deepEqual(await credentialLoader({}, new URL("https://192.0.2.1:10250"), env)(), {});
  const other = await stateDir(t);
  await assert.rejects(clientFromFlags({ server: server.url, "state-dir": other }, never, {}).listPods("default"), (e: unknown) => e instanceof ServerStatusError && e.status.code === 401);
});

test("--token-file, then $PROBELET_TOKEN, then $PROBELET_TOKEN_FILE choose the token", async (t) => {
  const dir = await stateDir(t);
  await writeFile(join(dir, "file-token"), "from-file\n");
  const url = new URL("http://127.0.0.1:1");
  const empty = { PROBELET_STATE_DIR: dir };
  assert.deepEqual(await credentialLoader({ "token-file": join(dir, "file-token") }, url, { ...empty, PROBELET_TOKEN: "from-env" })(), { token: "from-file" });
  assert.deepEqual(await credentialLoader({}, url, { ...empty, PROBELET_TOKEN: "from-env" })(), { token: "from-env" });
  assert.deepEqual(await credentialLoader({}, url, { ...empty, PROBELET_TOKEN_FILE: join(dir, "file-token") })(), { token: "from-file" });
  await assert.rejects(credentialLoader({ "token-file": join(dir, "missing") }, url, empty)(), /ENOENT/);
});

test("a token file that is empty or too large is refused with its name", async (t) => {
  const dir = await stateDir(t);
  const url = new URL("http://127.0.0.1:1");
  await writeFile(join(dir, "empty"), "\n");
  await writeFile(join(dir, "huge"), "x".repeat(5000));
  await assert.rejects(credentialLoader({ "token-file": join(dir, "empty") }, url, {})(), new Error(`the token file ${join(dir, "empty")} must hold one token: no spaces, not empty`));
  await assert.rejects(credentialLoader({ "token-file": join(dir, "huge") }, url, {})(), new Error(`${join(dir, "huge")} is larger than 4096 bytes`));
});

test("over HTTPS the CLI trusts the state directory's serving certificate and refuses an unknown one", { skip: hasOpenssl ? false : "openssl is not installed (.ci/run installs it)" }, async (t) => {
  const dir = await stateDir(t);
  const token = await loadOrCreateAgentToken(dir);
  const cert = await loadOrCreateServingCert(dir);
  assert.equal((await stat(join(dir, "pki", "probelet.key"))).mode & 0o077, 0, "the key is owner-only");
  assert.match(cert.fingerprint256, /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
  assert.equal((await loadOrCreateServingCert(dir)).fingerprint256, cert.fingerprint256, "a later start reuses the certificate");
  const server = await serve(t, { token, tls: { cert: cert.cert, key: cert.key } });
  assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  const pods = await clientFromFlags({ server: server.url, "state-dir": dir }, never, {}).listPods("default");
  assert.deepEqual(pods.map((p) => p.metadata.name), ["web"]);
  const stranger = await stateDir(t);
  await assert.rejects(clientFromFlags({ server: server.url, "state-dir": stranger }, never, { PROBELET_TOKEN: token }).listPods("default"), /cannot reach the probelet agent at https:\/\/127\.0\.0\.1:\d+: self-signed certificate/);
  await writeFile(join(stranger, "ca.crt"), cert.cert);
  const withCa = await clientFromFlags({ server: server.url, "certificate-authority": join(stranger, "ca.crt") }, never, { PROBELET_TOKEN: token }).listPods("default");
  assert.equal(withCa.length, 1);
});
