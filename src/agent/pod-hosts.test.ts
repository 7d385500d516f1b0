import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "../api/types.js";
import { managedHostsContent, podHostnameAndDomain, shouldMountHostsFile, writeHostsFile } from "./pod-hosts.js";

function pod(spec: Record<string, unknown> = {}, name = "web"): Pod {
  return { metadata: { name, namespace: "apps" }, spec: { containers: [{ name: "c" }], ...spec } as Pod["spec"] };
}

test("host name: hostnameOverride, else spec.hostname, else the name cut to 63 characters; the domain from the subdomain", () => {
  assert.deepEqual(podHostnameAndDomain(pod()), { hostname: "web", domain: "" });
  assert.deepEqual(podHostnameAndDomain(pod({ hostname: "h", subdomain: "s" })), { hostname: "h", domain: "s.apps.svc.cluster.local" });
  assert.deepEqual(podHostnameAndDomain(pod({ hostnameOverride: "node.example", subdomain: "s" })), { hostname: "node.example", domain: "" });
  assert.equal(podHostnameAndDomain(pod({}, `${"a".repeat(62)}-x`)).hostname, "a".repeat(62));
});

test("the managed hosts file: localhost lines, the pod's IP with its names, then the host aliases", () => {
  const text = managedHostsContent(pod({ hostname: "h", subdomain: "s", hostAliases: [{ ip: "123.45.67.89", hostnames: ["foo.local", "bar.local"] }] }), ["10.244.0.7"]);
  assert.equal(
    text,
    [
      "# Kubernetes-managed hosts file.",
      "127.0.0.1\tlocalhost",
      "::1\tlocalhost ip6-localhost ip6-loopback",
      "fe00::0\tip6-localnet",
      "fe00::0\tip6-mcastprefix",
      "fe00::1\tip6-allnodes",
      "fe00::2\tip6-allrouters",
      "10.244.0.7\th.s.apps.svc.cluster.local\th",
      "",
      "# Entries added by HostAliases.",
      "123.45.67.89\tfoo.local\tbar.local",
      "",
    ].join("\n"),
  );
  assert.equal(managedHostsContent(pod(), ["10.0.0.1"]).split("\n").at(-2), "10.0.0.1\tweb");
});

test("a host-network pod gets the node's file under its own header, with the aliases; a pod without an IP gets none", async () => {
  const dir = await mkdtemp(join(tmpdir(), "pod-hosts-"));
  try {
    await writeFile(join(dir, "node-hosts"), "127.0.0.1 localhost\n");
    const p = pod({ hostNetwork: true, hostAliases: [{ ip: "1.2.3.4", hostnames: ["a"] }] });
    writeHostsFile(join(dir, "etc-hosts"), p, [], join(dir, "node-hosts"));
    assert.equal(await readFile(join(dir, "etc-hosts"), "utf8"), "# Kubernetes-managed hosts file (host network).\n127.0.0.1 localhost\n\n# Entries added by HostAliases.\n1.2.3.4\ta\n");
    assert.equal((await stat(join(dir, "etc-hosts"))).mode & 0o777, 0o644);
    assert.equal(shouldMountHostsFile(p, []), true);
    assert.equal(shouldMountHostsFile(pod(), []), false);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
