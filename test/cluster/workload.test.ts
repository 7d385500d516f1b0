// A workload of today's Kubernetes through the v1.37.2 API server (scripts/control-plane.sh, with
// ServiceAccount admission on) on a probelet node (process runtime, root, pod networks): a
// Deployment whose pods have a plain init container, a sidecar, a container with a restart rule,
// probes of the four kinds, ConfigMap, Secret and emptyDir volumes and the service-account token
// the admission plugin projects. Checked with kubectl 1.37 through the API server: statuses,
// events, the v1 EndpointSlice, logs, the token (whoami), the node proxy's /stats/summary and
// /metrics; and the daemon endpoint asked directly with that token (TokenReview, then a
// SubjectAccessReview per request).
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { request } from "node:https";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { agnhostPath } from "../e2e/pod-kit.js";
import { kubectl, type ControlPlaneEnv } from "./control-plane-env.js";
import { admin, adminJson, type NodeAgent, waitFor } from "./node-agent.js";
import { PodNetworkNode, podNetworkNodeSkip } from "./pod-network-node.js";
import { servingCertPath } from "../../src/server/serving-cert.js";

const NODE = "probelet-e";
const NAMESPACE = "probelet-workload";
const SPEC = { node: NODE, namespace: NAMESPACE, podCidr: "10.88.252.0/24", taintValue: "workload" };
const AGNHOST = agnhostPath();
const skip = await podNetworkNodeSkip(SPEC);

interface Condition {
  type: string;
  status: string;
}
interface ContainerStatusJson {
  name: string;
  ready: boolean;
  started?: boolean;
  restartCount: number;
  imageID: string;
  state: { running?: object; terminated?: { exitCode: number; reason: string } };
  lastState: { terminated?: { exitCode: number; reason: string } };
}
interface PodJson {
  metadata: { name: string; uid: string };
  spec: { nodeName?: string; serviceAccountName?: string; volumes: { name: string; projected?: object }[] };
  status: { phase: string; podIP?: string; hostIP?: string; hostIPs?: { ip: string }[]; conditions?: Condition[]; containerStatuses?: ContainerStatusJson[]; initContainerStatuses?: ContainerStatusJson[] };
}

let env: ControlPlaneEnv;
let own: PodNetworkNode;
let node: NodeAgent;
let work: string;

/** script is a container's Node.js program, run by the process runtime. */
function script(source: string): string {
  return JSON.stringify([process.execPath, "-e", source]);
}

const WEB = `
const fs = require("fs"), http = require("http");
const sa = "/var/run/secrets/kubernetes.io/serviceaccount";
console.log("greeting=" + fs.readFileSync("/etc/app/greeting", "utf8"));
console.log("secret bytes=" + fs.readFileSync("/etc/creds/password").length);
console.log("seed=" + fs.readFileSync("/shared/seed", "utf8"));
console.log("token parts=" + fs.readFileSync(sa + "/token", "utf8").split(".").length + " namespace=" + fs.readFileSync(sa + "/namespace", "utf8") + " ca=" + fs.readFileSync(sa + "/ca.crt", "utf8").startsWith("-----BEGIN CERTIFICATE-----"));
const start = Date.now();
http.createServer((q, r) => {
  if (q.url === "/started" && Date.now() - start < 2500) r.statusCode = 503;
  r.end("ok");
}).listen(8080, "0.0.0.0");
`;
const LOGGER = `console.log("sidecar up"); setInterval(() => console.log("tick"), 5000);`;
const SETUP = `require("fs").writeFileSync("/shared/seed", "seeded");`;
const WORKER = `
const fs = require("fs");
if (!fs.existsSync("/shared/worker-ran")) { fs.writeFileSync("/shared/worker-ran", ""); console.log("worker: first run, exit 42"); process.exit(42); }
console.log("worker: running again"); setInterval(() => undefined, 60000);
`;

