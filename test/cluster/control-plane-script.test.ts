// scripts/control-plane.sh against the real binaries it builds: the shared control plane
// (started by .ci/run or by hand) answers kubectl as admin and as a node with the Node
// authorizer's limits, and start/stop of a private instance leaves no process or file behind.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { chmod, copyFile, mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { kubectl, notBuilt, readControlPlaneEnv } from "./control-plane-env.js";
import { runControlPlaneScript } from "./control-plane-script.js";

const shared = readControlPlaneEnv();
const sharedSkip = shared.skip;
const notRoot = process.getuid?.() === 0 ? false : "the control plane script tests need root (run them as root)";

/** processAlive: the PID exists and is not a zombie. */
function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** recordedPids reads the PID files start wrote in a run directory. */
function recordedPids(dir: string): number[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".pid"))
    .map((name) => Number(readFileSync(join(dir, name), "utf8").trim()));
}

test("the API server and kubectl are v1.37.2, and kubectl with the admin kubeconfig lists the default namespace", { skip: sharedSkip }, async () => {
  const env = shared.env!;
  const version = await kubectl(env.adminKubeconfig, ["version", "-o", "json"]);
  assert.equal(version.code, 0, version.stderr);
  const versions = JSON.parse(version.stdout) as { clientVersion: { gitVersion: string }; serverVersion: { gitVersion: string } };
  assert.equal(versions.clientVersion.gitVersion, "v1.37.2");
  assert.equal(versions.serverVersion.gitVersion, "v1.37.2");
  const got = await kubectl(env.adminKubeconfig, ["get", "namespaces", "-o", "name"]);
  assert.equal(got.code, 0, got.stderr);
  assert.match(got.stdout, /^namespace\/default$/m);
});

test("a node kubeconfig may read its own Node but is forbidden (403) to list all nodes or secrets", { skip: sharedSkip }, async () => {
  const env = shared.env!;
  assert.ok(env.nodeKubeconfigs.size > 0, "start exported no node kubeconfig");
  const [node, kubeconfig] = [...env.nodeKubeconfigs][0]!;
  // Authorized (the Node authorizer lets a node read its own Node), so the answer is the Node or,
  // while no agent has registered it, NotFound; never Forbidden. The cluster node tests share this
  // control plane and register the same names, so either answer can come.
  const own = await kubectl(kubeconfig, ["get", "node", node, "-o", "name"]);
  if (own.code === 0) assert.equal(own.stdout.trim(), `node/${node}`);
  else assert.match(own.stderr, new RegExp(`nodes "${node}" not found`));
  assert.doesNotMatch(own.stderr, /forbidden/i);
  const nodes = await kubectl(kubeconfig, ["get", "nodes", "-o", "name"]);
  assert.notEqual(nodes.code, 0);
  assert.match(nodes.stderr, new RegExp(`node '${node}' cannot read all nodes, only its own Node object`));
  const secrets = await kubectl(kubeconfig, ["get", "secrets", "--all-namespaces", "-v=6"]);
  assert.notEqual(secrets.code, 0);
  assert.match(secrets.stderr, /status="403 Forbidden"/);
  assert.match(secrets.stderr, new RegExp(`User "system:node:${node}" cannot list resource "secrets"`));
});

