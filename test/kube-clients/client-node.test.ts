// @kubernetes/client-node 1.4 against a real agent (process runtime) over its HTTPS listener,
// with the kubeconfig `probelet kubeconfig` prints, loaded as a user loads it: the calls
// spec/kube-api-clients.md records for client-node (create, list, read, a pods/status
// merge-patch, a log), and an informer that sees every change once, in order, across a dropped
// and re-established watch and across a 410 relist.
import assert from "node:assert/strict";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { CoreV1Api, KubeConfig, ListWatch, PatchStrategy, setHeaderOptions, Watch, type KubernetesObject, type V1Pod } from "@kubernetes/client-node";
import { parse, stringify } from "yaml";
import { agentSandbox, stopAgentProcess } from "../agent-process.js";
import { runCli } from "../cli-harness.js";
import { startCutProxy } from "./cut-proxy.js";

const NS = "default";
const GATE = "example.com/feature-ready";
const PODS_PATH = `/api/v1/namespaces/${NS}/pods`;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

let dir = "";
let kubeconfigText = "";
let kc: KubeConfig;
let api: CoreV1Api;

test("@kubernetes/client-node 1.4 against a running agent over HTTPS", async (t) => {
  const sandbox = await agentSandbox(t, "probelet-client-node-");
  dir = sandbox.dir;
  const manifests = join(dir, "manifests");
  await mkdir(manifests);
  const agent = await sandbox.start(["--manifests", manifests, "--listen", "127.0.0.1:0", "--state-dir", join(dir, "state")]);
  assert.ok(agent.httpsUrl, `the agent serves HTTPS beside its loopback listener: ${agent.stdout()}`);
  ({ kubeconfigText, kc, api } = await connect(join(dir, "state")));
  await t.test("client-node creates, lists and reads a pod, opens its readiness gate with a pods/status merge-patch and reads its log", crud);
  await t.test("an informer sees ADDED, each MODIFIED (readiness flipping) and DELETED once, in order, with no replayed ADDED after its watch is re-established", informerOnce);
  await t.test("an informer whose resourceVersion is too old gets 410 Expired on its watch and relists", informerRelists);
});

/** connect loads the kubeconfig `probelet kubeconfig` prints for the agent of stateDir, as a user would. */
async function connect(stateDir: string): Promise<{ kubeconfigText: string; kc: KubeConfig; api: CoreV1Api }> {
  const printed = await runCli(["kubeconfig", "--state-dir", stateDir]);
  assert.equal(printed.code, 0, printed.stderr);
  const config = new KubeConfig();
  config.loadFromString(printed.stdout);
  return { kubeconfigText: printed.stdout, kc: config, api: config.makeApiClient(CoreV1Api) };
}

/** kubeconfigVia is the same kubeconfig with its server's port replaced (a proxy in front of the agent). */
function kubeconfigVia(port: number): KubeConfig {
  const config = parse(kubeconfigText) as { clusters: { cluster: { server: string } }[] };
  for (const { cluster } of config.clusters) {
    const url = new URL(cluster.server);
    url.port = String(port);
    cluster.server = url.toString().replace(/\/$/, "");
  }
  const out = new KubeConfig();
  out.loadFromString(stringify(config));
  return out;
}

function agentPort(): number {
  return Number(new URL(kc.getCurrentCluster()?.server ?? "").port);
}

/** podWithReadinessFile is a pod whose container is Ready while `flag` exists (exec probe every second). */
function podWithReadinessFile(name: string, labels: Record<string, string>, flag: string): V1Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, labels },
    spec: {
      terminationGracePeriodSeconds: 1,
      containers: [{
        name: "c",
        image: "busybox",
        command: ["sh", "-c", "echo hello from client-node; exec sleep 300"],
        readinessProbe: { exec: { command: ["test", "-f", flag] }, periodSeconds: 1, failureThreshold: 1 },
      }],
    },
  };
}

