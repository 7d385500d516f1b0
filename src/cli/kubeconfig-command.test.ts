import assert from "node:assert/strict";
import { lstat, mkdtemp, mkdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { parse } from "yaml";
import { captureContext } from "../../test/cli-harness.js";
import { UsageError } from "./args.js";
import { FakeAgentApi } from "../../test/fakes/fake-agent-api.js";
import { startStatusServer } from "../server/server.js";
import { agentSocketPath, readAgentUrl, removeAgentUrl, writeAgentUrl } from "./agent-url-file.js";
import { runKubeconfigCommand } from "./kubeconfig-command.js";

type Kubeconfig = {
  kind: string;
  "current-context": string;
  clusters: { name: string; cluster: { server: string; "certificate-authority-data"?: string } }[];
  users: { name: string; user: { tokenFile: string; "token-file": string; token?: string } }[];
  contexts: { name: string; context: { cluster: string; user: string; namespace: string } }[];
};

const PEM = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

async function stateDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "probelet-kubeconfig-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, "agent-token"), "secret-token-value\n", { mode: 0o600 });
  await mkdir(join(dir, "pki"));
  await writeFile(join(dir, "pki", "probelet.crt"), PEM);
  return dir;
}

/** running makes dir look like a running agent's: it answers on its socket and recorded its URLs. */
async function running(t: TestContext, dir: string, http: string, https?: string): Promise<void> {
  const socket = await startStatusServer(new FakeAgentApi(), { listen: `unix:${agentSocketPath(dir)}`, token: "secret-token-value" });
  t.after(() => socket.close());
  await writeAgentUrl(dir, http, https);
}

test("kubeconfig for the running agent names its recorded HTTPS URL, pins the state directory's certificate, names the token file (for kubectl and for client-node) and no token", async (t) => {
  const dir = await stateDir(t);
  await running(t, dir, "http://127.0.0.1:41234", "https://127.0.0.1:41235");
  const { ctx, out, err } = captureContext();
  assert.equal(await runKubeconfigCommand(["--state-dir", dir], ctx), 0, err());
  const config = parse(out()) as Kubeconfig;
  assert.equal(config.kind, "Config");
  assert.equal(config["current-context"], "probelet");
  assert.deepEqual(config.clusters, [{ name: "probelet", cluster: { server: "https://127.0.0.1:41235", "certificate-authority-data": Buffer.from(PEM).toString("base64") } }]);
  assert.deepEqual(config.users, [{ name: "probelet", user: { tokenFile: join(dir, "agent-token"), "token-file": join(dir, "agent-token") } }]);
  assert.deepEqual(config.contexts, [{ name: "probelet", context: { cluster: "probelet", user: "probelet", namespace: "default" } }]);
  assert.doesNotMatch(out(), /secret-token-value/);
});

test("kubeconfig --server for an https agent carries the state directory's certificate as certificate-authority-data", async (t) => {
  const dir = await stateDir(t);
  const { ctx, out } = captureContext();
  assert.equal(await runKubeconfigCommand(["--state-dir", dir, "--server", "https://0.0.0.0:10443", "-n", "prod"], ctx), 0);
  const config = parse(out()) as Kubeconfig;
  const cluster = config.clusters[0]?.cluster;
  assert.equal(cluster?.server, "https://127.0.0.1:10443", "a listen-everywhere address becomes loopback");
  assert.equal(Buffer.from(cluster?.["certificate-authority-data"] ?? "", "base64").toString(), PEM);
  assert.equal(config.contexts[0]?.context.namespace, "prod");
});

test("kubeconfig -o FILE writes the file with mode 0600, also over a wider existing file", async (t) => {
  const dir = await stateDir(t);
  await running(t, dir, "http://127.0.0.1:41234", "https://127.0.0.1:41235");
  const file = join(dir, "kubeconfig");
  await writeFile(file, "old", { mode: 0o644 });
  const { ctx, out } = captureContext();
  assert.equal(await runKubeconfigCommand(["--state-dir", dir, "-o", file], ctx), 0);
  assert.equal(out(), "");
  assert.equal((await stat(file)).mode & 0o777, 0o600);
  assert.equal((parse(await readFile(file, "utf8")) as Kubeconfig).clusters[0]?.cluster.server, "https://127.0.0.1:41235");
});

