import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createPrivateKey, X509Certificate } from "node:crypto";
import { chmod, lstat, mkdir, mkdtemp, readFile, readlink, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { promisify } from "node:util";
import { stringify as toYaml } from "yaml";
import { FakeApiServer, statusBody, type RecordedRequest } from "../../test/cluster/fake-apiserver.js";
import { FakeClock } from "../../test/fakes/fake-clock.js";
import { systemClock } from "../util/clock.js";
import { silentLogger } from "../util/logger.js";
import { RestClient } from "../client/rest-client.js";
import { CertificateRotation, clientTemplate, rotationDeadline, servingTemplate } from "./certificate-rotation.js";
import { digestedName, KUBELET_CLIENT_SIGNER, waitForCertificate } from "./certificate-requests.js";
import { CertificateStore, checkPrivateDirectory } from "./certificate-store.js";
import { makeCsr } from "./csr-der.js";
import { loadKubeconfig } from "./kubeconfig.js";
import { CLIENT_PAIR, clientConfigStillValid, loadClientCert, newEcKey, TMP_PRIVATE_KEY_FILE } from "./tls-bootstrap.js";

const run = promisify(execFile);
const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const c of cleanups) await c();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "probelet-bootstrap-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** ca is a CA made with openssl that signs CSRs as kube-controller-manager's csrsigning would (for `days`). */
async function ca(dir: string): Promise<(csrPem: string, days?: number) => Promise<string>> {
  await run("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", join(dir, "ca.key"), "-out", join(dir, "ca.crt"), "-subj", "/CN=test-ca", "-days", "2"]);
  let n = 0;
  return async (csrPem, days = 1) => {
    const file = join(dir, `req-${++n}.csr`);
    await writeFile(file, csrPem);
    const { stdout } = await run("openssl", ["x509", "-req", "-in", file, "-CA", join(dir, "ca.crt"), "-CAkey", join(dir, "ca.key"), "-CAcreateserial", "-days", String(days)]);
    return stdout;
  };
}

/**
 * csrServer plays the CSR API: POST creates (409 for a name taken), GET answers the CSR, approved
 * and signed by `sign` after `pendingReads` reads, or denied.
 */
async function csrServer(sign: (csrPem: string) => Promise<string>, behaviour: { pendingReads?: number; deny?: boolean } = {}) {
  const csrs = new Map<string, { uid: string; request: string; signerName: string; usages: string[]; reads: number; cert?: string }>();
  let generated = 0;
  const server = await FakeApiServer.start((r: RecordedRequest) => {
    const base = "/apis/certificates.k8s.io/v1/certificatesigningrequests";
    if (r.method === "POST" && r.path === base) {
      const body = r.body as { metadata: { name?: string; generateName?: string }; spec: { request: string; signerName: string; usages: string[] } };
      const name = body.metadata.name ?? `${body.metadata.generateName ?? ""}${++generated}`;
      if (csrs.has(name)) return { code: 409, body: statusBody(409, "AlreadyExists", `certificatesigningrequests.certificates.k8s.io "${name}" already exists`) };
      csrs.set(name, { uid: `uid-${name}`, request: body.spec.request, signerName: body.spec.signerName, usages: body.spec.usages, reads: 0 });
      return { code: 201, body: { metadata: { name, uid: `uid-${name}` } } };
    }
    const name = decodeURIComponent(r.path.slice(base.length + 1));
    const csr = csrs.get(name);
    if (csr === undefined) return { code: 404, body: statusBody(404, "NotFound", "not found") };
    csr.reads++;
    const conditions = behaviour.deny ? [{ type: "Denied", reason: "NotMine", message: "no" }] : csr.reads > (behaviour.pendingReads ?? 0) ? [{ type: "Approved", reason: "AutoApproved" }] : [];
    return { code: 200, body: { metadata: { name, uid: csr.uid }, spec: { signerName: csr.signerName, usages: csr.usages }, status: { conditions, ...(csr.cert ? { certificate: csr.cert } : {}) } } };
  });
  cleanups.push(() => server.close());
  // Signing is asynchronous (openssl): sign every CSR as soon as it is created.
  const signer = setInterval(() => {
    for (const csr of csrs.values()) {
      if (csr.cert === undefined) {
        csr.cert = "";
        sign(Buffer.from(csr.request, "base64").toString("utf8")).then(
          (pem) => (csr.cert = Buffer.from(pem).toString("base64")),
          () => undefined,
        );
      }
    }
  }, 5);
  cleanups.push(async () => clearInterval(signer));
  return { server, csrs };
}

