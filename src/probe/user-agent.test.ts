// One version, derived from KUBE_VERSION, in everything probelet reports (issue 31, item 10).
import assert from "node:assert/strict";
import { test } from "node:test";
import { startApiServer } from "../../test/servers/api-server.js";
import { KUBE_VERSION, KUBELET_VERSION, LIFECYCLE_USER_AGENT, PROBE_USER_AGENT } from "./user-agent.js";

/**
 * The grammar of apimachinery's util/version parse with semver=true (ParseSemantic): three
 * numeric components, an optional pre-release and optional build metadata.
 */
const SEMANTIC = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;

test("version.Get: probelet follows the kubelet v1.37.2 and reports v1.37.2+probelet, a semantic version equal in precedence to v1.37.2", () => {
  assert.deepEqual(KUBE_VERSION, { major: 1, minor: 37, patch: 2 });
  assert.equal(KUBELET_VERSION, "v1.37.2+probelet");
  const parts = SEMANTIC.exec(KUBELET_VERSION);
  assert.ok(parts, "parses as ParseSemantic does");
  // No pre-release: build metadata alone leaves the precedence of v1.37.2 (a "-probelet" would sort before it).
  assert.deepEqual(parts.slice(1, 5), ["1", "37", "2", undefined]);
  assert.equal(parts[5], "probelet");
});

test("userAgent: probes send kube-probe/1.37 and httpGet hooks kube-lifecycle/1.37", () => {
  assert.equal(PROBE_USER_AGENT, "kube-probe/1.37");
  assert.equal(LIFECYCLE_USER_AGENT, "kube-lifecycle/1.37");
});

test("the agent's API reports KUBELET_VERSION as /version's gitVersion, with major 1 and minor 37", async (t) => {
  const { call } = await startApiServer(t);
  const version = (await call("GET", "/version")).body;
  assert.equal(version["gitVersion"], KUBELET_VERSION);
  assert.equal(version["major"], "1");
  assert.equal(version["minor"], "37");
});
