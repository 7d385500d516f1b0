// kill -9 of the agent and a restart with the same state directory: every container keeps running,
// keeps its ID and restart count, and a Ready pod never reads NotReady (CRI runtime, real containerd).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { getJson, webServerPodYaml } from "../../test/cri/agent-cli.js";
import { freePort } from "../../test/cri/containerd-env.js";
import type { Pod } from "../api/types.js";
import { CriRuntime } from "../runtime/cri/cri-runtime.js";

const socket = process.env["PROBELET_CRI_SOCKET"];
const skip =
  process.getuid?.() !== 0 ? "needs root for containerd" : socket === undefined ? 'PROBELET_CRI_SOCKET is unset (eval "$(scripts/containerd.sh start)")' : false;
const cli = fileURLToPath(new URL("./main.js", import.meta.url));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const getPod = (api: string, dir: string, name: string) => getJson<Pod>(`${api}/api/v1/namespaces/default/pods/${name}`, join(dir, "state"));

test("[cri] kill -9 of the agent and a restart keep every container running and every Ready pod Ready", { skip, timeout: 120_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "probelet-restart-"));
  const webPort = await freePort();
  const apiPort = await freePort();
  const api = `http://127.0.0.1:${apiPort}`;
  const name = `restart-${process.pid}`;
  const manifest = join(dir, "pod.yaml");
  await writeFile(manifest, webServerPodYaml(name, webPort, { periodSeconds: 2 }));
  const agents: ChildProcess[] = [];
  const start = (): ChildProcess => {
    const child = spawn(process.execPath, [cli, "run", "--runtime", "cri", "--cri-socket", socket!, "-f", manifest, "--listen", `127.0.0.1:${apiPort}`, "--state-dir", join(dir, "state"), "-q"], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    agents.push(child);
    return child;
  };
  const runtime = new CriRuntime({ socket: socket!, ...(process.env["PROBELET_CRI_CGROUP_PARENT"] ? { cgroupPrefix: process.env["PROBELET_CRI_CGROUP_PARENT"] } : {}) });
  t.after(async () => {
    for (const a of agents) if (a.exitCode === null && a.signalCode === null) a.kill("SIGKILL");
    for (const sb of await runtime.listPodSandboxes({ labels: { "io.kubernetes.pod.name": name } })) await runtime.removePodSandbox(sb.id).catch(() => undefined);
    await runtime.close();
    await rm(dir, { recursive: true, force: true });
  });

  const first = start();
  // Wait until Ready, and until the container is older than the kubelet's 10 s restart window.
  let before: Pod | undefined;
  for (let i = 0; i < 120; i++) {
    before = await getPod(api, dir, name);
    const c = before?.status?.containerStatuses?.[0];
    const age = Date.now() - Date.parse(c?.state?.running?.startedAt ?? "");
    if (c?.ready && age > 11_000) break;
    await sleep(250);
  }
  const c0 = before?.status?.containerStatuses?.[0];
  assert.equal(c0?.ready, true, "pod became Ready");
  first.kill("SIGKILL");
  await new Promise((r) => first.once("exit", r));

  const running = await runtime.listContainers({ state: "running", labels: { "io.kubernetes.pod.name": name } });
  assert.equal(running.length, 1, "the container outlived the agent");

  start();
  const seen: string[] = [];
  for (let i = 0; i < 60; i++) {
    const pod = await getPod(api, dir, name);
    const c = pod?.status?.containerStatuses?.[0];
    if (c) seen.push(`${c.containerID} ready=${c.ready} restarts=${c.restartCount}`);
    await sleep(100);
  }
  assert.ok(seen.length > 20, "the restarted agent answered");
  assert.deepEqual([...new Set(seen)], [`${c0!.containerID} ready=true restarts=${c0!.restartCount}`]);
});
