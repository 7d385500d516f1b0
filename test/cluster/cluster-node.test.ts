// probelet as a node of a real v1.37.2 control plane (scripts/control-plane.sh): two agents on
// the process runtime, each authenticated as system:node:<name> with only what the Node
// authorizer and NodeRestriction give a kubelet, run the scheduler's pods, and kubectl, the
// EndpointSlice controller and the node controller see them as they would see a kubelet's.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile, unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { kubectl, readControlPlaneEnv, type ControlPlaneEnv } from "./control-plane-env.js";
import { admin, adminJson, NodeAgent, waitFor } from "./node-agent.js";

const shared = readControlPlaneEnv();
const missingNodes = shared.env !== undefined && !(shared.env.nodeKubeconfigs.has("probelet-a") && shared.env.nodeKubeconfigs.has("probelet-b")) ? "the control plane has no kubeconfigs for nodes probelet-a and probelet-b" : false;
const skip = shared.skip || missingNodes;
const criSkip = skip || (process.env["PROBELET_CRI_SOCKET"] ? false : "the private containerd is not running (source /tmp/cri-env.sh after scripts/containerd.sh start)");
/** The busybox image scripts/containerd.sh builds (test/e2e/cri-pod-kit.ts). */
const CRI_BUSYBOX_IMAGE = "localhost/probelet/busybox:1";

interface Condition { type: string; status: string; reason?: string }
interface PodJson {
  metadata: { name: string; uid: string; deletionTimestamp?: string };
  spec: { nodeName?: string };
  status: { phase?: string; podIP?: string; conditions?: Condition[]; containerStatuses?: { restartCount: number; imageID?: string; lastState?: { terminated?: { exitCode: number; reason?: string } } }[] };
}
interface NodeJson { spec: { taints?: { key: string; value?: string; effect: string }[] }; status: { conditions: Condition[]; daemonEndpoints: { kubeletEndpoint: { Port: number } } } }
interface SliceJson { items: { endpoints?: { addresses: string[]; conditions: { ready?: boolean }; targetRef?: { name: string } }[] }[] }

const NAMESPACE = "probelet-e2e";
const TOLERATION = `tolerations: [{key: probelet.dev/runtime, operator: Equal, value: process, effect: NoSchedule}]`;

let env: ControlPlaneEnv;
let nodeA: NodeAgent;
let nodeB: NodeAgent;
let criNode: NodeAgent | undefined;
let work: string;

function condition(conditions: Condition[] | undefined, type: string): string | undefined {
  return conditions?.find((c) => c.type === type)?.status;
}

async function nodeReady(name: string): Promise<string | undefined> {
  const node = await adminJson<NodeJson>(env, ["get", "node", name]);
  return condition(node.status.conditions, "Ready");
}

async function apply(name: string, yaml: string): Promise<void> {
  const file = join(work, `${name}.yaml`);
  await writeFile(file, yaml);
  await admin(env, ["apply", "-n", NAMESPACE, "-f", file]);
}

async function pod(name: string): Promise<PodJson | undefined> {
  const got = await kubectl(env.adminKubeconfig, ["get", "pod", "-n", NAMESPACE, name, "-o", "json"]);
  if (got.code !== 0) {
    if (got.stderr.includes("NotFound")) return undefined;
    throw new Error(got.stderr);
  }
  return JSON.parse(got.stdout) as PodJson;
}

async function podReady(name: string): Promise<string | undefined> {
  return condition((await pod(name))?.status.conditions, "Ready");
}

before(async () => {
  if (skip) return;
  env = shared.env!;
  work = await mkdtemp(join(tmpdir(), "probelet-cluster-e2e-"));
  await kubectl(env.adminKubeconfig, ["create", "namespace", NAMESPACE]);
  const staticManifest = join(work, "static.yaml");
  await writeFile(staticManifest, `apiVersion: v1
kind: Pod
metadata: {name: static-web, namespace: ${NAMESPACE}}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: app
    image: busybox
    command: ["sh", "-c", "echo static; exec sleep 3600"]
    readinessProbe: {exec: {command: ["true"]}, periodSeconds: 1}
`);
  nodeA = await NodeAgent.create(env, "probelet-a", ["-f", staticManifest]);
  nodeB = await NodeAgent.create(env, "probelet-b");
  nodeA.start();
  nodeB.start();
});

