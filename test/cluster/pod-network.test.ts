// Pod IPs that Services can use: a probelet node on the process runtime, as root with the CNI
// plugins, gives every pod its own network namespace and IP on its bridge, so a Deployment's pods
// on one node get distinct pod IPs, and both the EndpointSlice controller and the core Endpoints
// controller (which refuses loopback addresses) list each of them.
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type ControlPlaneEnv } from "./control-plane-env.js";
import { admin, adminJson, type NodeAgent, waitFor } from "./node-agent.js";
import { PodNetworkNode, podNetworkNodeSkip } from "./pod-network-node.js";
import { parsePodCidr, cidrContains, type PodCidr } from "../../src/runtime/process/pod-cidr.js";

const NODE = "probelet-d";
const NAMESPACE = "probelet-podnet";
const POD_CIDR = "10.88.253.0/24";
const SPEC = { node: NODE, namespace: NAMESPACE, podCidr: POD_CIDR, taintValue: "pod-network" };
const skip = await podNetworkNodeSkip(SPEC);

interface PodJson {
  metadata: { name: string };
  spec: { nodeName?: string };
  status: { podIP?: string; podIPs?: { ip: string }[]; conditions?: { type: string; status: string }[] };
}
interface SliceJson { items: { endpoints?: { addresses: string[]; conditions: { ready?: boolean } }[] }[] }
interface EndpointsJson { subsets?: { addresses?: { ip: string }[] }[] }

let env: ControlPlaneEnv;
let own: PodNetworkNode;
let node: NodeAgent;
let work: string;

before(async () => {
  if (skip) return;
  own = await PodNetworkNode.start(SPEC);
  ({ env, agent: node, work } = own);
});

after(async () => {
  if (skip) return;
  await own?.stop();
});

test("a Deployment's process pods on one node get distinct pod IPs in --pod-cidr, and the EndpointSlice and the core Endpoints list each of them", { skip, timeout: 120_000 }, async () => {
  const server = `require("http").createServer((q, r) => r.end("ok")).listen(8080)`;
  const file = join(work, "web.yaml");
  await writeFile(file, `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      nodeSelector: {kubernetes.io/hostname: ${NODE}}
      tolerations: ${own.tolerations}
      terminationGracePeriodSeconds: 1
      containers:
      - name: web
        image: busybox
        command: ${JSON.stringify([process.execPath, "-e", server])}
        ports: [{containerPort: 8080}]
        readinessProbe: {httpGet: {port: 8080}, periodSeconds: 1}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
`);
  await admin(env, ["apply", "-n", NAMESPACE, "-f", file]);
  const pods = await waitFor("3 Ready web pods", 60_000, async () => {
    const list = await adminJson<{ items: PodJson[] }>(env, ["get", "pods", "-n", NAMESPACE, "-l", "app=web"]);
    const ready = list.items.filter((p) => p.status.conditions?.some((c) => c.type === "Ready" && c.status === "True"));
    return ready.length === 3 ? ready : undefined;
  }).catch((err: Error) => assert.fail(`${err.message}\n${node.log()}`));
  const ips = pods.map((p) => p.status.podIP ?? "");
  const cidr = parsePodCidr(POD_CIDR) as PodCidr;
  for (const pod of pods) {
    assert.equal(pod.spec.nodeName, NODE);
    assert.ok(cidrContains(cidr, pod.status.podIP ?? ""), `pod IP ${pod.status.podIP ?? "(none)"} is in ${POD_CIDR}`);
    assert.deepEqual(pod.status.podIPs, [{ ip: pod.status.podIP }]);
  }
  assert.equal(new Set(ips).size, 3, `distinct pod IPs: ${ips.join(", ")}`);
  const wanted = [...ips].sort();

  await waitFor("the EndpointSlice to list the 3 pod IPs as ready", 30_000, async () => {
    const slices = await adminJson<SliceJson>(env, ["get", "endpointslices", "-n", NAMESPACE, "-l", "kubernetes.io/service-name=web"]);
    const ready = slices.items.flatMap((s) => s.endpoints ?? []).filter((e) => e.conditions.ready === true).flatMap((e) => e.addresses).sort();
    return JSON.stringify(ready) === JSON.stringify(wanted) ? true : undefined;
  });
  await waitFor("the core Endpoints to list the 3 pod IPs", 30_000, async () => {
    const endpoints = await adminJson<EndpointsJson>(env, ["get", "endpoints", "-n", NAMESPACE, "web"]);
    const addresses = (endpoints.subsets ?? []).flatMap((s) => s.addresses ?? []).map((a) => a.ip).sort();
    return JSON.stringify(addresses) === JSON.stringify(wanted) ? true : undefined;
  });
});