function deployment(): string {
  return `apiVersion: v1
kind: ConfigMap
metadata: {name: app-config}
data: {greeting: hello}
---
apiVersion: v1
kind: Secret
metadata: {name: creds}
stringData: {password: s3cr3t-value}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: app}
spec:
  replicas: 2
  selector: {matchLabels: {app: app}}
  template:
    metadata: {labels: {app: app}}
    spec:
      nodeSelector: {kubernetes.io/hostname: ${NODE}}
      tolerations: ${own.tolerations}
      terminationGracePeriodSeconds: 2
      volumes:
      - {name: config, configMap: {name: app-config}}
      - {name: creds, secret: {secretName: creds}}
      - {name: shared, emptyDir: {}}
      initContainers:
      - name: setup
        image: busybox
        command: ${script(SETUP)}
        volumeMounts: [{name: shared, mountPath: /shared}]
      - name: logger
        image: busybox
        restartPolicy: Always
        command: ${script(LOGGER)}
        startupProbe: {exec: {command: ["true"]}, periodSeconds: 1}
        readinessProbe: {exec: {command: ["true"]}, periodSeconds: 2}
      containers:
      - name: web
        image: busybox
        command: ${script(WEB)}
        ports: [{containerPort: 8080}]
        volumeMounts:
        - {name: config, mountPath: /etc/app}
        - {name: creds, mountPath: /etc/creds}
        - {name: shared, mountPath: /shared}
        startupProbe: {httpGet: {path: /started, port: 8080}, periodSeconds: 1, failureThreshold: 30}
        livenessProbe: {httpGet: {path: /healthz, port: 8080}, periodSeconds: 2}
        readinessProbe: {tcpSocket: {port: 8080}, periodSeconds: 1}
      - name: grpc
        image: registry.k8s.io/e2e-test-images/agnhost:2.53
        command: ${JSON.stringify([process.execPath, AGNHOST, "grpc-health-checking", "--port", "5000", "--http-port", "8081", "--host", "0.0.0.0"])}
        startupProbe: {grpc: {port: 5000}, periodSeconds: 1, failureThreshold: 60}
        readinessProbe: {grpc: {port: 5000}, periodSeconds: 1}
        livenessProbe: {grpc: {port: 5000}, periodSeconds: 2}
      - name: worker
        image: busybox
        restartPolicy: Never
        restartPolicyRules: [{action: Restart, exitCodes: {operator: In, values: [42]}}]
        command: ${script(WORKER)}
        volumeMounts: [{name: shared, mountPath: /shared}]
---
apiVersion: v1
kind: Service
metadata: {name: app}
spec:
  selector: {app: app}
  ports: [{port: 80, targetPort: 8080}]
`;
}

before(async () => {
  if (skip) return;
  own = await PodNetworkNode.start(SPEC);
  ({ env, agent: node, work } = own);
});

after(async () => {
  if (skip) return;
  await kubectl(env.adminKubeconfig, ["delete", "clusterrolebinding,clusterrole", "probelet-workload-node-metrics", "--ignore-not-found"]);
  await own?.stop();
});

/** readyPods waits for the Deployment's two pods to be Ready in the API server. */
async function readyPods(): Promise<PodJson[]> {
  return waitFor("2 Ready app pods", 90_000, async () => {
    const list = await adminJson<{ items: PodJson[] }>(env, ["get", "pods", "-n", NAMESPACE, "-l", "app=app"]);
    const ready = list.items.filter((p) => p.status.conditions?.some((c) => c.type === "Ready" && c.status === "True"));
    return ready.length === 2 ? ready : undefined;
  }).catch((err: Error) => assert.fail(`${err.message}\n${node.log()}`));
}