after(async () => {
  if (skip) return;
  // While the agents run, so that they finish the namespace's pods and remove their mirror pods.
  await kubectl(env.adminKubeconfig, ["delete", "namespace", NAMESPACE, "--timeout=25s"]);
  await nodeA?.destroy();
  await nodeB?.destroy();
  await criNode?.destroy();
  for (const name of ["probelet-a", "probelet-b"]) await kubectl(env.adminKubeconfig, ["delete", "node", name, "--wait=false"]);
  await rm(work, { recursive: true, force: true });
});

test("a node registers with only node permissions, carries the process runtime taint, and stays Ready across status and lease periods", { skip, timeout: 90_000 }, async () => {
  await waitFor("probelet-a Ready", 40_000, async () => ((await nodeReady("probelet-a")) === "True" ? true : undefined)).catch((err: Error) => assert.fail(`${err.message}\n${nodeA.log()}`));
  const node = await adminJson<NodeJson>(env, ["get", "node", "probelet-a"]);
  assert.deepEqual(node.spec.taints?.filter((t) => t.key === "probelet.dev/runtime"), [{ key: "probelet.dev/runtime", value: "process", effect: "NoSchedule" }]);
  assert.equal(node.status.daemonEndpoints.kubeletEndpoint.Port, nodeA.kubeletPort);
  const lease1 = await adminJson<{ spec: { holderIdentity: string; renewTime: string; leaseDurationSeconds: number } }>(env, ["get", "lease", "-n", "kube-node-lease", "probelet-a"]);
  assert.equal(lease1.spec.holderIdentity, "probelet-a");
  assert.equal(lease1.spec.leaseDurationSeconds, 40);
  // One lease period and one status period later: still Ready, lease renewed.
  await delay(12_000);
  assert.equal(await nodeReady("probelet-a"), "True");
  const lease2 = await adminJson<{ spec: { renewTime: string } }>(env, ["get", "lease", "-n", "kube-node-lease", "probelet-a"]);
  assert.ok(Date.parse(lease2.spec.renewTime) > Date.parse(lease1.spec.renewTime), `lease not renewed: ${lease1.spec.renewTime} → ${lease2.spec.renewTime}`);
  // The node's identity cannot touch another node's object (Node authorizer).
  const other = await kubectl(env.nodeKubeconfigs.get("probelet-a")!, ["label", "node", "probelet-b", "x=y"]);
  assert.notEqual(other.code, 0);
  assert.match(other.stderr, /forbidden/);
});

test("a static manifest appears in the API server as a mirror pod owned by the Node, with the static pod's Ready status and logs", { skip, timeout: 60_000 }, async () => {
  const mirror = await waitFor("static-web Ready in the API server", 40_000, async () => {
    const got = await pod("static-web");
    return condition(got?.status.conditions, "Ready") === "True" ? got : undefined;
  });
  const meta = mirror.metadata as PodJson["metadata"] & { annotations?: Record<string, string>; ownerReferences?: { kind: string; name: string }[] };
  assert.ok(meta.annotations?.["kubernetes.io/config.mirror"] !== undefined);
  assert.deepEqual(meta.ownerReferences?.map((o) => `${o.kind}/${o.name}`), ["Node/probelet-a"]);
  assert.equal(mirror.spec.nodeName, "probelet-a");
  assert.equal(await admin(env, ["logs", "-n", NAMESPACE, "static-web"]), "static\n");
});

test("a 3-replica deployment lands on both probelet nodes, its pods become Ready in the API server and the EndpointSlice lists them ready at their pod IPs", { skip, timeout: 120_000 }, async () => {
  await waitFor("both nodes Ready", 40_000, async () => ((await nodeReady("probelet-a")) === "True" && (await nodeReady("probelet-b")) === "True" ? true : undefined));
  await apply("web", `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      ${TOLERATION}
      terminationGracePeriodSeconds: 5
      containers:
      - name: web
        image: busybox
        command: ["sleep", "3600"]
        readinessProbe: {exec: {command: ["true"]}, periodSeconds: 1}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80}]
`);
  const pods = await waitFor("3 Ready web pods", 60_000, async () => {
    const list = await adminJson<{ items: PodJson[] }>(env, ["get", "pods", "-n", NAMESPACE, "-l", "app=web"]);
    const ready = list.items.filter((p) => condition(p.status.conditions, "Ready") === "True");
    return ready.length === 3 ? ready : undefined;
  });
  assert.deepEqual(new Set(pods.map((p) => p.spec.nodeName)), new Set(["probelet-a", "probelet-b"]));
  // As root with the CNI plugins each process pod has its own IP (pod-network.test.ts checks them);
  // otherwise pods share their node's network and their address is the node's InternalIP, of which
  // the EndpointSlice controller keeps one endpoint per address (measured on 1.20). Either way every ready
  // endpoint is at a web pod's status.podIP.
  const names = new Set(pods.map((p) => p.metadata.name));
  await waitFor("ready endpoints of the web pods at their pod IPs", 30_000, async () => {
    const slices = await adminJson<SliceJson>(env, ["get", "endpointslices", "-n", NAMESPACE, "-l", "kubernetes.io/service-name=web"]);
    const ready = slices.items.flatMap((s) => s.endpoints ?? []).filter((e) => e.conditions.ready === true && names.has(e.targetRef?.name ?? ""));
    return ready.length > 0 && ready.every((e) => pods.some((p) => p.status.podIP === e.addresses[0])) ? true : undefined;
  });
  await admin(env, ["delete", "deployment", "-n", NAMESPACE, "web"]);
});