function isReady(pod: V1Pod | undefined): boolean {
  return pod?.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

async function crud(): Promise<void> {
  const flag = join(dir, "crud-ready");
  await writeFile(flag, "");
  const gated = podWithReadinessFile("kcn", { test: "crud" }, flag);
  gated.spec!.readinessGates = [{ conditionType: GATE }];
  const created = await api.createNamespacedPod({ namespace: NS, body: gated });
  assert.equal(created.metadata?.name, "kcn");
  assert.ok(created.metadata?.uid);
  const listed = await api.listNamespacedPod({ namespace: NS, labelSelector: "test=crud" });
  assert.deepEqual(listed.items.map((p) => p.metadata?.name), ["kcn"]);
  assert.ok(Number(listed.metadata?.resourceVersion) > 0, "a list carries its resourceVersion");
  const read = await api.readNamespacedPod({ name: "kcn", namespace: NS });
  assert.equal(read.metadata?.uid, created.metadata?.uid);
  await until("the container ready and the pod held back by its readiness gate", async () => {
    const pod = await api.readNamespacedPod({ name: "kcn", namespace: NS });
    return pod.status?.conditions?.some((c) => c.type === "Ready" && c.reason === "ReadinessGatesNotReady") || undefined;
  });

  // A controller's way of opening a readiness gate: a merge-patch of pods/status.
  const patched = await api.patchNamespacedPodStatus(
    { name: "kcn", namespace: NS, body: { status: { conditions: [{ type: GATE, status: "True" }] } } },
    setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
  );
  assert.deepEqual(patched.status?.conditions?.map((c) => `${c.type}=${c.status}`), [`${GATE}=True`], "a merge-patch replaces the list");
  assert.ok(Number(patched.metadata?.resourceVersion) > Number(read.metadata?.resourceVersion), "the patch is a new resourceVersion");
  const opened = await until("Ready through the gate", async () => {
    const pod = await api.readNamespacedPod({ name: "kcn", namespace: NS });
    return isReady(pod) ? pod : undefined;
  });
  assert.ok(opened.status?.conditions?.some((c) => c.type === GATE && c.status === "True"), "the agent keeps the condition it does not own");

  const log = await until("the container's log line", async () => {
    const text = await api.readNamespacedPodLog({ name: "kcn", namespace: NS, container: "c" }).catch(() => "");
    return text.includes("hello from client-node") ? text : undefined;
  });
  assert.equal(log, "hello from client-node\n");
  await api.deleteNamespacedPod({ name: "kcn", namespace: NS, gracePeriodSeconds: 0 });
}

/** RecordingWatch is client-node's Watch that also records each watch request and every event the server sent. */
class RecordingWatch extends Watch {
  readonly requests: Record<string, string | number | boolean | undefined>[] = [];
  readonly raw: { request: number; type: string; code?: number; name?: string }[] = [];

  override watch(path: string, query: Record<string, string | number | boolean | undefined>, callback: (phase: string, object: unknown, watchObj?: unknown) => void, done: (err: unknown) => void): Promise<AbortController> {
    const request = this.requests.push({ ...query });
    return super.watch(path, query, (phase, object: { code?: number; metadata?: { name?: string } }, watchObj) => {
      this.raw.push({ request, type: phase, ...(object.code !== undefined ? { code: object.code } : {}), ...(object.metadata?.name !== undefined ? { name: object.metadata.name } : {}) });
      callback(phase, object, watchObj);
    }, done);
  }
}

/** Seen is one informer callback: its type and the object's resourceVersion and readiness. */
interface Seen {
  type: "ADDED" | "MODIFIED" | "DELETED";
  resourceVersion: string;
  ready: boolean;
}

/** RecordedInformer is an informer on the pods with one label, and what it did. */
interface RecordedInformer {
  informer: ListWatch<V1Pod>;
  watch: RecordingWatch;
  /** What the informer told its handlers. */
  seen: Seen[];
  /** How often it listed. */
  lists: () => number;
}

/**
 * recordedInformer is an informer (a ListWatch, as makeInformer builds it, with a Watch that
 * records) on the default namespace's pods labelled `test=<label>`, through `config`.
 */
function recordedInformer(config: KubeConfig, label: string): RecordedInformer {
  const watch = new RecordingWatch(config);
  let lists = 0;
  const informer = new ListWatch<V1Pod>(PODS_PATH, watch, () => {
    lists++;
    return api.listNamespacedPod({ namespace: NS, labelSelector: `test=${label}` });
  }, false, `test=${label}`);
  const seen: Seen[] = [];
  const push = (type: Seen["type"]) => (pod: V1Pod) => seen.push({ type, resourceVersion: pod.metadata?.resourceVersion ?? "", ready: isReady(pod) });
  informer.on("add", push("ADDED"));
  informer.on("update", push("MODIFIED"));
  informer.on("delete", push("DELETED"));
  return { informer, watch, seen, lists: () => lists };
}

async function informerOnce(t: TestContext): Promise<void> {
  const flag = join(dir, "informer-ready");
  const proxy = await startCutProxy(t, agentPort());
  const { informer, watch, seen, lists } = recordedInformer(kubeconfigVia(proxy.port), "informer");
  let stopping = false;
  // What client-node's documentation tells informer users to do: start again after an error.
  informer.on("error", () => {
    if (!stopping) void sleep(50).then(() => informer.start());
  });
  t.after(async () => {
    stopping = true;
    await informer.stop();
  });
  await informer.start();

  // The truth to compare with: one watch straight to the agent, from the informer's list.
  const truth: Seen[] = [];
  const reference = await new Watch(kc).watch(PODS_PATH, { resourceVersion: informer.latestResourceVersion(), labelSelector: "test=informer" }, (type, pod: V1Pod) => {
    truth.push({ type: type as Seen["type"], resourceVersion: pod.metadata?.resourceVersion ?? "", ready: isReady(pod) });
  }, () => undefined);
  t.after(() => reference.abort());

  await api.createNamespacedPod({ namespace: NS, body: podWithReadinessFile("kcn-informer", { test: "informer" }, flag) });
  await until("the pod running", () => seen.some((s) => s.type === "MODIFIED") || undefined);
  await writeFile(flag, "");
  await until("Ready", () => seen.some((s) => s.ready) || undefined);
  const watchesBeforeCut = watch.requests.length;
  proxy.cut();
  await rm(flag);
  await until("the watch re-established", () => watch.requests.length > watchesBeforeCut || undefined);
  await until("not Ready again", () => seen.at(-1)?.ready === false || undefined);
  await writeFile(flag, "");
  await until("Ready again", () => seen.at(-1)?.ready === true || undefined);
  await api.deleteNamespacedPod({ name: "kcn-informer", namespace: NS });
  await until("DELETED", () => seen.some((s) => s.type === "DELETED") || undefined);
  await until("the reference watch's DELETED", () => truth.some((s) => s.type === "DELETED") || undefined);

  assert.deepEqual(seen, truth, "the informer saw exactly what one uninterrupted watch saw");
  assert.deepEqual(seen.map((s) => s.type).filter((type, i, all) => type !== all[i - 1]), ["ADDED", "MODIFIED", "DELETED"]);
  const flips = seen.filter((s) => s.type === "MODIFIED").map((s) => s.ready).filter((ready, i, all) => ready !== all[i - 1]);
  assert.deepEqual(flips, [false, true, false, true, false], "readiness flipped as the flag file came and went, and ended with the deletion");
  assert.equal(lists(), 1, "the re-established watch resumed from its resourceVersion: no relist");
  const resumed = watch.requests[watchesBeforeCut];
  assert.ok(resumed !== undefined && resumed["resourceVersion"] !== "" && resumed["resourceVersion"] !== undefined, "the new watch names a resourceVersion");
  assert.deepEqual(watch.raw.filter((e) => e.request > watchesBeforeCut && e.type === "ADDED"), [], "no ADDED was replayed after the watch came back");
}

async function informerRelists(t: TestContext): Promise<void> {
  await api.createNamespacedPod({ namespace: NS, body: podWithReadinessFile("kcn-relist", { test: "relist" }, join(dir, "never")) });
  t.after(() => api.deleteNamespacedPod({ name: "kcn-relist", namespace: NS, gracePeriodSeconds: 0 }).catch(() => undefined));
  const { informer, watch, seen, lists } = recordedInformer(kc, "relist");
  t.after(() => informer.stop());
  await informer.start();
  await until("the first watch", () => watch.requests.length === 1 || undefined);
  await informer.stop();
  const staleVersion = informer.latestResourceVersion();

  // More pod changes than the agent keeps for watches (1000 per resource) push the informer's
  // resourceVersion out of the history.
  const merge = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
  for (let round = 0; round < 1010 / 10; round++) {
    await Promise.all(Array.from({ length: 10 }, (_, i) => api.patchNamespacedPod({ name: "kcn-relist", namespace: NS, body: { metadata: { annotations: { round: String(round * 10 + i) } } } }, merge)));
  }
  const last = await api.readNamespacedPod({ name: "kcn-relist", namespace: NS });

  await informer.start();
  await until("the relist", () => lists() === 2 || undefined);
  await until("the watch after the relist", () => watch.requests.length === 3 || undefined);
  assert.equal(watch.requests[1]?.["resourceVersion"], staleVersion, "the restarted watch asked for the old resourceVersion");
  assert.deepEqual(watch.raw.filter((e) => e.request === 2), [{ request: 2, type: "ERROR", code: 410 }], "the agent answered 410 Expired");
  assert.ok(Number(watch.requests[2]?.["resourceVersion"]) >= Number(last.metadata?.resourceVersion), "the new watch starts from the relist");
  const cached = informer.get("kcn-relist", NS) as (KubernetesObject & V1Pod) | undefined;
  assert.equal(cached?.metadata?.annotations?.["round"], last.metadata?.annotations?.["round"], "the relisted object is the current one");
  assert.deepEqual(seen.map((s) => s.type), ["ADDED", "MODIFIED"], "the relist shows the change once, as an update");
}

test("namespaces, configmaps and secrets created with client-node survive an agent restart, and resourceVersions keep growing", async (t) => {
  const { dir: base, start } = await agentSandbox(t, "probelet-client-node-restart-");
  const manifests = join(base, "manifests");
  const state = join(base, "state");
  await mkdir(manifests);
  const args = ["--manifests", manifests, "--listen", "127.0.0.1:0", "--state-dir", state];
  const first = await start(args);
  const before = (await connect(state)).api;
  const ns = await before.createNamespace({ body: { metadata: { name: "kcn-team" } } });
  const cm = await before.createNamespacedConfigMap({ namespace: "kcn-team", body: { metadata: { name: "settings" }, data: { mode: "fast" } } });
  await before.createNamespacedSecret({ namespace: "kcn-team", body: { metadata: { name: "creds" }, stringData: { password: "restart-pw" } } });
  const versionBefore = Number((await before.listNamespacedConfigMap({ namespace: "kcn-team" })).metadata?.resourceVersion);
  await stopAgentProcess(first.child);

  await start(args);
  const after = (await connect(state)).api;
  assert.equal((await after.readNamespace({ name: "kcn-team" })).metadata?.uid, ns.metadata?.uid);
  const settings = await after.readNamespacedConfigMap({ name: "settings", namespace: "kcn-team" });
  assert.equal(settings.metadata?.uid, cm.metadata?.uid);
  assert.deepEqual(settings.data, { mode: "fast" });
  const creds = await after.readNamespacedSecret({ name: "creds", namespace: "kcn-team" });
  assert.deepEqual(creds.data, { password: Buffer.from("restart-pw").toString("base64") });
  const listed = await after.listNamespacedConfigMap({ namespace: "kcn-team" });
  assert.ok(Number(listed.metadata?.resourceVersion) > versionBefore, `the list's resourceVersion ${listed.metadata?.resourceVersion} is above ${versionBefore}, from before the restart`);
});