test("makeCsr writes a PKCS#10 request openssl verifies: O=system:nodes, CN=system:node:<name>, ECDSA P-256, SANs of a serving CSR", async () => {
  const dir = await tempDir();
  const csr = makeCsr(newEcKey(), { commonName: "system:node:worker-7", organizations: ["system:nodes"], dnsNames: ["worker-7"], ipAddresses: ["192.168.1.20"] });
  await writeFile(join(dir, "r.csr"), csr);
  const { stdout } = await run("openssl", ["req", "-in", join(dir, "r.csr"), "-noout", "-verify", "-subject", "-text"]);
  assert.match(stdout, /subject=O ?= ?system:nodes, CN ?= ?system:node:worker-7/);
  assert.match(stdout, /DNS:worker-7, IP Address:192\.168\.1\.20/);
  assert.match(stdout, /ecdsa-with-SHA256/);
});

test("digestedName is stable for one key, subject and usages (node-csr-…), and another key gives another name", () => {
  const key = newEcKey();
  const a = digestedName(key, "system:node:n", ["system:nodes"], ["digital signature", "client auth"]);
  assert.match(a, /^node-csr-[A-Za-z0-9_-]{43}$/);
  assert.equal(digestedName(key, "system:node:n", ["system:nodes"], ["digital signature", "client auth"]), a);
  assert.notEqual(digestedName(newEcKey(), "system:node:n", ["system:nodes"], ["digital signature", "client auth"]), a);
});

test("LoadClientCert: a bootstrap token's CSR (kube-apiserver-client-kubelet, digested name) becomes kubelet-client-current.pem and a kubeconfig that uses it; a second run skips the bootstrap", async () => {
  const dir = await tempDir();
  await mkdir(join(dir, "etc"), { mode: 0o700 });
  const sign = await ca(dir);
  const { server, csrs } = await csrServer(sign, { pendingReads: 2 });
  const bootstrap = join(dir, "etc", "bootstrap-kubelet.conf");
  const kubeconfig = join(dir, "etc", "kubelet.conf");
  await writeFile(bootstrap, toYaml({ apiVersion: "v1", kind: "Config", "current-context": "b", clusters: [{ name: "c", cluster: { server: server.credentials.server, "certificate-authority-data": server.credentials.ca!.toString("base64") } }], users: [{ name: "u", user: { token: "abcdef.0123456789abcdef" } }], contexts: [{ name: "b", context: { cluster: "c", user: "u" } }] }), { mode: 0o600 });
  const options = { kubeconfig, bootstrapKubeconfig: bootstrap, nodeName: "worker-7", clock: systemClock, logger: silentLogger, userAgent: "kubelet/test" };
  const stored = await loadClientCert(options);
  assert.ok(stored);
  assert.equal(server.requests[0]!.authorization, "Bearer abcdef.0123456789abcdef");
  const [name, csr] = [...csrs][0]!;
  assert.match(name, /^node-csr-/);
  assert.equal(csr.signerName, KUBELET_CLIENT_SIGNER);
  assert.deepEqual(csr.usages, ["digital signature", "client auth"]);
  const current = join(dir, "etc", "kubelet-client-current.pem");
  assert.match(await readlink(current), /^kubelet-client-\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d\.pem$/);
  assert.equal((await stat(current)).mode & 0o777, 0o600);
  assert.equal((await stat(kubeconfig)).mode & 0o777, 0o600);
  await assert.rejects(lstat(join(dir, "etc", TMP_PRIVATE_KEY_FILE)), "the pending key is gone once the certificate is stored");
  const credentials = await loadKubeconfig(kubeconfig);
  assert.equal(credentials.token, undefined);
  assert.equal(new X509Certificate(credentials.clientCert!).subject, "O=system:nodes\nCN=system:node:worker-7");
  assert.equal(await clientConfigStillValid(kubeconfig, Date.now()), true);
  const before = server.requests.length;
  assert.equal(await loadClientCert(options), undefined);
  assert.equal(server.requests.length, before, "a valid kubeconfig needs no bootstrap");
  assert.equal(await clientConfigStillValid(kubeconfig, Date.now() + 3 * 86400_000), false, "an expired certificate does not count");
});

