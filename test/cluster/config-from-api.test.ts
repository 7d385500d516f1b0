// ConfigMaps and Secrets in cluster mode against a real v1.37.2 control plane
// (scripts/control-plane.sh): a probelet node authenticated as system:node:probelet-c reads the
// ones its pods reference from the API server (the Node authorizer lets it read exactly those),
// for env, envFrom and volumes; a ConfigMap change reaches the mounted file; a missing ConfigMap
// holds the container in CreateContainerConfigError until it is created.
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { kubectl, readControlPlaneEnv, type ControlPlaneEnv } from "./control-plane-env.js";
import { admin, adminJson, NodeAgent, waitFor } from "./node-agent.js";

/** The node of this file: kept unschedulable, so the scheduler's pods of other test files never land on it. */
const NODE = "probelet-c";
const NAMESPACE = "probelet-config";
const SECRET_VALUE = "s3cr3t-v4lue";

const shared = readControlPlaneEnv();
const missingNode = shared.env !== undefined && !shared.env.nodeKubeconfigs.has(NODE) ? `the control plane has no kubeconfig for node ${NODE}` : false;
const skip = shared.skip || missingNode;

interface ContainerStatusJson { state?: { running?: object; waiting?: { reason?: string; message?: string } } }
interface PodJson { status: { phase?: string; reason?: string; message?: string; containerStatuses?: ContainerStatusJson[] } }

let env: ControlPlaneEnv;
let node: NodeAgent;
let work: string;

async function apply(name: string, yaml: string): Promise<void> {
  const file = join(work, `${name}.yaml`);
  await writeFile(file, yaml);
  await admin(env, ["apply", "-f", file]);
}

/** podYaml is a process-runtime pod bound to the node, tolerating its taint. */
function podYaml(name: string, container: string, volumes = ""): string {
  return `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: ${NAMESPACE}}
spec:
  nodeName: ${NODE}
  terminationGracePeriodSeconds: 1
  tolerations: [{key: probelet.dev/runtime, operator: Equal, value: process, effect: NoSchedule}]
  containers:
${container}
${volumes}`;
}

async function containerState(pod: string): Promise<ContainerStatusJson["state"]> {
  const got = await adminJson<PodJson>(env, ["get", "pod", "-n", NAMESPACE, pod]);
  return got.status.containerStatuses?.[0]?.state;
}

async function logs(pod: string): Promise<string> {
  const got = await kubectl(env.adminKubeconfig, ["logs", "-n", NAMESPACE, pod]);
  return got.code === 0 ? got.stdout : "";
}

before(async () => {
  if (skip) return;
  env = shared.env!;
  work = await mkdtemp(join(tmpdir(), "probelet-config-e2e-"));
  // The Node made beforehand as unschedulable: the agent's registration finds it and patches its status.
  await apply("node", `apiVersion: v1\nkind: Node\nmetadata: {name: ${NODE}}\nspec: {unschedulable: true}\n`);
  await kubectl(env.adminKubeconfig, ["create", "namespace", NAMESPACE]);
  await admin(env, ["create", "configmap", "-n", NAMESPACE, "app-config", "--from-literal=greeting=hello", "--from-literal=color=blue"]);
  await admin(env, ["create", "secret", "generic", "-n", NAMESPACE, "app-secret", `--from-literal=password=${SECRET_VALUE}`]);
  node = await NodeAgent.create(env, NODE);
  node.start();
});

after(async () => {
  if (skip) return;
  await kubectl(env.adminKubeconfig, ["delete", "namespace", NAMESPACE, "--timeout=25s"]);
  await node?.destroy();
  await kubectl(env.adminKubeconfig, ["delete", "node", NODE, "--wait=false"]);
  await rm(work, { recursive: true, force: true });
});

