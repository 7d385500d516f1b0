import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { KubeconfigError, loadKubeconfig, parseKubeconfig } from "./kubeconfig.js";

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "probelet-kubeconfig-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

function config(cluster: string, user: string): string {
  return `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
${cluster}
users:
- name: u
  user:
${user}
contexts:
- name: ctx
  context: {cluster: c, user: u}
current-context: ctx
`;
}

test("a kubeconfig with a CA file and a token file relative to it resolves the server, the CA and the token", async () => {
  await writeFile(join(dir, "ca.crt"), "CA PEM");
  await writeFile(join(dir, "node.token"), "s3cret\n");
  const file = join(dir, "node.kubeconfig");
  await writeFile(file, config("    server: https://127.0.0.1:6443/\n    certificate-authority: ca.crt", "    tokenFile: node.token"));
  const got = await loadKubeconfig(file);
  assert.equal(got.server, "https://127.0.0.1:6443");
  assert.equal(got.ca?.toString(), "CA PEM");
  assert.equal(got.token, "s3cret");
  assert.equal(got.insecureSkipTlsVerify, false);
});

test("inline client certificate data is decoded from base64", async () => {
  const data = (s: string): string => Buffer.from(s).toString("base64");
  const got = await parseKubeconfig(config("    server: https://h:1", `    client-certificate-data: ${data("CERT")}\n    client-key-data: ${data("KEY")}`), "k");
  assert.equal(got.clientCert?.toString(), "CERT");
  assert.equal(got.clientKey?.toString(), "KEY");
});

test("a kubeconfig that is not YAML, lacks a server, names a missing context or asks for an exec plugin fails with the file and field", async () => {
  const cases: [string, RegExp][] = [
    ["clusters: [", /^k: not a kubeconfig: /],
    ["- a\n- b", /^k: not a kubeconfig: expected a map/],
    [config("    insecure-skip-tls-verify: false", "    token: t"), /^k: clusters\[name=c\]\.cluster\.server: Required value$/],
    [config("    server: http://h:1", "    token: t"), /only https servers are supported/],
    [config("    server: https://h:1", "    exec: {command: aws}"), /users\[name=u\]\.user\.exec: not supported/],
    [config("    server: https://h:1\n    insecure-skip-tls-verify: true\n    certificate-authority-data: Q0E=", "    token: t"), /insecure flag is not allowed/],
    [config("    server: https://h:1", "    client-certificate-data: Q0U="), /client-certificate and client-key go together/],
    [config("    server: https://h:1", "    token: t").replace("current-context: ctx", "current-context: other"), /^k: contexts: no context named "other"$/],
  ];
  for (const [text, expected] of cases) {
    await assert.rejects(parseKubeconfig(text, "k"), (err: Error) => err instanceof KubeconfigError && expected.test(err.message), text);
  }
});

test("a token file that cannot be read is named in the error", async () => {
  await assert.rejects(parseKubeconfig(config("    server: https://h:1", "    tokenFile: /nonexistent/token"), join(dir, "k")), /tokenFile: cannot read \/nonexistent\/token/);
});