test("LoadClientCert refuses a kubeconfig directory others can write, and reports a denied CSR with client-go's words", async () => {
  const dir = await tempDir();
  const sign = await ca(dir);
  const { server } = await csrServer(sign, { deny: true });
  const open = join(dir, "open");
  await mkdir(open, { mode: 0o777 });
  await chmod(open, 0o777);
  await assert.rejects(checkPrivateDirectory(open), /writable by group or others \(mode 777\): the node's key must not go there/);
  const etc = join(dir, "etc");
  await mkdir(etc, { mode: 0o700 });
  const bootstrap = join(etc, "bootstrap.conf");
  await writeFile(bootstrap, toYaml({ apiVersion: "v1", kind: "Config", "current-context": "b", clusters: [{ name: "c", cluster: { server: server.credentials.server, "certificate-authority-data": server.credentials.ca!.toString("base64") } }], users: [{ name: "u", user: { token: "t" } }], contexts: [{ name: "b", context: { cluster: "c", user: "u" } }] }), { mode: 0o600 });
  await assert.rejects(
    loadClientCert({ kubeconfig: join(etc, "kubelet.conf"), bootstrapKubeconfig: bootstrap, nodeName: "n", clock: systemClock, logger: silentLogger, userAgent: "t" }),
    /^Error: certificate signing request is denied, reason: NotMine, message: no$/,
  );
  // The key stays for the next attempt, owner-only.
  assert.equal((await stat(join(etc, TMP_PRIVATE_KEY_FILE))).mode & 0o777, 0o600);
  createPrivateKey(await readFile(join(etc, TMP_PRIVATE_KEY_FILE)));
  await assert.rejects(loadClientCert({ kubeconfig: join(etc, "kubelet.conf"), bootstrapKubeconfig: join(etc, "missing.conf"), nodeName: "n", clock: systemClock, logger: silentLogger, userAgent: "t" }), /^Error: unable to load bootstrap kubeconfig: cannot read kubeconfig /);
});

test("waitForCertificate reports a deleted CSR, and gives up at its deadline with a clear error", async () => {
  const { server } = await csrServer(async () => new Promise(() => undefined), { pendingReads: 1000 });
  const clock = new FakeClock();
  const client = new RestClient({ credentials: server.credentials, clock });
  cleanups.push(async () => client.close());
  const waiting = waitForCertificate(client, { name: "absent", uid: "" }, 5000, clock);
  await assert.rejects(waiting, /csr "absent" was deleted/);
  // A CSR that stays pending: the deadline ends the wait.
  const post = await client.request<{ metadata: { name: string; uid: string } }>("POST", "/apis/certificates.k8s.io/v1/certificatesigningrequests", { body: { metadata: { generateName: "csr-" }, spec: { request: "", signerName: KUBELET_CLIENT_SIGNER, usages: [] } } });
  const pending = waitForCertificate(client, { name: post.metadata.name, uid: post.metadata.uid }, 3000, clock);
  const rejection = assert.rejects(pending, /timed out waiting for the certificate of csr "csr-1" to be issued/);
  for (let i = 0; i < 5; i++) await clock.advance(1000);
  await rejection;
});

test("certificate manager nextRotationDeadline: 70% to 90% of the certificate's lifetime after notBefore", () => {
  const cert = { notBefore: 0, notAfter: 1000_000 };
  assert.equal(rotationDeadline(cert, 0), 700_000);
  assert.equal(rotationDeadline(cert, 0.5), 800_000);
  assert.equal(rotationDeadline(cert, 0.999999), 899_999);
});

test("rotation: at the deadline a new key's CSR goes with the current certificate, the new certificate is stored and handed over", async () => {
  const dir = await tempDir();
  await mkdir(join(dir, "etc"), { mode: 0o700 });
  const sign = await ca(dir);
  // Renewed certificates last twice as long, so the next deadline lies beyond the fake clock.
  const { server, csrs } = await csrServer((pem) => sign(pem, 2));
  const store = new CertificateStore(join(dir, "etc"), CLIENT_PAIR);
  const firstKey = newEcKey();
  const first = await store.update(Buffer.from(await sign(makeCsr(firstKey, { commonName: "system:node:n", organizations: ["system:nodes"] }))), Buffer.from(firstKey.export({ type: "sec1", format: "pem" })), Date.now() - 5000);
  const clock = new FakeClock(first.notBefore);
  const client = new RestClient({ credentials: server.credentials, clock: systemClock });
  cleanups.push(async () => client.close());
  const handed: string[] = [];
  const rotation = new CertificateRotation({ store, template: clientTemplate("n"), client, rotated: (c) => handed.push(c.cert.toString()), clock, logger: silentLogger, random: () => 0 });
  const stop = new AbortController();
  const running = rotation.run(stop.signal);
  await clock.advance(rotationDeadline(first, 0) - first.notBefore - 1);
  assert.equal(csrs.size, 0, "no CSR before the deadline");
  await clock.advance(1);
  for (let i = 0; i < 400 && handed.length === 0; i++) await new Promise((r) => setTimeout(r, 10)).then(() => clock.advance(1000));
  stop.abort();
  await running;
  assert.equal(handed.length, 1);
  const [name, csr] = [...csrs][0]!;
  assert.match(name, /^csr-/);
  assert.equal(csr.signerName, KUBELET_CLIENT_SIGNER);
  const now = await store.current();
  assert.equal(now?.cert.toString(), handed[0]);
  assert.notEqual(now?.cert.toString(), first.cert.toString());
  assert.equal(new X509Certificate(now!.cert).subject, "O=system:nodes\nCN=system:node:n");
});

test("serving certificate (kubelet-serving): with none yet a CSR for the node's name, host name and IP goes out at once, and the issued certificate is stored and handed over", async () => {
  const dir = await tempDir();
  await mkdir(join(dir, "pki"), { mode: 0o700 });
  const sign = await ca(dir);
  const { server, csrs } = await csrServer(sign);
  const store = new CertificateStore(join(dir, "pki"), "kubelet-server");
  const client = new RestClient({ credentials: server.credentials, clock: systemClock });
  cleanups.push(async () => client.close());
  const handed: string[] = [];
  const rotation = new CertificateRotation({ store, template: servingTemplate("worker-7", ["worker-7"], ["192.168.1.20"]), client, rotated: (c) => handed.push(c.subject), clock: systemClock, logger: silentLogger, random: () => 0 });
  const stop = new AbortController();
  const running = rotation.run(stop.signal);
  for (let i = 0; i < 300 && handed.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  stop.abort();
  await running;
  assert.deepEqual(handed, ["O=system:nodes\nCN=system:node:worker-7"]);
  const [, csr] = [...csrs][0]!;
  assert.equal(csr.signerName, "kubernetes.io/kubelet-serving");
  assert.deepEqual(csr.usages, ["digital signature", "server auth"]);
  await writeFile(join(dir, "serving.csr"), Buffer.from(csr.request, "base64"));
  const { stdout } = await run("openssl", ["req", "-in", join(dir, "serving.csr"), "-noout", "-text"]);
  assert.match(stdout, /DNS:worker-7, IP Address:192\.168\.1\.20/);
  assert.match(await readlink(join(dir, "pki", "kubelet-server-current.pem")), /^kubelet-server-/);
});
