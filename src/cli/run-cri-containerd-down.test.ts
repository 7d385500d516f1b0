// containerd killed under a running agent, and started again: the agent keeps serving its API,
// exec probes error without killing anything, pod syncs are skipped once the runtime counts as
// down (30 s, kubelet runtimeErrors), and when containerd is back the same containers are still
// running, Ready, with no restart. Runs on a containerd of its own so the shared one is untouched.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { getJson, webServerPodYaml } from "../../test/cri/agent-cli.js";
import { criTestEnv, freePort } from "../../test/cri/containerd-env.js";
import { runContainerdScript } from "../../test/cri/containerd-script.js";
import type { Pod } from "../api/types.js";
import { CriRuntime } from "../runtime/cri/cri-runtime.js";

const { skip } = criTestEnv();
const cli = fileURLToPath(new URL("./main.js", import.meta.url));

test("[cri] containerd killed mid-run: the agent keeps serving, nothing is killed, and the same containers stay Ready once containerd is back", { skip, timeout: 240_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "probelet-cri-down-"));
  const runDir = join(dir, "containerd");
  const started: { agent?: ChildProcess } = {};
  // One hook, in this order: the agent first (it writes into dir until it exits), then containerd, then dir.
  t.after(async () => {
    const { agent } = started;
    if (agent && agent.exitCode === null && agent.signalCode === null) {
      agent.kill("SIGTERM");
      await Promise.race([new Promise((r) => agent.once("exit", r)), sleep(15_000)]);
      if (agent.exitCode === null && agent.signalCode === null) agent.kill("SIGKILL");
    }
    runContainerdScript("clean", runDir);
    await rm(dir, { recursive: true, force: true });
  });
  const env = runContainerdScript("start", runDir);
  const socket = env["PROBELET_CRI_SOCKET"]!;
  const containerdPid = (): number => Number(readFileSync(join(runDir, "containerd.pid"), "utf8").trim());

  const webPort = await freePort();
  const apiPort = await freePort();
  const api = `http://127.0.0.1:${apiPort}`;
  const manifest = join(dir, "pod.yaml");
  await writeFile(manifest, webServerPodYaml("steady", webPort, { periodSeconds: 1, failureThreshold: 1 }));
  let stderr = "";
  const agent = spawn(
    process.execPath,
    [cli, "run", "--runtime", "cri", "--cri-socket", socket, "-f", manifest, "--listen", `127.0.0.1:${apiPort}`, "--state-dir", join(dir, "state"), "-q"],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  started.agent = agent;
  agent.stderr!.on("data", (chunk: Buffer) => void (stderr += chunk.toString()));
  const pod = () => getJson<Pod>(`${api}/api/v1/namespaces/default/pods/steady`, join(dir, "state"));
  const logged = (msg: string): boolean => stderr.split("\n").some((line) => line.includes(`"msg":"${msg}"`));

  let before: Pod | undefined;
  for (let i = 0; i < 120 && !before?.status?.containerStatuses?.[0]?.ready; i++) {
    await sleep(250);
    before = await pod();
  }
  const c0 = before?.status?.containerStatuses?.[0];
  assert.equal(c0?.ready, true, `pod became Ready; agent stderr:\n${stderr}`);

  // containerd dies; its shims and the container go on.
  process.kill(containerdPid(), "SIGKILL");
  const seen = new Set<string>();
  for (let i = 0; i < 36; i++) {
    await sleep(1000);
    const c = (await pod())?.status?.containerStatuses?.[0];
    seen.add(c ? `${c.containerID} ready=${c.ready} restarts=${c.restartCount}` : "no answer");
  }
  assert.deepEqual([...seen], [`${c0!.containerID} ready=true restarts=0`], "the API answered throughout with the last status");
  assert.ok(logged("Relisting containers failed"), stderr);
  assert.ok(logged("Skipping pod synchronization"), stderr);
  assert.match(stderr, /"err":"container runtime is down"/);
  const events = (await getJson<{ items: Array<{ reason: string; message: string }> }>(`${api}/api/v1/namespaces/default/events`, join(dir, "state")))?.items ?? [];
  assert.ok(events.some((e) => e.reason === "Unhealthy" && e.message.startsWith("Liveness probe errored")), JSON.stringify(events));

  // containerd comes back on the same state: it finds its shims again.
  runContainerdScript("start", runDir);
  for (let i = 0; i < 40 && !logged("Container runtime is up again; syncing every pod"); i++) await sleep(250);
  assert.ok(logged("Container runtime is up again; syncing every pod"), stderr);
  const after = new Set<string>();
  for (let i = 0; i < 6; i++) {
    await sleep(1000);
    const c = (await pod())?.status?.containerStatuses?.[0];
    after.add(c ? `${c.containerID} ready=${c.ready} restarts=${c.restartCount}` : "no answer");
  }
  assert.deepEqual([...after], [`${c0!.containerID} ready=true restarts=0`]);
  const eventsAfter = (await getJson<{ items: Array<{ reason: string; message: string }> }>(`${api}/api/v1/namespaces/default/events`, join(dir, "state")))?.items ?? [];
  assert.ok(!eventsAfter.some((e) => e.reason === "Killing"), JSON.stringify(eventsAfter));
  const runtime = new CriRuntime({ socket });
  try {
    const running = await runtime.listContainers({ state: "running" });
    assert.deepEqual(running.map((c) => `containerd://${c.id}`), [c0!.containerID]);
  } finally {
    await runtime.close();
  }
});
