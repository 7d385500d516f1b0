// Real kubectl against a minimal API server that wires handleExec: discovery and one pod are
// canned, exec goes to a process-runtime container. kubectl 1.32 speaks v5.channel.k8s.io;
// kubectl 1.20 speaks SPDY only and must get the refusal. The binaries come from the kube
// clients cache (scripts/kube-clients.sh); each case is skipped, with the reason, without its binary.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { ProcessRuntime } from "../../runtime/process/process-runtime.js";
import { liveChildren, testContainerConfig, testSandboxConfig } from "../../../test/process-testing.js";
import { containerNotValid, podNotFound } from "./exec-status.js";
import { handleExec } from "./handle-exec.js";

const clientsDir = process.env["PROBELET_KUBE_CLIENTS_DIR"] ?? "/var/cache/probelet/kube-clients";
const kubectl132 = join(clientsDir, "kubectl-1.32");
const kubectl120 = join(clientsDir, "kubectl-1.20");
const skip132 = existsSync(kubectl132) ? false : `${kubectl132} is missing (run scripts/kube-clients.sh)`;
const skip120 = existsSync(kubectl120) ? false : `${kubectl120} is missing (run scripts/kube-clients.sh)`;

const dir = await mkdtemp(join(tmpdir(), "probelet-kubectl-exec-"));
const runtime = new ProcessRuntime();
const sandbox = testSandboxConfig(join(dir, "logs"), { name: "web", namespace: "default" });
const podId = await runtime.runPodSandbox(sandbox);
const containerId = await runtime.createContainer(podId, testContainerConfig("app", "sleep 300", { workingDir: dir }), sandbox);
await runtime.startContainer(containerId);

const pod = {
  kind: "Pod",
  apiVersion: "v1",
  metadata: { name: "web", namespace: "default", uid: sandbox.podUid, resourceVersion: "1" },
  spec: { containers: [{ name: "app", image: "busybox" }], nodeName: "local" },
  status: { phase: "Running", containerStatuses: [{ name: "app", ready: true, restartCount: 0, image: "busybox", imageID: "", state: { running: {} } }] },
};
const discovery: Record<string, object> = {
  "/api": { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: "127.0.0.1" }] },
  "/apis": { kind: "APIGroupList", apiVersion: "v1", groups: [] },
  "/api/v1": {
    kind: "APIResourceList",
    groupVersion: "v1",
    resources: [
      { name: "pods", singularName: "pod", namespaced: true, kind: "Pod", verbs: ["get", "list"], shortNames: ["po"] },
      { name: "pods/exec", singularName: "", namespaced: true, kind: "PodExecOptions", verbs: ["create", "get"] },
    ],
  },
  "/api/v1/namespaces/default/pods/web": pod,
};

function json(res: ServerResponse, code: number, body: object): void {
  res.writeHead(code, { "Content-Type": "application/json" }).end(JSON.stringify(body));
}
const server = createServer((req, res) => {
  const path = new URL(req.url ?? "/", "http://localhost").pathname;
  const body = discovery[path];
  if (body) json(res, 200, body);
  else json(res, 404, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "the server could not find the requested resource", reason: "NotFound", code: 404 });
});
server.on("upgrade", (req, socket, head: Buffer) =>
  void handleExec(req, socket, head, {
    resolveContainer: (_ns, name, container) =>
      name !== "web" ? podNotFound(name) : container !== undefined && container !== "app" ? containerNotValid(container, name) : { runtime, containerId },
  }),
);
server.listen(0, "127.0.0.1");
await once(server, "listening");
const kubeconfig = join(dir, "kubeconfig");
await writeFile(
  kubeconfig,
  `apiVersion: v1
kind: Config
clusters: [{name: local, cluster: {server: "http://127.0.0.1:${(server.address() as AddressInfo).port}"}}]
users: [{name: local, user: {}}]
contexts: [{name: local, context: {cluster: local, user: local, namespace: default}}]
current-context: local
`,
);

after(async () => {
  server.closeAllConnections();
  server.close();
  await runtime.close();
  await rm(dir, { recursive: true, force: true });
  assert.deepEqual(liveChildren(), [], "no child process of the test may remain");
});

interface KubectlRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** kubectl runs one kubectl with our kubeconfig (or, for `script`, the given command line), feeding stdin, killed after 20 s. */
async function kubectl(binary: string, args: string[], stdin = ""): Promise<KubectlRun> {
  const argv = binary === "script" ? args : ["--kubeconfig", kubeconfig, ...args];
  const child = spawn(binary, argv, { stdio: ["pipe", "pipe", "pipe"], env: { PATH: process.env["PATH"] ?? "", HOME: dir } });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on("data", (c: Buffer) => out.push(c));
  child.stderr.on("data", (c: Buffer) => err.push(c));
  child.stdin.end(stdin);
  const killer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  const [code] = (await once(child, "close")) as [number | null];
  clearTimeout(killer);
  return { code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() };
}

test("kubectl 1.32 exec: echo hi prints hi and exits 0", { skip: skip132 }, async () => {
  assert.deepEqual(await kubectl(kubectl132, ["exec", "web", "--", "echo", "hi"]), { code: 0, stdout: "hi\n", stderr: "" });
});

test("kubectl 1.32 exec: the command's exit code 3 becomes kubectl's, with its message", { skip: skip132 }, async () => {
  const run = await kubectl(kubectl132, ["exec", "web", "--", "sh", "-c", "echo out; echo err >&2; exit 3"]);
  assert.deepEqual(run, { code: 3, stdout: "out\n", stderr: "err\ncommand terminated with exit code 3\n" });
});

test("kubectl 1.32 exec -i: piped stdin reaches cat, whose end of input ends the command", { skip: skip132 }, async () => {
  assert.deepEqual(await kubectl(kubectl132, ["exec", "-i", "web", "--", "cat"], "first\nsecond\n"), { code: 0, stdout: "first\nsecond\n", stderr: "" });
});

test("kubectl 1.32 exec -c with an unknown container shows the API server's BadRequest", { skip: skip132 }, async () => {
  const run = await kubectl(kubectl132, ["exec", "web", "-c", "db", "--", "ls"]);
  assert.equal(run.code, 1);
  assert.match(run.stderr, /container db is not valid for pod web/);
});

test("kubectl 1.20 exec (SPDY) is refused with the message naming the WebSocket protocols", { skip: skip120 }, async () => {
  const run = await kubectl(kubectl120, ["exec", "web", "--", "echo", "hi"]);
  assert.equal(run.code, 1);
  assert.equal(run.stdout, "");
  assert.match(run.stderr, /SPDY\/3\.1 is not served; exec speaks WebSocket only/);
});

test("kubectl 1.32 exec -it on a terminal runs the command on a tty", { skip: skip132 }, async () => {
  // kubectl asks for a tty only when its own stdin is a terminal: util-linux script gives it one.
  const command = `${kubectl132} --kubeconfig ${kubeconfig} exec -it web -- sh -c 'test -t 0 && echo on-a-tty'`;
  const run = await kubectl("script", ["-q", "-e", "-c", command, "/dev/null"]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /on-a-tty\r\n/);
});
