// The kubelet's NodePorts admission rule (nodeports.Fits, HostPortInfo.CheckConflict) and, beyond
// it, the probes that would reach another pod's server on a shared host network.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Container, Pod } from "../api/types.js";
import { fitsHostPorts, hostPortsOf, probePortsOfOthers } from "./node-ports.js";

function pod(name: string, containers: Container[], extra: Partial<Pod["spec"]> = {}): Pod {
  return { metadata: { name, namespace: "default" }, spec: { containers, ...extra } };
}
const serving = (name: string, port: number): Pod => pod(name, [{ name: "app", ports: [{ name: "http", containerPort: port }] }]);

test("on a shared host network two pods declaring the same containerPort conflict; with pod networks they do not", () => {
  assert.equal(fitsHostPorts(serving("b", 8080), [serving("a", 8080)], true), false);
  assert.equal(fitsHostPorts(serving("b", 8080), [serving("a", 8080)], false), true);
  assert.equal(fitsHostPorts(serving("b", 8081), [serving("a", 8080)], true), true);
});

test("hostPorts conflict on any network; UDP and TCP on one port do not; 0.0.0.0 conflicts with every address, two addresses do not", () => {
  const host = (name: string, hostIP: string, protocol = "TCP"): Pod => pod(name, [{ name: "app", ports: [{ containerPort: 80, hostPort: 8080, hostIP, protocol }] }]);
  assert.equal(fitsHostPorts(host("b", ""), [host("a", "")], false), false);
  assert.equal(fitsHostPorts(host("b", "", "UDP"), [host("a", "")], false), true);
  assert.equal(fitsHostPorts(host("b", "127.0.0.1"), [host("a", "0.0.0.0")], false), false);
  assert.equal(fitsHostPorts(host("b", "0.0.0.0"), [host("a", "10.0.0.1")], false), false);
  assert.equal(fitsHostPorts(host("b", "127.0.0.1"), [host("a", "10.0.0.1")], false), true);
});

test("only regular and restartable init containers hold ports (GetHostPorts)", () => {
  const init = (restartPolicy?: "Always"): Pod => pod("i", [{ name: "app" }], { initContainers: [{ name: "setup", ...(restartPolicy ? { restartPolicy } : {}), ports: [{ containerPort: 9000 }] }] });
  assert.deepEqual(hostPortsOf(init(), true), []);
  assert.deepEqual(hostPortsOf(init("Always"), true), [{ hostIP: "0.0.0.0", protocol: "TCP", port: 9000 }]);
});

test("a probe aimed at a port another pod declares, and not its own, is named on a shared network only", () => {
  const prober = pod("b", [{ name: "app", readinessProbe: { httpGet: { path: "/", port: 8080 } }, livenessProbe: { tcpSocket: { port: 9090 } } }]);
  assert.deepEqual(probePortsOfOthers(prober, [serving("a", 8080)], true), [
    "Readiness probe of container app dials port 8080, a port of pod default/a: it can succeed through that pod's server",
  ]);
  assert.deepEqual(probePortsOfOthers(prober, [serving("a", 8080)], false), []);
  const own = pod("b", [{ name: "app", ports: [{ name: "http", containerPort: 8080 }], readinessProbe: { httpGet: { path: "/", port: "http" } } }]);
  assert.deepEqual(probePortsOfOthers(own, [serving("a", 8080)], true), [], "its own port");
  const elsewhere = pod("b", [{ name: "app", readinessProbe: { httpGet: { host: "10.0.0.9", path: "/", port: 8080 } } }]);
  assert.deepEqual(probePortsOfOthers(elsewhere, [serving("a", 8080)], true), [], "another host");
});
