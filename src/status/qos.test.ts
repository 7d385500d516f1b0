import assert from "node:assert/strict";
import { test } from "node:test";
import type { Container, Pod } from "../api/types.js";
import { buildPodStatus } from "../agent/pod-status.js";
import { podQOSClass } from "./qos.js";

function pod(containers: Partial<Container>[], initContainers: Partial<Container>[] = []): Pod {
  const named = (cs: Partial<Container>[], prefix: string): Container[] => cs.map((c, i) => ({ name: `${prefix}${i}`, ...c }));
  return { metadata: { name: "p" }, spec: { containers: named(containers, "c"), initContainers: named(initContainers, "i") } };
}

const both = (cpu: string, memory: string) => ({ cpu, memory });

test("QoS class: BestEffort without cpu or memory requests and limits (other resources and zeros do not count)", () => {
  assert.equal(podQOSClass(pod([{}])), "BestEffort");
  assert.equal(podQOSClass(pod([{ resources: { limits: { "ephemeral-storage": "1Gi" }, requests: { cpu: "0" } } }])), "BestEffort");
});

test("QoS class: Guaranteed when every container limits cpu and memory and requests equal limits (written differently, or defaulted from limits)", () => {
  assert.equal(podQOSClass(pod([{ resources: { limits: both("500m", "128Mi"), requests: both("0.5", "134217728") } }])), "Guaranteed");
  assert.equal(podQOSClass(pod([{ resources: { limits: both("1", "1Gi") } }])), "Guaranteed", "requests default to limits");
  assert.equal(podQOSClass(pod([{ resources: { limits: both("1", "1Gi") } }], [{ resources: { limits: both("100m", "64Mi") } }])), "Guaranteed");
});

test("QoS class: Burstable when a request differs from its limit, a container lacks a limit, or only requests are set", () => {
  assert.equal(podQOSClass(pod([{ resources: { limits: both("1", "1Gi"), requests: both("500m", "1Gi") } }])), "Burstable");
  assert.equal(podQOSClass(pod([{ resources: { limits: both("1", "1Gi") } }, {}])), "Burstable");
  assert.equal(podQOSClass(pod([{ resources: { limits: { cpu: "1" } } }])), "Burstable");
  assert.equal(podQOSClass(pod([{ resources: { requests: { memory: "64Mi" } } }])), "Burstable");
});

test("status.qosClass is set from the spec when the status is built and then kept (kubelet generateAPIPodStatus)", () => {
  const guaranteed = pod([{ resources: { limits: both("1", "1Gi") } }]);
  const input = { previous: undefined, initContainerStatuses: [], containerStatuses: [], podIP: "", hostIP: "", startTime: 0, now: 0 };
  assert.equal(buildPodStatus({ ...input, pod: guaranteed }).qosClass, "Guaranteed");
  assert.equal(buildPodStatus({ ...input, pod: guaranteed, previous: { qosClass: "Burstable" } }).qosClass, "Burstable");
});