test("a readiness failure takes the pod out of the EndpointSlice and a success puts it back", { skip, timeout: 90_000 }, async () => {
  const marker = join(work, "ready-marker");
  await writeFile(marker, "");
  await apply("flip", `apiVersion: v1
kind: Pod
metadata: {name: flip, labels: {app: flip}}
spec:
  nodeName: probelet-a
  ${TOLERATION}
  terminationGracePeriodSeconds: 5
  containers:
  - name: app
    image: busybox
    command: ["sleep", "3600"]
    readinessProbe: {exec: {command: ["test", "-f", "${marker}"]}, periodSeconds: 1, failureThreshold: 1}
---
apiVersion: v1
kind: Service
metadata: {name: flip}
spec:
  selector: {app: flip}
  ports: [{port: 80}]
`);
  const endpointReady = async (): Promise<boolean | undefined> => {
    const slices = await adminJson<SliceJson>(env, ["get", "endpointslices", "-n", NAMESPACE, "-l", "kubernetes.io/service-name=flip"]);
    return slices.items.flatMap((s) => s.endpoints ?? []).find((e) => e.targetRef?.name === "flip")?.conditions.ready;
  };
  await waitFor("flip ready in the EndpointSlice", 40_000, async () => ((await endpointReady()) === true ? true : undefined));
  await unlink(marker);
  await waitFor("flip not Ready in the API server", 10_000, async () => ((await podReady("flip")) === "False" ? true : undefined));
  await waitFor("flip not ready in the EndpointSlice", 15_000, async () => ((await endpointReady()) === false ? true : undefined));
  await writeFile(marker, "");
  await waitFor("flip Ready again", 10_000, async () => ((await podReady("flip")) === "True" ? true : undefined));
  await waitFor("flip ready again in the EndpointSlice", 15_000, async () => ((await endpointReady()) === true ? true : undefined));
});

test("a liveness failure restarts the container and the API server shows the restart count and the last state", { skip, timeout: 90_000 }, async () => {
  await apply("crashy", `apiVersion: v1
kind: Pod
metadata: {name: crashy}
spec:
  nodeName: probelet-b
  ${TOLERATION}
  terminationGracePeriodSeconds: 2
  containers:
  - name: app
    image: busybox
    command: ["sh", "-c", "echo started; exec sleep 3600"]
    livenessProbe: {exec: {command: ["false"]}, periodSeconds: 1, failureThreshold: 2}
`);
  const restarted = await waitFor("a restart of crashy", 60_000, async () => {
    const status = (await pod("crashy"))?.status.containerStatuses?.[0];
    return status !== undefined && status.restartCount >= 1 && status.lastState?.terminated !== undefined ? status : undefined;
  });
  // The liveness kill sends TERM first: `sleep` dies of it (128 + 15).
  assert.equal(restarted.lastState?.terminated?.exitCode, 143);
  assert.equal(restarted.lastState?.terminated?.reason, "Error");
  const events = await admin(env, ["get", "events", "-n", NAMESPACE, "--field-selector", "involvedObject.name=crashy", "-o", "jsonpath={.items[*].reason}"]);
  assert.match(events, /Unhealthy/);
  assert.match(events, /Killing/);
});