/** daemonGet asks the node's daemon endpoint directly, with a bearer token read from a file (never argv). */
function daemonGet(path: string, tokenFile: string, port: number, host: string): Promise<{ code: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ca = readFileSync(servingCertPath(join(node.stateDir, "state")));
    const req = request({ host, port, path, ca, headers: { authorization: `Bearer ${readFileSync(tokenFile, "utf8").trim()}` } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ code: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

test("a Deployment with an init container, a sidecar, a restart rule, four probe kinds, ConfigMap/Secret/emptyDir volumes and the projected token runs Ready; statuses and events as a 1.37 node reports them", { skip, timeout: 180_000 }, async () => {
  const file = join(work, "app.yaml");
  await writeFile(file, deployment());
  await admin(env, ["apply", "-n", NAMESPACE, "-f", file]);
  const pods = await readyPods();
  const nodeObject = await adminJson<{ status: { addresses: { type: string; address: string }[]; declaredFeatures?: string[]; nodeInfo: Record<string, string> } }>(env, ["get", "node", NODE]);
  const nodeIP = nodeObject.status.addresses.find((a) => a.type === "InternalIP")!.address;
  assert.deepEqual(nodeObject.status.declaredFeatures, ["RestartAllContainersOnContainerExits"]);
  assert.equal(nodeObject.status.nodeInfo["containerRuntimeVersion"], "process://probelet");
  for (const pod of pods) {
    assert.equal(pod.spec.nodeName, NODE);
    assert.equal(pod.status.phase, "Running");
    assert.equal(pod.spec.serviceAccountName, "default");
    assert.ok(pod.spec.volumes.some((v) => v.name.startsWith("kube-api-access-") && v.projected), "ServiceAccount admission projected the token volume");
    assert.equal(pod.status.hostIP, nodeIP);
    assert.deepEqual(pod.status.hostIPs, [{ ip: nodeIP }]);
    const init = new Map(pod.status.initContainerStatuses?.map((s) => [s.name, s]));
    assert.equal(init.get("setup")?.state.terminated?.reason, "Completed");
    assert.equal(init.get("logger")?.started, true);
    assert.equal(init.get("logger")?.ready, true);
    const containers = new Map(pod.status.containerStatuses?.map((s) => [s.name, s]));
    for (const name of ["web", "grpc"]) assert.equal(containers.get(name)?.ready, true, `${name} ready`);
    // The restart rule restarted the worker after its exit 42, though its restartPolicy is Never.
    const worker = await waitFor(`the worker of ${pod.metadata.name} restarted by its rule`, 30_000, async () => {
      const got = await adminJson<PodJson>(env, ["get", "pod", "-n", NAMESPACE, pod.metadata.name]);
      const w = got.status.containerStatuses?.find((s) => s.name === "worker");
      return w?.restartCount === 1 && w.state.running !== undefined ? w : undefined;
    });
    assert.equal(worker.lastState.terminated?.exitCode, 42);
    assert.equal(worker.lastState.terminated?.reason, "Error");
    // The process runtime runs no image: no imageID (a CRI node reports containerd's image_ref).
    assert.equal(worker.imageID, "");
  }
  const events = await adminJson<{ items: { reason: string; message: string; type: string; source?: { component?: string; host?: string }; involvedObject: { fieldPath?: string } }[] }>(env, ["get", "events", "-n", NAMESPACE, "--field-selector", `involvedObject.name=${pods[0]!.metadata.name}`]);
  const reasons = new Set(events.items.map((e) => e.reason));
  for (const reason of ["Scheduled", "Created", "Started"]) assert.ok(reasons.has(reason), `event ${reason} in ${[...reasons].join(", ")}`);
  // The startup probe's 503s (a loaded machine may also see a refused connection before the
  // server listens, as a kubelet would).
  const unhealthy = events.items.find((e) => e.reason === "Unhealthy" && e.message === "Startup probe failed: HTTP probe failed with statuscode: 503");
  assert.ok(unhealthy !== undefined, events.items.filter((e) => e.reason === "Unhealthy").map((e) => e.message).join("\n"));
  assert.equal(unhealthy.type, "Warning");
  assert.equal(unhealthy?.source?.component, "kubelet");
  assert.equal(unhealthy?.source?.host, NODE);

  // The v1 EndpointSlice lists both pods ready at their pod IPs, on this node.
  const ips = pods.map((p) => p.status.podIP).sort();
  await waitFor("the v1 EndpointSlice of app with both pods ready", 30_000, async () => {
    const slices = await adminJson<{ apiVersion: string; items: { apiVersion?: string; endpoints?: { addresses: string[]; nodeName?: string; conditions: { ready?: boolean } }[] }[] }>(env, ["get", "endpointslices.v1.discovery.k8s.io", "-n", NAMESPACE, "-l", "kubernetes.io/service-name=app"]);
    const ready = slices.items.flatMap((s) => s.endpoints ?? []).filter((e) => e.conditions.ready === true && e.nodeName === NODE);
    return JSON.stringify(ready.map((e) => e.addresses[0]).sort()) === JSON.stringify(ips) ? true : undefined;
  });
});

test("kubectl 1.37 logs of the containers and the sidecar through the node's daemon endpoint; the projected token is the pod's service account, bound to the pod", { skip, timeout: 60_000 }, async () => {
  const pods = await readyPods();
  const pod = pods[0]!;
  const web = await admin(env, ["logs", "-n", NAMESPACE, pod.metadata.name, "-c", "web"]);
  assert.match(web, /^greeting=hello$/m);
  assert.match(web, /^secret bytes=12$/m);
  assert.match(web, /^seed=seeded$/m);
  assert.match(web, new RegExp(`^token parts=3 namespace=${NAMESPACE} ca=true$`, "m"));
  assert.match(await admin(env, ["logs", "-n", NAMESPACE, pod.metadata.name, "-c", "logger"]), /^sidecar up$/m);
  assert.match(await admin(env, ["logs", "-n", NAMESPACE, pod.metadata.name, "-c", "worker", "--previous"]), /^worker: first run, exit 42$/m);
  const tokenFile = projectedToken(pod);
  const kubeconfig = join(work, "sa.kubeconfig");
  writeFileSync(kubeconfig, JSON.stringify({ apiVersion: "v1", kind: "Config", "current-context": "c", clusters: [{ name: "c", cluster: { server: env.server, "certificate-authority": env.serverCa } }], users: [{ name: "u", user: { tokenFile } }], contexts: [{ name: "c", context: { cluster: "c", user: "u" } }] }), { mode: 0o600 });
  const whoami = await kubectl(kubeconfig, ["auth", "whoami", "-o", "json"]);
  assert.equal(whoami.code, 0, whoami.stderr);
  const user = (JSON.parse(whoami.stdout) as { status: { userInfo: { username: string; extra?: Record<string, string[]> } } }).status.userInfo;
  assert.equal(user.username, `system:serviceaccount:${NAMESPACE}:default`);
  assert.deepEqual(user.extra?.["authentication.kubernetes.io/pod-name"], [pod.metadata.name]);
  assert.deepEqual(user.extra?.["authentication.kubernetes.io/pod-uid"], [pod.metadata.uid]);
  assert.deepEqual(user.extra?.["authentication.kubernetes.io/node-name"], [NODE]);
});

/** projectedToken is the host path of a pod's kube-api-access token, as the node wrote it. */
function projectedToken(pod: PodJson): string {
  const dir = join(node.stateDir, "state", "volumes", pod.metadata.uid, "volumes", "kubernetes.io~projected");
  const volume = readdirSync(dir).find((name) => name.startsWith("kube-api-access-"));
  assert.ok(volume, `no kube-api-access volume in ${dir}`);
  return join(dir, volume, "token");
}

test("the node proxy serves the daemon endpoint's /stats/summary and /metrics; asked directly, a service-account token gets what its SubjectAccessReviews allow", { skip, timeout: 60_000 }, async () => {
  const pods = await readyPods();
  const summary = JSON.parse(await admin(env, ["get", "--raw", `/api/v1/nodes/${NODE}/proxy/stats/summary`])) as { node: { nodeName: string; cpu?: { usageCoreNanoSeconds?: number }; memory?: { workingSetBytes?: number } }; pods: { podRef: { name: string; namespace: string }; containers: { name: string }[] }[] };
  assert.equal(summary.node.nodeName, NODE);
  assert.ok((summary.node.cpu?.usageCoreNanoSeconds ?? 0) > 0);
  assert.ok((summary.node.memory?.workingSetBytes ?? 0) > 0);
  for (const pod of pods) {
    const stats = summary.pods.find((p) => p.podRef.name === pod.metadata.name && p.podRef.namespace === NAMESPACE);
    assert.deepEqual(stats?.containers.map((c) => c.name).sort(), ["grpc", "logger", "web", "worker"]);
  }
  assert.match(await admin(env, ["get", "--raw", `/api/v1/nodes/${NODE}/proxy/metrics`]), /^kubelet_running_pods \d+$/m);
  assert.match(await admin(env, ["get", "--raw", `/api/v1/nodes/${NODE}/proxy/metrics/probes`]), /^prober_probe_total\{[^}]*probe_type="Readiness"[^}]*\} \d+$/m);
  assert.match(await admin(env, ["get", "--raw", `/api/v1/nodes/${NODE}/proxy/metrics/resource`]), /^node_cpu_usage_seconds_total [\d.e+]+ \d+$/m);

  // Directly at the daemon endpoint with the pod's own token: authenticated by TokenReview,
  // refused /pods by its SubjectAccessReview; once RBAC grants nodes/metrics, /metrics answers.
  const nodeObject = await adminJson<{ status: { addresses: { type: string; address: string }[]; daemonEndpoints: { kubeletEndpoint: { Port: number } } } }>(env, ["get", "node", NODE]);
  const host = nodeObject.status.addresses.find((a) => a.type === "InternalIP")!.address;
  const port = nodeObject.status.daemonEndpoints.kubeletEndpoint.Port;
  const tokenFile = projectedToken(pods[0]!);
  const refused = await daemonGet("/pods", tokenFile, port, host);
  assert.deepEqual(refused, { code: 403, body: `Forbidden (user=system:serviceaccount:${NAMESPACE}:default, verb=get, resource=nodes, subresource(s)=[pods proxy])\n` });
  const rbac = join(work, "rbac.yaml");
  await writeFile(rbac, `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: probelet-workload-node-metrics}
rules: [{apiGroups: [""], resources: [nodes/metrics], verbs: [get]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: probelet-workload-node-metrics}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: probelet-workload-node-metrics}
subjects: [{kind: ServiceAccount, name: default, namespace: ${NAMESPACE}}]
`);
  await admin(env, ["apply", "-f", rbac]);
  const metrics = await waitFor("/metrics with the granted token", 20_000, async () => {
    const got = await daemonGet("/metrics", tokenFile, port, host);
    return got.code === 200 ? got : undefined;
  });
  assert.match(metrics.body, /^kubelet_running_pods \d+$/m);
  assert.equal((await daemonGet("/stats/summary", tokenFile, port, host)).code, 403, "nodes/metrics does not grant nodes/stats");
  const anonymous = await new Promise<number>((resolve, reject) => {
    const req = request({ host, port, path: "/metrics", ca: readFileSync(servingCertPath(join(node.stateDir, "state"))) }, (res) => resolve(res.statusCode ?? 0));
    req.on("error", reject);
    req.end();
  });
  assert.equal(anonymous, 401);
});
