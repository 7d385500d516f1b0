// Pod IPs that Services can use: a probelet node on the process runtime, as root with the CNI
// plugins, gives every pod its own network namespace and IP on its bridge, so a Deployment's pods
// on one node get distinct pod IPs, and both the EndpointSlice controller and the core Endpoints
// controller (which refuses loopback addresses) list each of them.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { kubectlEnv } from "../kube-clients/kubectl-env.js";
import { releasePodNetworks } from "../pod-network-cleanup.js";
import { kubectl, readControlPlaneEnv, type ControlPlaneEnv } from "./control-plane-env.js";
import { admin, adminJson, NodeAgent, waitFor } from "./node-agent.js";
import { PodNetwork } from "../../src/runtime/process/pod-network.js";
import { parsePodCidr, cidrContains, type PodCidr } from "../../src/runtime/process/pod-cidr.js";
import { supervisorAvailable } from "../../src/runtime/process/supervised-process.js";
import { systemClock } from "../../src/util/clock.js";
import { silentLogger } from "../../src/util/logger.js";

const NODE = "probelet-d";
const NAMESPACE = "probelet-podnet";
const POD_CIDR = "10.88.253.0/24";
/** A taint of this file's node, made before the agent registers: the scheduler's pods of other test files never land on it. */
const OWN_TAINT = { key: "probelet.dev/test-file", value: "pod-network", effect: "NoSchedule" };

async function networkSkip(): Promise<string | false> {
  if (!(await supervisorAvailable())) return "the supervisor helper is not built (no C compiler)";
  const reason = await new PodNetwork({ podCidr: POD_CIDR, bridge: "plpprobe" }, tmpdir(), () => Promise.reject(new Error("unused")), systemClock, silentLogger).unavailableReason();
  return reason ?? false;
}

const shared = readControlPlaneEnv();
const clients = kubectlEnv();
const missingNode = shared.env !== undefined && !shared.env.nodeKubeconfigs.has(NODE) ? `the control plane has no kubeconfig for node ${NODE} (PROBELET_CP_NODES)` : false;
const skip = shared.skip || clients.skip || missingNode || (await networkSkip());

interface PodJson {
  metadata: { name: string };
  spec: { nodeName?: string };
  status: { podIP?: string; podIPs?: { ip: string }[]; conditions?: { type: string; status: string }[] };
}
interface SliceJson { items: { endpoints?: { addresses: string[]; conditions: { ready?: boolean } }[] }[] }
interface EndpointsJson { subsets?: { addresses?: { ip: string }[] }[] }

let env: ControlPlaneEnv;
let node: NodeAgent;
let work: string;
let ipForward: string;

before(async () => {
  if (skip) return;
  env = shared.env!;
  work = await mkdtemp(join(tmpdir(), "probelet-cluster-podnet-"));
  ipForward = readFileSync("/proc/sys/net/ipv4/ip_forward", "utf8");
  await kubectl(env.adminKubeconfig, ["create", "namespace", NAMESPACE]);
  // The Node made beforehand with this file's taint: the agent's registration finds it, keeps its spec and patches its status.
  const nodeFile = join(work, "node.json");
  await writeFile(nodeFile, JSON.stringify({ apiVersion: "v1", kind: "Node", metadata: { name: NODE }, spec: { taints: [OWN_TAINT] } }));
  await admin(env, ["apply", "-f", nodeFile]);
  node = await NodeAgent.create(env, NODE, ["--pod-cidr", POD_CIDR]);
  node.start();
});

after(async () => {
  if (skip) return;
  // While the agent runs, so that it stops the namespace's pods and releases their networks.
  await kubectl(env.adminKubeconfig, ["delete", "namespace", NAMESPACE, "--timeout=25s"]);
  await node?.destroy();
  releasePodNetworks(join(node.stateDir, "state"));
  writeFileSync("/proc/sys/net/ipv4/ip_forward", ipForward);
  await kubectl(env.adminKubeconfig, ["delete", "node", NODE, "--wait=false"]);
  await rm(work, { recursive: true, force: true });
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
      tolerations: [{key: probelet.dev/runtime, operator: Equal, value: process, effect: NoSchedule}, {key: ${OWN_TAINT.key}, operator: Equal, value: ${OWN_TAINT.value}, effect: ${OWN_TAINT.effect}}]
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
