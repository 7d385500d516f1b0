// `probelet run --kubeconfig`: bad input is reported before anything starts; the Node it registers.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { runCli } from "../../test/cli-harness.js";
import { freePort } from "../../test/cluster/node-agent.js";
import { FakeApiServer, statusBody } from "../../test/cluster/fake-apiserver.js";
import { KUBELET_VERSION } from "../probe/user-agent.js";

test("run --kubeconfig refuses a kubeconfig that does not parse, a missing one, a bad node name and node flags without it, naming the problem with exit code 2 and no stack trace", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "probelet-run-cluster-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const broken = join(dir, "broken.kubeconfig");
  await writeFile(broken, "clusters: [\n");
  const good = join(dir, "good.kubeconfig");
  await writeFile(good, "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n");
  const state = ["--state-dir", join(dir, "state"), "--listen", "127.0.0.1:0"];
  const cases: [string[], RegExp][] = [
    [["--kubeconfig", broken], /error: .*broken\.kubeconfig: not a kubeconfig: /],
    [["--kubeconfig", join(dir, "missing")], /error: cannot read kubeconfig .*missing: /],
    [["--kubeconfig", good, "--node-name", "Bad_Name"], /error: --node-name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/],
    [["--kubeconfig", good, "--kubelet-port", "70000"], /error: --kubelet-port: Invalid value: "70000": must be between 1 and 65535, inclusive/],
    [["--kubeconfig", good, "--node-ip", "nope"], /error: --node-ip: Invalid value: "nope": must be an IP address/],
    [["-f", "-", "--node-name", "n1"], /error: --node-name needs --kubeconfig/],
    [["-f", "-", "--bootstrap-kubeconfig", good], /error: --bootstrap-kubeconfig needs --kubeconfig/],
    [["--kubeconfig", good, "--rotate-server-certificates"], /error: --rotate-server-certificates needs --client-ca-file/],
    [["--kubeconfig", good, "--rotate-server-certificates", "--client-ca-file", good, "--tls-cert-file", good, "--tls-private-key-file", good], /error: --rotate-server-certificates and --tls-cert-file exclude each other/],
  ];
  for (const [args, expected] of cases) {
    const run = await runCli(["run", ...args, ...state], { input: "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: busybox, command: [sleep, '1']}]}\n" });
    assert.equal(run.code, 2, args.join(" "));
    assert.match(run.stderr, expected, run.stderr);
    assert.doesNotMatch(run.stderr, /\n\s+at /, "no stack trace");
  }
});

test("run --kubeconfig registers its Node with nodeInfo.kubeletVersion v1.37.2+probelet (KUBELET_VERSION), not v0.1.0-probelet", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "probelet-run-cluster-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  // Only the Node's registration is answered; what the agent does after it does not matter here.
  const server = await FakeApiServer.start((r) => (r.method === "POST" && r.path.startsWith("/api/v1/nodes") ? { code: 201, body: r.body } : { code: 403, body: statusBody(403, "Forbidden", "forbidden") }));
  t.after(() => server.close());
  const kubeconfig = join(dir, "kubeconfig");
  const ca = Buffer.from(server.credentials.ca ?? "").toString("base64");
  await writeFile(kubeconfig, `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: '${server.credentials.server}', certificate-authority-data: ${ca}}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`);
  const args = ["run", "--kubeconfig", kubeconfig, "--node-name", "n1", "--node-ip", "127.0.0.1", "--kubelet-port", String(await freePort()), "--state-dir", join(dir, "state"), "--listen", "127.0.0.1:0"];
  const child = spawn(process.execPath, [fileURLToPath(new URL("./main.js", import.meta.url)), ...args], { stdio: ["ignore", "ignore", "ignore"] });
  const closed = new Promise((resolve) => child.once("close", resolve));
  t.after(async () => {
    child.kill("SIGKILL");
    await closed;
  });
  const [register] = await server.waitForRequests(1, (r) => r.method === "POST" && r.path.startsWith("/api/v1/nodes"));
  const node = register!.body as { status: { nodeInfo: { kubeletVersion: string } } };
  assert.equal(node.status.nodeInfo.kubeletVersion, KUBELET_VERSION);
  assert.equal(KUBELET_VERSION, "v1.37.2+probelet");
});

test("run --bootstrap-kubeconfig that cannot be read ends with the kubelet's error, exit code 1, before anything starts", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "probelet-run-bootstrap-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const run = await runCli(["run", "--kubeconfig", join(dir, "kubelet.conf"), "--bootstrap-kubeconfig", join(dir, "missing.conf"), "--state-dir", join(dir, "state"), "--listen", "127.0.0.1:0"], {});
  assert.equal(run.code, 1);
  assert.match(run.stderr, /^error: unable to load bootstrap kubeconfig: cannot read kubeconfig .*missing\.conf: /);
  assert.doesNotMatch(run.stderr, /\n\s+at /, "no stack trace");
});