test("ServiceAccount admission is on: a pod gets the kube-api-access projected volume (token of 3607 s, kube-root-ca.crt, namespace)", { skip: sharedSkip }, async () => {
  const env = shared.env!;
  const pod = JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name: "sa-check", namespace: "default" }, spec: { containers: [{ name: "c", image: "busybox" }] } });
  const dir = await mkdtemp(join(tmpdir(), "probelet-cp-sa-"));
  try {
    await writeFile(join(dir, "pod.json"), pod);
    const got = await kubectl(env.adminKubeconfig, ["create", "--dry-run=server", "-o", "json", "-f", join(dir, "pod.json")]);
    assert.equal(got.code, 0, got.stderr);
    const created = JSON.parse(got.stdout) as { spec: { serviceAccountName: string; volumes: { name: string; projected?: { sources: Record<string, unknown>[] } }[] } };
    assert.equal(created.spec.serviceAccountName, "default");
    const volume = created.spec.volumes.find((v) => v.name.startsWith("kube-api-access-"));
    assert.ok(volume?.projected, JSON.stringify(created.spec.volumes));
    assert.deepEqual(volume.projected.sources[0], { serviceAccountToken: { expirationSeconds: 3607, path: "token" } });
    assert.deepEqual(volume.projected.sources[1], { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("a CSR the admin approves is signed by the cluster CA, and its certificate authenticates as its CN", { skip: sharedSkip, timeout: 60_000 }, async () => {
  const env = shared.env!;
  const dir = await mkdtemp(join(tmpdir(), "probelet-cp-csr-"));
  const name = `probelet-cp-test-${process.pid}`;
  try {
    const run = (cmd: string, args: string[]): void => {
      const r = spawnSync(cmd, args, { encoding: "utf8" });
      assert.equal(r.status, 0, r.stderr);
    };
    run("openssl", ["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/O=probelet-testers/CN=csr-tester", "-keyout", join(dir, "key.pem"), "-out", join(dir, "csr.pem")]);
    const request = readFileSync(join(dir, "csr.pem")).toString("base64");
    const csr = { apiVersion: "certificates.k8s.io/v1", kind: "CertificateSigningRequest", metadata: { name }, spec: { request, signerName: "kubernetes.io/kube-apiserver-client", usages: ["client auth"], expirationSeconds: 600 } };
    await writeFile(join(dir, "csr.json"), JSON.stringify(csr));
    assert.equal((await kubectl(env.adminKubeconfig, ["create", "-f", join(dir, "csr.json")])).code, 0);
    const approved = await kubectl(env.adminKubeconfig, ["certificate", "approve", name]);
    assert.equal(approved.code, 0, approved.stderr);
    let certificate = "";
    for (let i = 0; i < 100 && certificate === ""; i++) {
      const got = await kubectl(env.adminKubeconfig, ["get", "csr", name, "-o", "jsonpath={.status.certificate}"]);
      certificate = got.stdout.trim();
      if (certificate === "") await new Promise((r) => setTimeout(r, 200));
    }
    assert.notEqual(certificate, "", "the controller manager did not sign the CSR within 20 s");
    await writeFile(join(dir, "cert.pem"), Buffer.from(certificate, "base64"));
    run("openssl", ["verify", "-CAfile", env.serverCa, join(dir, "cert.pem")]);
    const kubeconfig = { apiVersion: "v1", kind: "Config", "current-context": "c", clusters: [{ name: "c", cluster: { server: env.server, "certificate-authority": env.serverCa } }], users: [{ name: "u", user: { "client-certificate": join(dir, "cert.pem"), "client-key": join(dir, "key.pem") } }], contexts: [{ name: "c", context: { cluster: "c", user: "u" } }] };
    await writeFile(join(dir, "kubeconfig"), JSON.stringify(kubeconfig), { mode: 0o600 });
    const whoami = await kubectl(join(dir, "kubeconfig"), ["auth", "whoami", "-o", "jsonpath={.status.userInfo.username} {.status.userInfo.groups}"]);
    assert.equal(whoami.code, 0, whoami.stderr);
    assert.match(whoami.stdout, /^csr-tester \["probelet-testers","system:authenticated"\]$/);
  } finally {
    await kubectl(env.adminKubeconfig, ["delete", "csr", name, "--ignore-not-found"]);
    await rm(dir, { recursive: true, force: true });
  }
});

test("tokens and keys are 0600 files and no token is in any component's command line", { skip: sharedSkip }, () => {
  const env = shared.env!;
  const secrets = [
    ...readdirSync(join(env.dir, "tokens")).map((name) => join(env.dir, "tokens", name)),
    ...readdirSync(join(env.dir, "pki")).filter((name) => name.endsWith(".key")).map((name) => join(env.dir, "pki", name)),
    join(env.dir, "tokens.csv"),
  ];
  for (const file of secrets) assert.equal(statSync(file).mode & 0o777, 0o600, file);
  const tokens = readdirSync(join(env.dir, "tokens"))
    .filter((name) => name.endsWith(".token"))
    .map((name) => readFileSync(join(env.dir, "tokens", name), "utf8"));
  assert.ok(tokens.length >= 2);
  for (const pid of recordedPids(env.dir)) {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    for (const token of tokens) assert.ok(!cmdline.includes(token), `a token is in the command line of pid ${pid}`);
  }
});

test("start of a second control plane then stop ends every process it started and removes its run dir", { skip: notBuilt(), timeout: 180_000 }, async (t) => {
  const dir = join(await mkdtemp(join(tmpdir(), "probelet-cp-test-")), "run");
  t.after(async () => {
    runControlPlaneScript("stop", dir);
    await rm(join(dir, ".."), { recursive: true, force: true });
  });
  const started = runControlPlaneScript("start", dir, { PROBELET_CP_NODES: "node-x" });
  assert.equal(started.status, 0, started.stderr);
  assert.equal(started.exported["PROBELET_CP_DIR"], dir);
  assert.match(started.exported["PROBELET_CP_SERVER"] ?? "", /^https:\/\/127\.0\.0\.1:\d+$/);
  assert.ok(existsSync(started.exported["PROBELET_CP_NODE_KUBECONFIG_node_x"] ?? ""));
  assert.ok(existsSync(started.exported["PROBELET_CP_KUBELET_CLIENT_CA"] ?? ""));
  const pids = recordedPids(dir);
  assert.equal(pids.length, 4);
  for (const pid of pids) assert.ok(processAlive(pid), `pid ${pid} is not running after start`);
  assert.equal(runControlPlaneScript("status", dir).status, 0);

  const stopped = runControlPlaneScript("stop", dir);
  assert.equal(stopped.status, 0, stopped.stderr);
  assert.deepEqual(pids.filter(processAlive), []);
  assert.equal(existsSync(dir), false);
});

test("stop leaves alone a process named etcd whose PID is recorded but whose command line is not this run's", { skip: notRoot }, async (t) => {
  const base = await mkdtemp(join(tmpdir(), "probelet-cp-test-"));
  const dir = join(base, "run");
  // A `sleep` under the name etcd: the same command name as a component, another command line.
  await copyFile("/bin/sleep", join(base, "etcd"));
  await chmod(join(base, "etcd"), 0o755);
  const decoy = spawn(join(base, "etcd"), ["60"], { stdio: "ignore" });
  t.after(async () => {
    decoy.kill("SIGKILL");
    await rm(base, { recursive: true, force: true });
  });
  await mkdir(dir);
  await writeFile(join(dir, ".probelet-cp"), "");
  await writeFile(join(dir, "etcd.pid"), `${decoy.pid}\n`);
  await writeFile(join(dir, "kube-apiserver.pid"), `${decoy.pid}\n`);
  const stopped = runControlPlaneScript("stop", dir);
  assert.equal(stopped.status, 0, stopped.stderr);
  assert.ok(processAlive(decoy.pid!), "stop ended a process it did not start");
  assert.equal(existsSync(dir), false);
});

test("start refuses a node name the API server would not accept, and starts nothing", { skip: notBuilt() }, async (t) => {
  const base = await mkdtemp(join(tmpdir(), "probelet-cp-test-"));
  t.after(() => rm(base, { recursive: true, force: true }));
  const dir = join(base, "run");
  const started = runControlPlaneScript("start", dir, { PROBELET_CP_NODES: "Bad_Name" });
  assert.equal(started.status, 1);
  assert.match(started.stderr, /PROBELET_CP_NODES: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/);
  assert.equal(existsSync(dir), false);
});

test("stop refuses to delete a directory start did not make", { skip: notRoot }, async (t) => {
  const base = await mkdtemp(join(tmpdir(), "probelet-cp-test-"));
  t.after(() => rm(base, { recursive: true, force: true }));
  await writeFile(join(base, "keep"), "x");
  const stopped = runControlPlaneScript("stop", base);
  assert.equal(stopped.status, 1);
  assert.match(stopped.stderr, /is not a control plane run directory: not removing it/);
  assert.ok(existsSync(join(base, "keep")));
});

test("a start that fails ends the components it had started and keeps their logs", { skip: notBuilt(), timeout: 180_000 }, async (t) => {
  const base = await mkdtemp(join(tmpdir(), "probelet-cp-test-"));
  const dir = join(base, "run");
  t.after(async () => {
    runControlPlaneScript("stop", dir);
    await rm(base, { recursive: true, force: true });
  });
  // kube-controller-manager starts after etcd and kube-apiserver and rejects this flag value.
  const started = runControlPlaneScript("start", dir, { PROBELET_CP_NODE_GRACE: "bogus" });
  assert.equal(started.status, 1);
  assert.match(started.stderr, /invalid argument "bogus" for "--node-monitor-grace-period"/);
  assert.match(started.stderr, /start failed: logs in /);
  const pids = recordedPids(dir);
  assert.ok(pids.length >= 3, `expected etcd, kube-apiserver and kube-controller-manager PIDs, got ${pids.length}`);
  assert.deepEqual(pids.filter(processAlive), []);
  assert.ok(statSync(join(dir, "kube-apiserver.log")).size > 0);
});