test("kubectl logs reads a container's log through the API server and the node's daemon endpoint", { skip, timeout: 60_000 }, async () => {
  await apply("talker", `apiVersion: v1
kind: Pod
metadata: {name: talker}
spec:
  nodeName: probelet-a
  ${TOLERATION}
  terminationGracePeriodSeconds: 1
  containers:
  - name: app
    image: busybox
    command: ["sh", "-c", "for i in 1 2 3; do echo line $i; done; exec sleep 3600"]
`);
  const logs = await waitFor("talker's log", 30_000, async () => {
    const got = await kubectl(env.adminKubeconfig, ["logs", "-n", NAMESPACE, "talker", "--tail=2"]);
    return got.code === 0 && got.stdout.includes("line 3") ? got.stdout : undefined;
  });
  assert.equal(logs, "line 2\nline 3\n");
  // Anyone without the API server's client certificate is refused by the daemon endpoint.
  const direct = await fetch(`https://127.0.0.1:${nodeA.kubeletPort}/pods`).then(() => "answered", (err: Error) => String(err.cause ?? err.message));
  assert.notEqual(direct, "answered");
});

test("kubectl delete pod terminates it gracefully and the pod leaves the API server only after its container stopped", { skip, timeout: 60_000 }, async () => {
  const stopped = join(work, "graceful-stopped");
  await apply("graceful", `apiVersion: v1
kind: Pod
metadata: {name: graceful}
spec:
  nodeName: probelet-b
  ${TOLERATION}
  terminationGracePeriodSeconds: 10
  containers:
  - name: app
    image: busybox
    command: ["sh", "-c", "trap 'sleep 2; touch ${stopped}; exit 0' TERM; while true; do sleep 0.2; done"]
`);
  await waitFor("graceful running", 30_000, async () => ((await pod("graceful"))?.status.phase === "Running" ? true : undefined));
  await admin(env, ["delete", "pod", "-n", NAMESPACE, "graceful", "--wait=false"]);
  // While the container runs its TERM handler the pod is still in the API server, being deleted.
  const deleting = await pod("graceful");
  assert.ok(deleting?.metadata.deletionTimestamp !== undefined, "the pod should be terminating");
  assert.equal(existsSync(stopped), false);
  await waitFor("graceful gone from the API server", 30_000, async () => ((await pod("graceful")) === undefined ? true : undefined));
  assert.equal(existsSync(stopped), true, "the pod left the API server before its container stopped");
});

test("kill -9 of the agent and a restart re-adopt the running pod with no Ready flap in the API server", { skip, timeout: 120_000 }, async () => {
  await apply("steady", `apiVersion: v1
kind: Pod
metadata: {name: steady}
spec:
  nodeName: probelet-a
  ${TOLERATION}
  terminationGracePeriodSeconds: 1
  containers:
  - name: app
    image: busybox
    command: ["sleep", "3600"]
    readinessProbe: {exec: {command: ["true"]}, periodSeconds: 1}
`);
  await waitFor("steady Ready", 30_000, async () => ((await podReady("steady")) === "True" ? true : undefined));
  // A container that started less than 10 s before the agent restarted gets its probes' initial
  // values again, as in the kubelet (worker-policy.ts survivedManagerRestart): let it age first.
  await delay(11_000);
  const before = await pod("steady");
  // The watch ends by itself after 25 s (kubectl --request-timeout), past the restart and a status sync.
  const watch = kubectl(env.adminKubeconfig, ["get", "pod", "-n", NAMESPACE, "steady", "-w", "--request-timeout=25s", "-o", "jsonpath={.status.conditions[?(@.type==\"Ready\")].status} {.status.containerStatuses[0].restartCount}{\"\\n\"}"]);
  await delay(1000);
  await nodeA.kill("SIGKILL");
  await delay(2000);
  nodeA.start();
  await waitFor("probelet-a's lease renewed by the new agent", 15_000, async () => {
    const lease = await adminJson<{ spec: { renewTime: string } }>(env, ["get", "lease", "-n", "kube-node-lease", "probelet-a"]);
    return Date.now() - Date.parse(lease.spec.renewTime) < 4000 ? true : undefined;
  });
  const lines = (await watch).stdout.split("\n").filter(Boolean);
  assert.ok(lines.length > 0);
  assert.deepEqual(lines.filter((l) => l !== "True 0"), [], `Ready flapped: ${lines.join(" | ")}`);
  const afterRestart = await pod("steady");
  assert.equal(afterRestart?.metadata.uid, before?.metadata.uid);
  assert.equal(afterRestart?.status.containerStatuses?.[0]?.restartCount, 0);
});

