import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { request } from "node:https";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { loadOrCreateServingCert } from "../server/serving-cert.js";
import { silentLogger } from "../util/logger.js";
import { FakeAgentApi } from "../../test/fakes/fake-agent-api.js";
import { startKubeletServer, type KubeletServer } from "./kubelet-server.js";

const run = promisify(execFile);
let dir: string;
let server: KubeletServer;
let serverCa: Buffer;
let client: { cert: Buffer; key: Buffer };
let stranger: { cert: Buffer; key: Buffer };
const agent = new FakeAgentApi();

/** issue makes a CA and a client certificate it signs, with openssl(1). */
async function issue(name: string): Promise<{ ca: Buffer; cert: Buffer; key: Buffer }> {
  const f = (ext: string): string => join(dir, `${name}.${ext}`);
  await run("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", f("ca.key"), "-out", f("ca.crt"), "-subj", `/CN=${name}-ca`, "-days", "1"]);
  await run("openssl", ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", f("key"), "-out", f("csr"), "-subj", `/CN=${name}`]);
  await run("openssl", ["x509", "-req", "-in", f("csr"), "-CA", f("ca.crt"), "-CAkey", f("ca.key"), "-CAcreateserial", "-out", f("crt"), "-days", "1"]);
  return { ca: await readFile(f("ca.crt")), cert: await readFile(f("crt")), key: await readFile(f("key")) };
}

function get(path: string, identity: { cert: Buffer; key: Buffer } | undefined): Promise<{ code: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: server.port, path, ca: serverCa, ...(identity ?? {}) }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ code: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "probelet-kubelet-server-"));
  const apiserver = await issue("apiserver");
  const other = await issue("other");
  client = { cert: apiserver.cert, key: apiserver.key };
  stranger = { cert: other.cert, key: other.key };
  const serving = await loadOrCreateServingCert(dir, ["127.0.0.1"]);
  serverCa = serving.cert;
  agent.addPod({ metadata: { name: "web", namespace: "default", uid: "u1" }, spec: { containers: [{ name: "app", image: "busybox" }] } });
  agent.appendLog("default", "web", "app", "one");
  agent.appendLog("default", "web", "app", "two");
  server = await startKubeletServer({ agent, host: "127.0.0.1", port: 0, cert: serving.cert, key: serving.key, clientCa: apiserver.ca, logger: silentLogger });
});

after(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

test("a client certificate signed by the client CA reads /healthz, /pods and a container's log with tailLines", async () => {
  assert.deepEqual(await get("/healthz", client), { code: 200, body: "ok" });
  const pods = JSON.parse((await get("/pods", client)).body) as { kind: string; items: { metadata: { name: string } }[] };
  assert.equal(pods.kind, "PodList");
  assert.deepEqual(pods.items.map((p) => p.metadata.name), ["web"]);
  assert.deepEqual(await get("/containerLogs/default/web/app?tailLines=1", client), { code: 200, body: "two\n" });
  assert.equal((await get("/containerLogs/default/nope/app", client)).code, 404);
  assert.equal((await get("/containerLogs/default/web/app?tailLines=x", client)).code, 400);
});

test("a client without a certificate, or with one from another CA, is refused in the TLS handshake", async () => {
  await assert.rejects(get("/pods", undefined));
  await assert.rejects(get("/pods", stranger));
});

test("a malformed percent escape is answered 400, not a hung connection; a silent connection is cut off after the TLS handshake timeout", { timeout: 20_000 }, async () => {
  for (const path of ["/containerLogs/default/web/%zz", "/containerLogs/%E0%A4%A/web/app"]) {
    const answer = await Promise.race([get(path, client), new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 5000))]);
    assert.equal(answer?.code, 400, `${path} must be answered`);
    assert.match(answer?.body ?? "", /invalid URL escape/);
  }
  const silent = connect(server.port, "127.0.0.1");
  const started = performance.now();
  const closed = await new Promise<boolean>((resolve) => {
    silent.once("close", () => resolve(true));
    silent.on("error", () => undefined);
    setTimeout(() => resolve(false), 15_000);
  });
  silent.destroy();
  assert.ok(closed, "a connection that never starts its handshake is closed");
  assert.ok(performance.now() - started < 10_000, `closed after ${Math.round(performance.now() - started)} ms`);
});
