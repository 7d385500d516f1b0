import assert from "node:assert/strict";
import { tmpdir } from "node:os";
import { test } from "node:test";
import { nodeUserAgent } from "./cluster-node.js";
import { nodeStatus, type NodeIdentity } from "./node-object.js";

const identity: NodeIdentity = {
  name: "probelet-a",
  internalIP: "192.168.1.20",
  hostname: "probelet-a",
  kubeletPort: 10250,
  containerRuntimeVersion: "containerd://2.1.4",
  kubeletVersion: "v1.37.2",
  stateDir: tmpdir(),
  taints: [],
};

test("setNodeStatus: declaredFeatures lists only what probelet does (RestartAllContainersOnContainerExits), and VersionInfo leaves kubeProxyVersion out (DisableNodeKubeProxyVersion)", () => {
  const status = nodeStatus(identity, { runtimeErrors: [] }, Date.UTC(2026, 10, 29), undefined);
  assert.deepEqual(status.declaredFeatures, ["RestartAllContainersOnContainerExits"]);
  assert.equal(status.nodeInfo["kubeletVersion"], "v1.37.2");
  assert.equal(status.nodeInfo["containerRuntimeVersion"], "containerd://2.1.4");
  assert.equal("kubeProxyVersion" in status.nodeInfo, false);
  assert.deepEqual(status.addresses, [{ type: "InternalIP", address: "192.168.1.20" }, { type: "Hostname", address: "probelet-a" }]);
});

test("nodeUserAgent has the shape of client-go's DefaultKubernetesUserAgent for the kubelet: kubelet/<version> (<os>/<arch>) kubernetes/<commit>", () => {
  assert.match(nodeUserAgent("v1.37.2"), /^kubelet\/v1\.37\.2 \(linux\/(amd64|arm64|386|arm|ppc64|s390x|riscv64)\) kubernetes\/probelet$/);
});
