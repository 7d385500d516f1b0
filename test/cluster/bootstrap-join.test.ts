// "Joining with a bootstrap token" of docs/cluster.md, run as written: its shell blocks, with
// `kubectl` the cluster admin's kubectl 1.37 and `probelet` this checkout, against the v1.37.2
// control plane (bootstrap-token auth, csrapproving, csrsigning). Then the same steps on a
// control plane of the test's own that signs 90-second certificates: the node's certificate
// rotation keeps it authenticated past its first certificate's expiry.
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { chmodSync, closeSync, existsSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:tls";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { releasePodNetworks } from "../pod-network-cleanup.js";
import { repoRoot } from "../cri/containerd-script.js";
import { k8sToolPath, kubectl, notBuilt, readControlPlaneEnv, type ControlPlaneEnv } from "./control-plane-env.js";
import { runControlPlaneScript } from "./control-plane-script.js";
import { freePort, waitFor } from "./node-agent.js";

const MAIN = join(import.meta.dirname, "..", "..", "src", "cli", "main.js");
const shared = readControlPlaneEnv();

/** joinStep is the shell block of docs/cluster.md after `<!-- join-step: NAME -->`. */
function joinStep(name: string): string {
  const doc = readFileSync(join(repoRoot(), "docs", "cluster.md"), "utf8");
  const match = new RegExp(`<!-- join-step: ${name} -->\\n\`\`\`sh\\n([\\s\\S]*?)\`\`\`\\n`).exec(doc);
  assert.ok(match, `docs/cluster.md has no join-step ${name}`);
  return match[1]!;
}

/** Joiner is one node joined by the documented steps, in a scratch directory. */
interface Joiner {
  dir: string;
  /** The documented $DIR: kubeconfigs, certificate and key. */
  nodeDir: string;
  env: NodeJS.ProcessEnv;
  /** The bootstrap token the documented steps made (read from the bootstrap kubeconfig). */
  token: string;
  /** The daemon endpoint's port. */
  port: number;
  agent: ChildProcess;
  log: () => string;
}

/**
 * join runs the admin and node blocks in one shell (the token travels in its variables), then
 * starts the run block; `kubectl` is the admin's, `probelet` this checkout with a free daemon port
 * and a state directory of its own.
 */
async function joinCluster(cp: Pick<ControlPlaneEnv, "adminKubeconfig" | "server" | "serverCa" | "kubeletClientCa">, nodeName: string, podCidr: string, extraFlags = ""): Promise<Joiner> {
  const dir = await mkdtemp(join(tmpdir(), `probelet-join-${nodeName}-`));
  const bin = join(dir, "bin");
  mkdirSync(bin, { mode: 0o700 });
  const kubectlPath = k8sToolPath("kubectl")!;
  writeFileSync(join(bin, "kubectl"), `#!/bin/sh\nexec ${JSON.stringify(kubectlPath)} --kubeconfig ${JSON.stringify(cp.adminKubeconfig)} "$@"\n`);
  const port = await freePort();
  writeFileSync(
    join(bin, "probelet"),
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(MAIN)} "$@" --state-dir ${JSON.stringify(join(dir, "state"))} --listen 127.0.0.1:0 --kubelet-port ${port} --pod-cidr ${podCidr} --log-level info --quiet ${extraFlags}\n`,
  );
  for (const f of ["kubectl", "probelet"]) chmodSync(join(bin, f), 0o755);
  const nodeDir = join(dir, "etc-probelet");
  const env = { ...process.env, PATH: `${bin}:${process.env["PATH"] ?? ""}`, NODE_NAME: nodeName, API_SERVER: cp.server, CA_FILE: cp.serverCa, KUBELET_CLIENT_CA: cp.kubeletClientCa, DIR: nodeDir };
  const setup = spawnSync("bash", ["-euo", "pipefail", "-c", `${joinStep("admin")}\n${joinStep("node")}`], { env, encoding: "utf8", timeout: 60_000 });
  assert.equal(setup.status, 0, `the documented steps 1 and 2 failed: ${setup.stderr}`);
  const logFile = join(dir, "agent.log");
  const out = openSync(logFile, "a");
  // A process group of its own, ended by its ID after the test.
  const agent = spawn("bash", ["-euo", "pipefail", "-c", joinStep("run")], { env, stdio: ["ignore", out, out], detached: true });
  closeSync(out);
  return { dir, nodeDir, env, token: bootstrapToken(nodeDir), port, agent, log: () => (existsSync(logFile) ? readFileSync(logFile, "utf8").slice(-6000) : "") };
}

/** leave stops the joined node's process group and removes its directory and network. */
async function leave(joiner: Joiner | undefined): Promise<void> {
  if (joiner === undefined) return;
  const pid = joiner.agent.pid;
  if (pid !== undefined && joiner.agent.exitCode === null) {
    const exited = new Promise((resolve) => joiner.agent.once("exit", resolve));
    process.kill(-pid, "SIGTERM");
    await Promise.race([exited, delay(30_000)]);
    if (joiner.agent.exitCode === null) process.kill(-pid, "SIGKILL");
  }
  releasePodNetworks(join(joiner.dir, "state"));
  await rm(joiner.dir, { recursive: true, force: true });
}

/** bootstrapToken reads the token the node block wrote into the bootstrap kubeconfig. */
function bootstrapToken(nodeDir: string): string {
  const m = /^\s+token: (\S+)$/m.exec(readFileSync(join(nodeDir, "bootstrap-kubelet.conf"), "utf8"));
  assert.ok(m, "no token in the bootstrap kubeconfig");
  return m[1]!;
}

/** cleanUp removes what the documented admin step made (token, bindings) and the node's CSRs and Node. */
async function cleanUp(adminKubeconfig: string, joiner: Joiner | undefined, nodeName: string): Promise<void> {
  const tokenId = joiner?.token.split(".")[0];
  if (tokenId !== undefined) await kubectl(adminKubeconfig, ["delete", "secret", "-n", "kube-system", `bootstrap-token-${tokenId}`, "--ignore-not-found"]);
  await kubectl(adminKubeconfig, ["delete", "clusterrolebinding", "probelet:node-bootstrapper", "probelet:node-autoapprove-bootstrap", "probelet:node-autoapprove-certificate-rotation", "--ignore-not-found"]);
  const csrs = await kubectl(adminKubeconfig, ["get", "csr", "-o", "json"]);
  const names = (JSON.parse(csrs.stdout || '{"items":[]}') as { items: { metadata: { name: string }; spec: { username: string } }[] }).items
    .filter((c) => c.spec.username === `system:node:${nodeName}` || (tokenId !== undefined && c.spec.username === `system:bootstrap:${tokenId}`))
    .map((c) => c.metadata.name);
  if (names.length > 0) await kubectl(adminKubeconfig, ["delete", "csr", ...names]);
  await kubectl(adminKubeconfig, ["delete", "node", nodeName, "--wait=false", "--ignore-not-found"]);
}

interface CsrJson {
  metadata: { name: string };
  spec: { signerName: string; username: string; groups: string[]; usages: string[] };
  status: { conditions?: { type: string; reason: string }[]; certificate?: string };
}

async function nodeReady(adminKubeconfig: string, name: string): Promise<boolean> {
  const got = await kubectl(adminKubeconfig, ["get", "node", name, "-o", "jsonpath={.status.conditions[?(@.type==\"Ready\")].status}"]);
  return got.stdout.trim() === "True";
}

test("docs/cluster.md's bootstrap-token join, run as written: the CSR is approved and issued, the node certificate and kubeconfig are written 0600 beside each other, the node is Ready, and no token is in a command line", { skip: shared.skip, timeout: 180_000 }, async (t) => {
  const env = shared.env!;
  const nodeName = "probelet-join";
  const joined: { node?: Joiner } = {};
  t.after(async () => {
    await leave(joined.node);
    await cleanUp(env.adminKubeconfig, joined.node, nodeName);
  });
  const j = (joined.node = await joinCluster(env, nodeName, "10.88.250.0/24"));
  await waitFor(`${nodeName} Ready`, 90_000, async () => ((await nodeReady(env.adminKubeconfig, nodeName)) ? true : undefined)).catch((err: Error) => assert.fail(`${err.message}\n${j.log()}`));
  const token = j.token;
  const [tokenId] = token.split(".");
  const csrs = JSON.parse((await kubectl(env.adminKubeconfig, ["get", "csr", "-o", "json"])).stdout) as { items: CsrJson[] };
  const csr = csrs.items.find((c) => c.spec.username === `system:bootstrap:${tokenId}`);
  assert.ok(csr, "the bootstrap token's CSR");
  assert.match(csr.metadata.name, /^node-csr-/);
  assert.equal(csr.spec.signerName, "kubernetes.io/kube-apiserver-client-kubelet");
  assert.ok(csr.spec.groups.includes("system:bootstrappers:probelet"));
  assert.deepEqual(csr.status.conditions?.map((c) => `${c.type}/${c.reason}`), ["Approved/AutoApproved"]);
  assert.ok(csr.status.certificate);
  // The files: owner-only, the symlink naming the timestamped pair, no pending key left.
  assert.equal(statSync(j.nodeDir).mode & 0o777, 0o700);
  for (const f of ["bootstrap-kubelet.conf", "kubelet.conf", "kubelet-client-current.pem"]) assert.equal(statSync(join(j.nodeDir, f)).mode & 0o777, 0o600, f);
  assert.ok(lstatSync(join(j.nodeDir, "kubelet-client-current.pem")).isSymbolicLink());
  assert.match(readlinkSync(join(j.nodeDir, "kubelet-client-current.pem")), /^kubelet-client-\d{4}(-\d\d){5}\.pem$/);
  assert.equal(existsSync(join(j.nodeDir, "kubelet-client.key.tmp")), false);
  assert.equal(new X509Certificate(readFileSync(join(j.nodeDir, "kubelet-client-current.pem"))).subject, `O=system:nodes\nCN=system:node:${nodeName}`);
  assert.match(readFileSync(join(j.nodeDir, "kubelet.conf"), "utf8"), /client-certificate: .*kubelet-client-current\.pem/);
  // No process shows the token in its command line.
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    let cmdline = "";
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    } catch {
      continue;
    }
    assert.ok(!cmdline.includes(token.split(".")[1]!), `the bootstrap token is in the command line of pid ${pid}`);
  }
});

test("on a control plane signing 90-second certificates, the node rotates its certificate before it expires and stays authenticated past the first one's expiry", { skip: notBuilt() || shared.skip, timeout: 300_000 }, async (t) => {
  const base = await mkdtemp(join(tmpdir(), "probelet-cp-rotation-"));
  const runDir = join(base, "run");
  const nodeName = "probelet-rot";
  const joined: { node?: Joiner } = {};
  t.after(async () => {
    await leave(joined.node);
    runControlPlaneScript("stop", runDir);
    await rm(base, { recursive: true, force: true });
  });
  const started = runControlPlaneScript("start", runDir, { PROBELET_CP_NODES: nodeName, PROBELET_CP_SIGNING_DURATION: "90s" });
  assert.equal(started.status, 0, started.stderr);
  const cp = {
    adminKubeconfig: started.exported["PROBELET_CP_ADMIN_KUBECONFIG"]!,
    server: started.exported["PROBELET_CP_SERVER"]!,
    serverCa: started.exported["PROBELET_CP_CA"]!,
    kubeletClientCa: started.exported["PROBELET_CP_KUBELET_CLIENT_CA"]!,
  };
  const j = (joined.node = await joinCluster(cp, nodeName, "10.88.249.0/24"));
  await waitFor(`${nodeName} Ready`, 90_000, async () => ((await nodeReady(cp.adminKubeconfig, nodeName)) ? true : undefined)).catch((err: Error) => assert.fail(`${err.message}\n${j.log()}`));
  const current = join(j.nodeDir, "kubelet-client-current.pem");
  const first = readlinkSync(current);
  const firstExpiry = Date.parse(new X509Certificate(readFileSync(current)).validTo);
  assert.ok(firstExpiry - Date.now() < 95_000, "the control plane signs 90-second certificates");
  // Past the first certificate's expiry the node still renews its Lease: it uses a newer one.
  await delay(Math.max(0, firstExpiry - Date.now()) + 12_000);
  assert.notEqual(readlinkSync(current), first, "kubelet-client-current.pem points at a newer certificate");
  const lease = JSON.parse((await kubectl(cp.adminKubeconfig, ["get", "lease", "-n", "kube-node-lease", nodeName, "-o", "json"])).stdout) as { spec: { renewTime: string } };
  assert.ok(Date.parse(lease.spec.renewTime) > firstExpiry, `lease renewed at ${lease.spec.renewTime}, after the first certificate expired at ${new Date(firstExpiry).toISOString()}\n${j.log()}`);
  assert.equal(await nodeReady(cp.adminKubeconfig, nodeName), true);
  const csrs = JSON.parse((await kubectl(cp.adminKubeconfig, ["get", "csr", "-o", "json"])).stdout) as { items: CsrJson[] };
  const renewals = csrs.items.filter((c) => c.spec.username === `system:node:${nodeName}`);
  assert.ok(renewals.length >= 1, "the node renewed with its own certificate");
  for (const r of renewals) {
    assert.equal(r.spec.signerName, "kubernetes.io/kube-apiserver-client-kubelet");
    assert.deepEqual(r.status.conditions?.map((c) => c.type), ["Approved"]);
  }
});

/** tlsPeer connects to the daemon endpoint trusting only `ca` and returns the certificate it presents (rejects when the handshake fails). */
function tlsPeer(host: string, port: number, ca: Buffer): Promise<{ subject: string; issuer: string; subjectaltname: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, ca }, () => {
      const peer = socket.getPeerX509Certificate();
      socket.end();
      if (peer === undefined) reject(new Error("no peer certificate"));
      else resolve({ subject: peer.subject, issuer: peer.issuer, subjectaltname: peer.subjectAltName ?? "" });
    });
    socket.on("error", reject);
  });
}

test("with --rotate-server-certificates the daemon endpoint waits for its kubernetes.io/kubelet-serving CSR; once approved it serves the cluster CA's certificate for the node's IP, and the node proxy reaches it", { skip: shared.skip, timeout: 180_000 }, async (t) => {
  const env = shared.env!;
  const nodeName = "probelet-serve";
  const joined: { node?: Joiner } = {};
  t.after(async () => {
    await leave(joined.node);
    await cleanUp(env.adminKubeconfig, joined.node, nodeName);
  });
  const j = (joined.node = await joinCluster(env, nodeName, "10.88.248.0/24", "--rotate-server-certificates"));
  await waitFor(`${nodeName} Ready`, 90_000, async () => ((await nodeReady(env.adminKubeconfig, nodeName)) ? true : undefined)).catch((err: Error) => assert.fail(`${err.message}\n${j.log()}`));
  const csr = await waitFor("the kubelet-serving CSR", 30_000, async () => {
    const list = JSON.parse((await kubectl(env.adminKubeconfig, ["get", "csr", "-o", "json"])).stdout) as { items: CsrJson[] };
    return list.items.find((c) => c.spec.username === `system:node:${nodeName}` && c.spec.signerName === "kubernetes.io/kubelet-serving");
  });
  assert.deepEqual(csr.spec.usages, ["digital signature", "server auth"]);
  assert.equal(csr.status.conditions, undefined, "kube-controller-manager does not approve serving CSRs");
  const nodeObject = JSON.parse((await kubectl(env.adminKubeconfig, ["get", "node", nodeName, "-o", "json"])).stdout) as { status: { addresses: { type: string; address: string }[] } };
  const host = nodeObject.status.addresses.find((a) => a.type === "InternalIP")!.address;
  await assert.rejects(tlsPeer(host, j.port, readFileSync(env.serverCa)), /ECONNREFUSED/, "no endpoint before the certificate is issued");
  const approved = await kubectl(env.adminKubeconfig, ["certificate", "approve", csr.metadata.name]);
  assert.equal(approved.code, 0, approved.stderr);
  const peer = await waitFor("the endpoint serving the issued certificate", 30_000, () => tlsPeer(host, j.port, readFileSync(env.serverCa)));
  assert.equal(peer.subject, `O=system:nodes\nCN=system:node:${nodeName}`);
  assert.match(peer.subjectaltname, new RegExp(`DNS:${nodeName}`));
  assert.match(peer.subjectaltname, new RegExp(`IP Address:${host.replace(/\./g, "\\.")}`));
  const healthz = await kubectl(env.adminKubeconfig, ["get", "--raw", `/api/v1/nodes/${nodeName}/proxy/healthz`]);
  assert.equal(healthz.stdout, "ok");
});