test("kubeconfig refuses plain HTTP (kubectl would send no token), a URL left by a dead agent, an unreadable token or a bad URL, with a clear error", async (t) => {
  const dir = await stateDir(t);
  await writeAgentUrl(dir, "http://127.0.0.1:41234", "https://127.0.0.1:41235");
  const dead = captureContext();
  assert.equal(await runKubeconfigCommand(["--state-dir", dir], dead.ctx), 1, "the recorded URL of an agent that does not answer on its socket is not handed out");
  assert.equal(dead.err(), `error: cannot reach the probelet agent at unix:${agentSocketPath(dir)}: is "probelet run" running with this state directory? (or pass --server URL)\n`);
  await assert.rejects(runKubeconfigCommand(["--state-dir", dir, "--server", "http://127.0.0.1:41234"], captureContext().ctx), new UsageError("http://127.0.0.1:41234 is plain HTTP, and kubectl sends no token over plain HTTP: give the agent's https:// URL (an agent that could not make its certificate, without openssl, has none)"));
  const plainOnly = await stateDir(t);
  await running(t, plainOnly, "http://127.0.0.1:41234");
  await assert.rejects(runKubeconfigCommand(["--state-dir", plainOnly], captureContext().ctx), /is plain HTTP, and kubectl sends no token over plain HTTP/);
  await assert.rejects(runKubeconfigCommand(["--state-dir", dir, "--server", "ftp://x"], captureContext().ctx), UsageError);
  await assert.rejects(runKubeconfigCommand(["--state-dir", dir, "--token", "t"], captureContext().ctx), /--token would show the token/);
  await assert.rejects(runKubeconfigCommand(["--state-dir", dir, "--server", "https://127.0.0.1:1", "--token-file", join(dir, "missing")], captureContext().ctx), /cannot read the agent's token .*missing/);
});

test("the agent URL file is written, read back and removed; a corrupt one is refused", async (t) => {
  const dir = await stateDir(t);
  assert.equal(await readAgentUrl(dir), undefined);
  await writeAgentUrl(dir, "https://[::1]:10255");
  assert.equal(await readAgentUrl(dir), "https://[::1]:10255");
  assert.equal((await stat(join(dir, "agent-url"))).mode & 0o777, 0o600);
  await writeAgentUrl(dir, "http://127.0.0.1:10255", "https://127.0.0.1:41000");
  assert.equal(await readAgentUrl(dir), "http://127.0.0.1:10255", "the status API comes first");
  assert.equal(await readAgentUrl(dir, { preferHttps: true }), "https://127.0.0.1:41000", "kubectl gets the HTTPS one");
  await removeAgentUrl(dir);
  assert.equal(await readAgentUrl(dir), undefined);
  await writeFile(join(dir, "agent-url"), "not a url");
  await assert.rejects(readAgentUrl(dir), /does not hold an agent URL/);
  // A symbolic link planted at the name is replaced, never followed (nor read through).
  const victim = join(dir, "victim");
  await writeFile(victim, "https://127.0.0.1:1\n", { mode: 0o644 });
  await rm(join(dir, "agent-url"));
  await symlink(victim, join(dir, "agent-url"));
  await assert.rejects(readAgentUrl(dir), /agent-url is a symbolic link: refusing to follow it/);
  await writeAgentUrl(dir, "http://127.0.0.1:10255");
  assert.equal(await readFile(victim, "utf8"), "https://127.0.0.1:1\n");
  assert.equal((await stat(victim)).mode & 0o777, 0o644);
  assert.equal((await lstat(join(dir, "agent-url"))).isFile(), true);
});