test("an agent stopped longer than the node grace turns its node NotReady, and Ready again once it is back", { skip, timeout: 180_000 }, async () => {
  await waitFor("probelet-b Ready", 30_000, async () => ((await nodeReady("probelet-b")) === "True" ? true : undefined));
  await nodeB.kill("SIGKILL");
  await waitFor("probelet-b not Ready", 120_000, async () => ((await nodeReady("probelet-b")) === "Unknown" ? true : undefined));
  nodeB.start();
  await waitFor("probelet-b Ready again", 40_000, async () => ((await nodeReady("probelet-b")) === "True" ? true : undefined));
});

test("on CRI, a pod bound to the node runs in containerd with its projected service-account token mounted, becomes Ready in the API server at the node's address with containerd's imageID, and kubectl logs reads it", { skip: criSkip, timeout: 120_000 }, async () => {
  // probelet-b moves to the CRI runtime: a fresh Node (taints are set at registration only).
  await nodeB.kill("SIGTERM");
  await admin(env, ["delete", "node", "probelet-b"]);
  criNode = await NodeAgent.create(env, "probelet-b", ["--runtime", "cri"]);
  criNode.start();
  await waitFor("probelet-b Ready on CRI", 40_000, async () => ((await nodeReady("probelet-b")) === "True" ? true : undefined)).catch((err: Error) => assert.fail(`${err.message}\n${criNode?.log() ?? ""}`));
  const node = await adminJson<NodeJson & { status: { nodeInfo: { containerRuntimeVersion: string } } }>(env, ["get", "node", "probelet-b"]);
  assert.match(node.status.nodeInfo.containerRuntimeVersion, /^containerd:\/\//);
  assert.equal(node.spec.taints?.some((t) => t.key === "probelet.dev/runtime") ?? false, false);
  await apply("cri-web", `apiVersion: v1
kind: Pod
metadata: {name: cri-web}
spec:
  nodeName: probelet-b
  hostNetwork: true
  terminationGracePeriodSeconds: 5
  containers:
  - name: app
    image: ${CRI_BUSYBOX_IMAGE}
    imagePullPolicy: Never
    command: ["sh", "-c", "echo hello from containerd in $(cat /var/run/secrets/kubernetes.io/serviceaccount/namespace); trap 'exit 0' TERM; while :; do sleep 1 & wait $!; done"]
    readinessProbe: {exec: {command: ["true"]}, periodSeconds: 1}
`);
  const ready = await waitFor("cri-web Ready", 60_000, async () => {
    const got = await pod("cri-web");
    return condition(got?.status.conditions, "Ready") === "True" ? got : undefined;
  });
  assert.ok(ready.status.podIP !== undefined && ready.status.podIP !== "" && ready.status.podIP !== "127.0.0.1", `pod IP ${ready.status.podIP ?? "(none)"}`);
  // kubelet convertToAPIContainerStatuses: imageID is containerd's image_ref.
  assert.match(ready.status.containerStatuses?.[0]?.imageID ?? "", /^(sha256:[0-9a-f]{64}|\S+@sha256:[0-9a-f]{64})$/);
  const logs = await admin(env, ["logs", "-n", NAMESPACE, "cri-web"]);
  assert.equal(logs, `hello from containerd in ${NAMESPACE}\n`);
});

test("on CRI, a liveness failure restarts the container, the API server shows it, and kubectl delete pod removes the pod", { skip: criSkip, timeout: 120_000 }, async () => {
  assert.ok(criNode !== undefined, "needs the CRI node of the previous test");
  await apply("cri-crashy", `apiVersion: v1
kind: Pod
metadata: {name: cri-crashy}
spec:
  nodeName: probelet-b
  hostNetwork: true
  terminationGracePeriodSeconds: 5
  containers:
  - name: app
    image: ${CRI_BUSYBOX_IMAGE}
    imagePullPolicy: Never
    command: ["sh", "-c", "trap 'exit 0' TERM; while :; do sleep 1 & wait $!; done"]
    livenessProbe: {exec: {command: ["false"]}, periodSeconds: 1, failureThreshold: 2}
`);
  await waitFor("a restart of cri-crashy in the API server", 60_000, async () => {
    const status = (await pod("cri-crashy"))?.status.containerStatuses?.[0];
    return status !== undefined && status.restartCount >= 1 && status.lastState?.terminated !== undefined ? true : undefined;
  });
  await admin(env, ["delete", "pod", "-n", NAMESPACE, "cri-crashy", "--wait=false"]);
  await waitFor("cri-crashy gone from the API server", 30_000, async () => ((await pod("cri-crashy")) === undefined ? true : undefined));
});
