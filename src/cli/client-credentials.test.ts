import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { FakeAgentApi } from "../../test/fakes/fake-agent-api.js";
import { loadOrCreateAgentToken, readServingToken } from "../server/agent-token.js";
import { loadOrCreateServingCert } from "../server/serving-cert.js";
import { startStatusServer, type StatusServerOptions } from "../server/server.js";
import { agentSocketPath } from "./agent-url-file.js";
import { agentTarget } from "./client-credentials.js";
import { AgentUnreachableError, clientFromFlags, ServerStatusError } from "./agent-client.js";

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

/** listener is a plain HTTP server that answers 401 to everything and keeps what it was sent. */
async function listener(t: TestContext): Promise<{ url: string; seen: IncomingHttpHeaders[] }> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(401, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ kind: "Status", status: "Failure", reason: "Unauthorized", message: "Unauthorized", code: 401 }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

test("the agent token is created once, 0600, alone in its file (no newline), and read back by later starts", async (t) => {
  const dir = await stateDir(t);
  const token = await loadOrCreateAgentToken(dir);
  assert.match(token, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(await readFile(join(dir, "agent-token"), "utf8"), token, "client-node sends the file's bytes as they are");
  assert.equal((await stat(join(dir, "agent-token"))).mode & 0o777, 0o600);
  assert.equal(await loadOrCreateAgentToken(dir), token);
});

test("a state directory's token file others could read is narrowed to 0600 and an older agent's newline dropped before it is used", async (t) => {
  const dir = await stateDir(t);
  await writeFile(join(dir, "agent-token"), "kept-token\n", { mode: 0o644 });
  assert.equal(await loadOrCreateAgentToken(dir), "kept-token");
  assert.equal((await stat(join(dir, "agent-token"))).mode & 0o777, 0o600);
  assert.equal(await readFile(join(dir, "agent-token"), "utf8"), "kept-token");
});

test("without --server the owner's CLI reaches the agent on its state directory's socket, with the directory's token", async (t) => {
  const dir = await stateDir(t);
  const token = await loadOrCreateAgentToken(dir);
  await serve(t, { token, listen: `unix:${agentSocketPath(dir)}` });
  assert.equal((await stat(agentSocketPath(dir))).mode & 0o777, 0o600, "the socket is owner-only from its first instant");
  const pods = await clientFromFlags({}, never, { PROBELET_STATE_DIR: dir }).listPods("default");
  assert.deepEqual(pods.map((p) => p.metadata.name), ["web"]);
});

test("a state directory whose agent is gone (a socket left by kill -9, or none) is an error naming it; no TCP port is tried", async (t) => {
  const dir = await stateDir(t);
  await loadOrCreateAgentToken(dir);
  const gone = clientFromFlags({ "state-dir": dir }, never, {});
  await assert.rejects(gone.listPods("default"), (err: unknown) => {
    assert.ok(err instanceof AgentUnreachableError);
    assert.equal(err.message, `cannot reach the probelet agent at unix:${agentSocketPath(dir)}: is "probelet run" running with this state directory? (or pass --server URL)`);
    return true;
  });
  const server = await serve(t, { listen: `unix:${agentSocketPath(dir)}` });
  await server.close();
  await writeFile(agentSocketPath(dir), "");
  await assert.rejects(clientFromFlags({ "state-dir": dir }, never, {}).listPods("default"), AgentUnreachableError);
  const missing = join(dir, "never-made");
  await assert.rejects(clientFromFlags({ "state-dir": missing }, never, {}).listPods("default"), {
    name: "NoAgentError",
    message: `no probelet agent has run with the state directory ${missing} (it does not exist): start "probelet run" (with --state-dir ${missing}), or pass --server URL`,
  });
});

test("an explicit http:// server never gets the state directory's token, and its 401 says how to give one", async (t) => {
  const dir = await stateDir(t);
  await loadOrCreateAgentToken(dir);
  const squatter = await listener(t);
  await assert.rejects(clientFromFlags({ server: squatter.url, "state-dir": dir }, never, {}).listPods("default"), (err: unknown) => {
    assert.ok(err instanceof ServerStatusError);
    assert.equal(err.message, `error: You must be logged in to the server (Unauthorized)\n(no token was sent to ${squatter.url}: the state directory's token goes only to its agent's socket, or to an https:// server holding the state directory's certificate; give one with --token-file FILE or $PROBELET_TOKEN_FILE)`);
    return true;
  });
  assert.equal(squatter.seen.length, 1);
  assert.equal(squatter.seen[0]?.authorization, undefined);
  assert.deepEqual(await agentTarget({}, new URL("https://192.0.2.1:10250"), { PROBELET_STATE_DIR: join(dir, "none") }).credentials(), {});
});

test("--token-file, then $PROBELET_TOKEN, then $PROBELET_TOKEN_FILE choose the token", async (t) => {
  const dir = await stateDir(t);
  await writeFile(join(dir, "file-token"), "from-file\n", { mode: 0o600 });
  const url = new URL("http://127.0.0.1:1");
  const empty = { PROBELET_STATE_DIR: dir };
  const credentials = (flags: { "token-file"?: string }, env: NodeJS.ProcessEnv) => agentTarget(flags, url, env).credentials();
  assert.deepEqual(await credentials({ "token-file": join(dir, "file-token") }, { ...empty, PROBELET_TOKEN: "from-env" }), { token: "from-file" });
  assert.deepEqual(await credentials({}, { ...empty, PROBELET_TOKEN: "from-env" }), { token: "from-env" });
  assert.deepEqual(await credentials({}, { ...empty, PROBELET_TOKEN_FILE: join(dir, "file-token") }), { token: "from-file" });
  await assert.rejects(credentials({ "token-file": join(dir, "missing") }, empty), /ENOENT/);
});

test("a token file that is empty, too large, or readable by group or others is refused with its name; the agent wants 32 characters or more", async (t) => {
  const dir = await stateDir(t);
  const url = new URL("http://127.0.0.1:1");
  const read = (file: string) => agentTarget({ "token-file": join(dir, file) }, url, {}).credentials();
  await writeFile(join(dir, "empty"), "\n", { mode: 0o600 });
  await writeFile(join(dir, "huge"), "x".repeat(5000), { mode: 0o600 });
  await writeFile(join(dir, "shared"), "a-token-others-can-read\n", { mode: 0o600 });
  await chmod(join(dir, "shared"), 0o644);
  await writeFile(join(dir, "short"), "s3cret\n", { mode: 0o600 });
  await assert.rejects(read("empty"), new Error(`the token file ${join(dir, "empty")} must hold one token: no spaces, not empty`));
  await assert.rejects(read("huge"), new Error(`${join(dir, "huge")} is larger than 4096 bytes`));
  await assert.rejects(read("shared"), new Error(`the token file ${join(dir, "shared")} may be read by group or others (mode 0644), so its token is no secret: chmod 600 ${join(dir, "shared")} (and make a new token if others could have read it)`));
  await assert.rejects(readServingToken(join(dir, "short")), /the token in .*short has 6 characters: the agent needs at least 32, so that no one can guess it/);
  assert.equal(await readServingToken(join(dir, "huge")).catch((e: Error) => e.message), `${join(dir, "huge")} is larger than 4096 bytes`);
});

test("over HTTPS the CLI pins the state directory's serving certificate, and sends that directory's token only there", { skip: hasOpenssl ? false : "openssl is not installed (.ci/run installs it)" }, async (t) => {
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
  await assert.rejects(clientFromFlags({ server: server.url, "certificate-authority": join(stranger, "ca.crt"), "state-dir": dir }, never, {}).listPods("default"), (e: unknown) => e instanceof ServerStatusError && e.status.code === 401, "a CA someone gave does not earn the state directory's token");
});

test("a state directory writable by others is refused by the client too, naming the path", async (t) => {
  const dir = await stateDir(t);
  const shared = join(dir, "shared");
  await mkdir(shared);
  await chmod(shared, 0o777);
  await assert.rejects(clientFromFlags({ "state-dir": shared }, never, {}).listPods("default"), {
    name: "StateDirectoryError",
    message: `refusing the state directory ${shared}: it is writable by group or others (mode 0777), so anyone could have planted files in it; check what it holds, then chmod 700 ${shared}; or give --state-dir a new directory`,
  });
});

test("a state directory whose path is too long for a socket address still serves and reaches its agent (through the directory's descriptor)", async (t) => {
  const dir = join(await stateDir(t), "a-state-directory-with-a-long-name".repeat(3));
  await mkdir(dir, { mode: 0o700 });
  assert.ok(Buffer.byteLength(agentSocketPath(dir)) > 107);
  const token = await loadOrCreateAgentToken(dir);
  await serve(t, { token, listen: `unix:${agentSocketPath(dir)}` });
  assert.equal((await stat(agentSocketPath(dir))).isSocket(), true, "bound at its own path, not a truncated one");
  const pods = await clientFromFlags({ "state-dir": dir }, never, {}).listPods("default");
  assert.deepEqual(pods.map((p) => p.metadata.name), ["web"]);
});