test("a pod on the node gets env from a ConfigMap and a Secret and a mounted ConfigMap key from the API server, follows a ConfigMap update in the file, and the secret never reaches the agent's log", { skip, timeout: 120_000 }, async (t) => {
  const mount = join(work, "mnt");
  await apply("reader", podYaml("reader", `  - name: app
    image: busybox
    command: ["sh", "-c", "echo \\"GREETING=$GREETING PASSWORD=$PASSWORD\\"; while true; do echo \\"COLOR=$(cat ${mount}/color)\\"; sleep 1; done"]
    env:
    - {name: GREETING, valueFrom: {configMapKeyRef: {name: app-config, key: greeting}}}
    - {name: PASSWORD, valueFrom: {secretKeyRef: {name: app-secret, key: password}}}
    volumeMounts: [{name: cfg, mountPath: ${mount}}]`, `  volumes: [{name: cfg, configMap: {name: app-config}}]`));
  const first = await waitFor("the reader's env and mounted key in its log", 60_000, async () => {
    const text = await logs("reader");
    return text.includes("COLOR=blue") ? text : undefined;
  }).catch((err: Error) => assert.fail(`${err.message}\n${node.log()}`));
  assert.match(first, new RegExp(`^GREETING=hello PASSWORD=${SECRET_VALUE}\n`));
  const changed = Date.now();
  await admin(env, ["patch", "configmap", "-n", NAMESPACE, "app-config", "-p", '{"data":{"color":"green"}}']);
  // The kubelet's bound is its sync period (1 min) plus its cache's delay; the node watches the object.
  await waitFor("the updated key in the mounted file", 60_000, async () => ((await logs("reader")).includes("COLOR=green") ? true : undefined));
  const seconds = (Date.now() - changed) / 1000;
  assert.ok(seconds < 60, `the update took ${seconds} s`);
  t.diagnostic(`ConfigMap patch to the new value in the container's log: ${seconds.toFixed(2)} s`);
  const agentLog = await readFile(join(node.stateDir, "agent.log"), "utf8");
  assert.ok(!agentLog.includes(SECRET_VALUE), "the secret's value is in the agent's log");
});

test("a pod referencing a missing ConfigMap waits in CreateContainerConfigError in the API server and runs once the ConfigMap is created", { skip, timeout: 120_000 }, async () => {
  await apply("late", podYaml("late", `  - name: app
    image: busybox
    command: ["sh", "-c", "echo \\"LATE=$LATE\\"; exec sleep 3600"]
    envFrom: [{configMapRef: {name: late-config}}]`));
  const waiting = await waitFor("CreateContainerConfigError in the API server", 60_000, async () => {
    const state = await containerState("late");
    return state?.waiting?.reason === "CreateContainerConfigError" ? state.waiting : undefined;
  }).catch((err: Error) => assert.fail(`${err.message}\n${node.log()}`));
  assert.equal(waiting.message, 'configmap "late-config" not found');
  await admin(env, ["create", "configmap", "-n", NAMESPACE, "late-config", "--from-literal=LATE=arrived"]);
  await waitFor("the pod running", 30_000, async () => ((await containerState("late"))?.running !== undefined ? true : undefined));
  await waitFor("the late value in its log", 30_000, async () => ((await logs("late")).includes("LATE=arrived") ? true : undefined));
});

test("a pod bound to the node that the node cannot take is rejected in the API server as the kubelet does: Failed, UnexpectedAdmissionError, an event", { skip, timeout: 60_000 }, async () => {
  await apply("nfs", podYaml("nfs", `  - name: app
    image: busybox
    command: ["sleep", "3600"]`, `  volumes: [{name: data, nfs: {server: 192.0.2.1, path: /exports}}]`));
  const message = "spec.volumes[0].nfs: Forbidden: probelet mounts only emptyDir, hostPath, configMap, secret, downwardAPI, projected volumes";
  const status = await waitFor("the rejection in the API server", 30_000, async () => {
    const got = await adminJson<PodJson>(env, ["get", "pod", "-n", NAMESPACE, "nfs"]);
    return got.status.phase === "Failed" ? got.status : undefined;
  }).catch((err: Error) => assert.fail(`${err.message}\n${node.log()}`));
  assert.deepEqual([status.reason, status.message], ["UnexpectedAdmissionError", `Pod was rejected: ${message}`]);
  const events = await waitFor("the rejection event", 30_000, async () => {
    const got = await adminJson<{ items: { reason: string; type: string; message: string; source?: { component?: string } }[] }>(env, ["get", "events", "-n", NAMESPACE, "--field-selector", "involvedObject.name=nfs"]);
    return got.items.find((e) => e.reason === "UnexpectedAdmissionError");
  });
  assert.deepEqual([events.type, events.message, events.source?.component], ["Warning", message, "kubelet"]);
});
