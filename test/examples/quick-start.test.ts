// The quick start as a kubectl user goes on with it: `npm start` runs examples/web.yaml; then
// `kubectl delete pod web` (real kubectl 1.32 when installed, else `probelet delete`) returns at
// once, `probelet apply -f examples/web.yaml` is unchanged, and the pod is running and listed,
// its container never restarted. A copy of the pod under another name on the same port is
// rejected (NodePorts) where pods share the host's network, and the first pod does not notice.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import type { Pod } from "../../src/api/types.js";
import { agentSandbox } from "../agent-process.js";
import { runCli } from "../cli-harness.js";
import { getJson } from "../cri/agent-cli.js";
import { kubectlEnv } from "../kube-clients/kubectl-env.js";
import { exampleWithFreePorts } from "./example-files.js";

const kubectl = kubectlEnv();

test("quick start, then delete pod web and apply -f examples/web.yaml: the pod runs on, listed, never restarted; a second pod on its port is rejected", { timeout: 90_000 }, async (t) => {
  const { dir, start } = await agentSandbox(t, "probelet-quick-start-");
  const state = join(dir, "state");
  const web = join(dir, "web.yaml");
  const text = await exampleWithFreePorts("web.yaml", [8080]);
  await writeFile(web, text);
  const agent = await start(["-f", web, "--listen", "127.0.0.1:0", "--state-dir", state]);
  // The CLI finds the agent through its state directory (agent.sock), where its token may go.
  const client = ["--state-dir", state];
  const pod = (name: string) => getJson<Pod>(`${agent.url}/api/v1/namespaces/default/pods/${name}`, state);
  const until = async (what: string, check: (p: Pod | undefined) => boolean, name = "web"): Promise<Pod> => {
    for (let i = 0; i < 300; i++) {
      const p = await pod(name);
      if (check(p)) return p!;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail(`timed out waiting for ${what}: ${JSON.stringify(await pod(name))}\n${agent.stderr()}`);
  };
  const isReady = (p: Pod | undefined): boolean => p?.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true;
  const first = await until("web Ready", isReady);
  const containerId = first.status?.containerStatuses?.[0]?.containerID;

  if (kubectl.paths !== undefined) {
    const kubeconfig = join(dir, "kubeconfig");
    assert.equal((await runCli(["kubeconfig", "--state-dir", state, "-o", kubeconfig])).code, 0);
    const started = performance.now();
    const run = await promisify(execFile)(kubectl.paths["1.32"], ["--kubeconfig", kubeconfig, "--cache-dir", join(dir, "kube-cache"), "delete", "pod", "web"], { env: { PATH: process.env["PATH"] ?? "", HOME: dir }, timeout: 20_000 });
    assert.equal(run.stdout, 'pod "web" deleted\n');
    assert.match(run.stderr, /Warning: pod "web" runs from .*web\.yaml as a static pod and keeps running/);
    assert.ok(performance.now() - started < 10_000);
  } else {
    t.diagnostic(`kubectl: ${kubectl.skip}; probelet delete instead`);
    const run = await runCli(["delete", "pod", "web", ...client]);
    assert.deepEqual([run.code, run.stdout], [0, 'pod "web" deleted\n'], run.stderr);
  }
  const applied = await runCli(["apply", "-f", web, ...client]);
  assert.deepEqual([applied.code, applied.stdout], [0, "pod/web unchanged\n"], applied.stderr);
  const listed = await runCli(["get", "pods", ...client]);
  assert.match(listed.stdout, /^web\s+1\/1\s+Running\s+0\s/m, listed.stdout);
  const after = await until("web Ready again", isReady);
  assert.notEqual(after.metadata.uid, first.metadata.uid, "a new mirror pod");
  assert.equal(after.status?.containerStatuses?.[0]?.containerID, containerId, "the same container");

  // On the host's network (no root or no CNI plugins: pod IP 127.0.0.1) a copy on the same port is
  // refused; with pod networks both run, each on its own address.
  const copy = join(dir, "web-2.yaml");
  await writeFile(copy, text.replace("name: web\n", "name: web-2\n"));
  const created = await runCli(["apply", "-f", copy, ...client]);
  assert.deepEqual([created.code, created.stdout], [0, "pod/web-2 created\n"], created.stderr);
  if (first.status?.podIP === "127.0.0.1") {
    const rejected = await until("web-2 Failed", (p) => p?.status?.phase === "Failed", "web-2");
    assert.equal(rejected.status?.reason, "NodePorts");
    assert.equal(rejected.status?.message, "Pod was rejected: Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports");
  } else {
    t.diagnostic(`pods have their own network (pod IP ${first.status?.podIP ?? ""}): both run`);
    await until("web-2 Ready on its own address", isReady, "web-2");
  }
  const still = await pod("web");
  assert.equal(still?.status?.containerStatuses?.[0]?.containerID, containerId);
  assert.equal(still?.status?.containerStatuses?.[0]?.restartCount, 0);
});
