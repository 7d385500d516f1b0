// kill -9 of the agent (the real CLI, a child process) and a restart with the same state
// directory, on the process runtime. With the supervisor helper the containers outlive the agent
// and the next agent adopts them as it would containerd's: same PIDs, same restart counts, Ready
// kept, one log file per instance, and an exit that happened meanwhile is seen and acted on.
// Without the helper (fallback) the next agent reaps what was left and starts the containers
// again, still keeping restart counts and last states from the saved status.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ContainerStatus, Pod } from "../api/types.js";
import { getJson, getText } from "../../test/cri/agent-cli.js";
import { freePort } from "../../test/cri/containerd-env.js";
import { supervisorAvailable } from "../runtime/process/supervised-process.js";
import { releasePodNetworks } from "../../test/pod-network-cleanup.js";

const cli = fileURLToPath(new URL("./main.js", import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** pidsRunning lists live (non-zombie) PIDs whose command line is exactly argv. */
async function pidsRunning(argv: string[]): Promise<number[]> {
  const out: number[] = [];
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const cmd = await readFile(`/proc/${name}/cmdline`, "utf8").catch(() => "");
    const stat = await readFile(`/proc/${name}/stat`, "utf8").catch(() => "");
    if (cmd === argv.join("\0") + "\0" && !/\) Z /.test(stat)) out.push(Number(name));
  }
  return out;
}

/** waitUntil polls `check` every 100 ms until it returns a value, at most `tries` times. */
async function waitUntil<T>(what: string, tries: number, check: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const value = await check();
    if (value !== undefined) return value;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Agents starts `probelet run` children on one state dir and API port, and kills what is left. */
class Agents {
  readonly children: ChildProcess[] = [];
  readonly stderr: string[] = [];
  constructor(
    private readonly manifest: string,
    private readonly stateDir: string,
    readonly api: string,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  start(): ChildProcess {
    const port = new URL(this.api).port;
    const child = spawn(process.execPath, [cli, "run", "-f", this.manifest, "--listen", `127.0.0.1:${port}`, "--state-dir", this.stateDir, "-q"], {
      stdio: ["ignore", "ignore", "pipe"],
      env: this.env,
    });
    const index = this.stderr.push("") - 1;
    child.stderr?.on("data", (d: Buffer) => (this.stderr[index] += d.toString()));
    this.children.push(child);
    return child;
  }

  async kill9(child: ChildProcess): Promise<void> {
    child.kill("SIGKILL");
    if (child.exitCode === null && child.signalCode === null) await new Promise((r) => child.once("exit", r));
  }

  async stopAll(): Promise<void> {
    for (const a of this.children) if (a.exitCode === null && a.signalCode === null) await this.kill9(a);
  }

  pod(name: string): Promise<Pod | undefined> {
    return getJson<Pod>(`${this.api}/api/v1/namespaces/default/pods/${name}`, this.stateDir);
  }

  logs(name: string, previous: boolean): Promise<string | undefined> {
    return getText(`${this.api}/api/v1/namespaces/default/pods/${name}/log${previous ? "?previous=true" : ""}`, this.stateDir);
  }
}

const container = (pod: Pod | undefined): ContainerStatus | undefined => pod?.status?.containerStatuses?.[0];
const podReady = (pod: Pod | undefined): boolean => pod?.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;

const supervisorSkip = (await supervisorAvailable()) ? false : "the supervisor helper is not built (no C compiler)";

test(
  "probelet run: after kill -9 the next agent adopts the process containers — same PIDs and restart counts, Ready never lost, per-instance logs, an exit while down restarted per policy",
  { skip: supervisorSkip, timeout: 90_000 },
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), "probelet-prestart-"));
    const marker = String(7000 + (process.pid % 1000));
    const flag = join(dir, "server-ran-once");
    const trigger = join(dir, "worker-exit");
    const serverArgv = ["sleep", marker];
    const workerScript = `echo worker started; while [ ! -e ${trigger} ]; do sleep 0.1; done; rm -f ${trigger}; echo worker exiting; exit 3`;
    const workerArgv = ["sh", "-c", workerScript];
    const manifest = join(dir, "pods.yaml");
    await writeFile(
      manifest,
      [
        "apiVersion: v1\nkind: Pod\nmetadata: { name: web }\nspec:\n  containers:\n    - name: server\n      image: busybox",
        `      command: ["sh", "-c", "if [ -e ${flag} ]; then echo server instance 2; exec sleep ${marker}; fi; touch ${flag}; echo server instance 1; exit 1"]`,
        "      readinessProbe: { exec: { command: [\"true\"] }, periodSeconds: 1 }",
        "---",
        "apiVersion: v1\nkind: Pod\nmetadata: { name: job }\nspec:\n  containers:\n    - name: worker\n      image: busybox",
        `      command: ${JSON.stringify(workerArgv)}`,
        "",
      ].join("\n"),
    );
    const agents = new Agents(manifest, join(dir, "state"), `http://127.0.0.1:${await freePort()}`);
    t.after(async () => {
      await agents.stopAll();
      for (const pid of [...(await pidsRunning(serverArgv)), ...(await pidsRunning(workerArgv))]) process.kill(pid, "SIGKILL");
      releasePodNetworks(join(dir, "state")); // what a failed run left of the pods' networks (root with the CNI plugins)
      await rm(dir, { recursive: true, force: true, maxRetries: 10 }); // supervisors may still be recording exits
    });

    const first = agents.start();
    // Ready on its second instance, and older than the 10 s within which probe state is not kept.
    const before = await waitUntil("web Ready on its second instance, 11 s old", 300, async () => {
      const pod = await agents.pod("web");
      const c = container(pod);
      const age = Date.now() - Date.parse(c?.state?.running?.startedAt ?? "");
      return c?.ready && c.restartCount === 1 && podReady(pod) && age > 11_000 ? c : undefined;
    });
    const worker = await waitUntil("the worker to run", 50, async () => {
      const c = container(await agents.pod("job"));
      return c?.state?.running ? c : undefined;
    });
    const serverPids = await pidsRunning(serverArgv);
    const workerPids = await pidsRunning(workerArgv);
    assert.equal(serverPids.length, 1);
    assert.equal(workerPids.length, 1);
    await agents.kill9(first);

    // While no agent runs: the containers go on, and the worker exits with code 3.
    assert.deepEqual(await pidsRunning(serverArgv), serverPids, "the server outlived the agent");
    await writeFile(trigger, "");
    await waitUntil("the worker to exit while the agent is down", 50, async () => ((await pidsRunning(workerArgv)).length === 0 ? true : undefined));

    agents.start();
    const seen = new Set<string>();
    let relaunched: ContainerStatus | undefined;
    for (let i = 0; i < 80; i++) {
      const web = await agents.pod("web");
      const c = container(web);
      if (c) seen.add(`${c.containerID} ready=${c.ready} podReady=${podReady(web)} restarts=${c.restartCount}`);
      const w = container(await agents.pod("job"));
      if (w?.state?.running && w.restartCount === 1) relaunched = w;
      if (relaunched && i >= 40) break;
      await sleep(100);
    }
    assert.ok(seen.size > 0, "the restarted agent answered");
    assert.deepEqual([...seen], [`${before.containerID} ready=true podReady=true restarts=1`], "web kept its container, readiness and restart count");
    assert.deepEqual(await pidsRunning(serverArgv), serverPids, "the same server process runs");

    assert.ok(relaunched, "the worker was restarted (restartPolicy Always)");
    assert.notEqual(relaunched.containerID, worker.containerID);
    assert.equal(relaunched.lastState?.terminated?.exitCode, 3, "its exit while the agent was down is its last state");
    assert.equal(relaunched.lastState?.terminated?.reason, "Error");
    assert.equal(relaunched.lastState?.terminated?.containerID, worker.containerID);

    assert.equal(await agents.logs("web", false), "server instance 2\n");
    assert.equal(await agents.logs("web", true), "server instance 1\n");
    await waitUntil("the new worker's log", 30, async () => ((await agents.logs("job", false)) === "worker started\n" ? true : undefined));
    assert.equal(await agents.logs("job", true), "worker started\nworker exiting\n");

    const second = agents.children[1]!;
    second.kill("SIGTERM");
    await new Promise((r) => second.once("exit", r));
    assert.deepEqual(await pidsRunning(serverArgv), [], "a graceful stop leaves nothing running");
    assert.deepEqual(await pidsRunning(workerArgv), []);
  },
);

test("probelet run without the supervisor helper: the next agent reaps what a killed agent left and keeps restart counts and last states", { timeout: 60_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "probelet-pfallback-"));
  const marker = String(8000 + (process.pid % 1000));
  const flag = join(dir, "ran-once");
  const argv = ["sleep", marker];
  const manifest = join(dir, "pod.yaml");
  await writeFile(
    manifest,
    `apiVersion: v1\nkind: Pod\nmetadata: { name: flaky }\nspec:\n  containers:\n    - name: app\n      image: busybox\n      command: ["sh", "-c", "if [ -e ${flag} ]; then echo again; exec sleep ${marker}; fi; touch ${flag}; echo first; exit 2"]\n`,
  );
  const agents = new Agents(manifest, join(dir, "state"), `http://127.0.0.1:${await freePort()}`, { ...process.env, PROBELET_SUPERVISOR: join(dir, "no-supervisor") });
  t.after(async () => {
    await agents.stopAll();
    for (const pid of await pidsRunning(argv)) process.kill(pid, "SIGKILL");
    await rm(dir, { recursive: true, force: true, maxRetries: 10 }); // supervisors may still be recording exits
  });

  const first = agents.start();
  const before = await waitUntil("the second instance to run", 100, async () => {
    const c = container(await agents.pod("flaky"));
    return c?.state?.running && c.restartCount === 1 ? c : undefined;
  });
  assert.equal(before.lastState?.terminated?.exitCode, 2);
  const old = await pidsRunning(argv);
  assert.equal(old.length, 1);
  await agents.kill9(first);

  agents.start();
  const after = await waitUntil("a new instance after the restart", 100, async () => {
    const c = container(await agents.pod("flaky"));
    return c?.state?.running && c.containerID !== before.containerID ? c : undefined;
  });
  const now = await pidsRunning(argv);
  assert.equal(now.length, 1, "exactly one instance runs: the old one was reaped");
  assert.notEqual(now[0], old[0]);
  assert.equal(after.restartCount, 2, "the restart count went on from the saved status and the log directory");
  assert.equal(after.lastState?.terminated?.reason, "ContainerStatusUnknown", "the instance lost with the agent is the last state");
  assert.equal(after.lastState?.terminated?.exitCode, 137);
  assert.equal(await agents.logs("flaky", false), "again\n", "the new instance writes its own log file");
  for (const text of agents.stderr) assert.equal(text.match(/will not outlive the agent/g)?.length, 1, "each agent warns once that the helper is missing");
});

test("probelet run --leave-running on the process runtime: a stopped agent leaves its containers running and the next agent adopts them", { skip: supervisorSkip, timeout: 60_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "probelet-pleave-"));
  const marker = String(9000 + (process.pid % 1000));
  const argv = ["sleep", marker];
  const manifest = join(dir, "pod.yaml");
  await writeFile(manifest, `apiVersion: v1\nkind: Pod\nmetadata: { name: stay }\nspec:\n  containers:\n    - name: s\n      image: busybox\n      command: ["sleep", "${marker}"]\n`);
  const stateDir = join(dir, "state");
  const api = `http://127.0.0.1:${await freePort()}`;
  const agents = new Agents(manifest, stateDir, api);
  t.after(async () => {
    await agents.stopAll();
    for (const pid of await pidsRunning(argv)) process.kill(pid, "SIGKILL");
    releasePodNetworks(stateDir); // as root with the CNI plugins the pod that was left running has its own network
    await rm(dir, { recursive: true, force: true, maxRetries: 10 }); // supervisors may still be recording exits
  });
  const leaving = spawn(process.execPath, [cli, "run", "-f", manifest, "--listen", `127.0.0.1:${new URL(api).port}`, "--state-dir", stateDir, "-q", "--leave-running"], { stdio: "ignore" });
  agents.children.push(leaving);
  const before = await waitUntil("the container to run", 100, async () => {
    const c = container(await agents.pod("stay"));
    return c?.state?.running ? c : undefined;
  });
  const pids = await pidsRunning(argv);
  leaving.kill("SIGTERM");
  const code = await new Promise((r) => leaving.once("exit", r));
  assert.equal(code, 0);
  assert.deepEqual(await pidsRunning(argv), pids, "the container was left running");

  agents.start();
  const adopted = await waitUntil("the next agent to report the container", 100, async () => container(await agents.pod("stay")));
  assert.equal(adopted.containerID, before.containerID);
  assert.equal(adopted.restartCount, 0);
  assert.deepEqual(await pidsRunning(argv), pids);
});

test("probelet run --leave-running refuses the process runtime when the supervisor helper is missing, before anything starts", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "probelet-pleave-refused-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, "pod.yaml"), `apiVersion: v1\nkind: Pod\nmetadata: { name: p }\nspec:\n  containers:\n    - name: s\n      image: busybox\n      command: ["sleep", "1"]\n`);
  const child = spawn(process.execPath, [cli, "run", "-f", join(dir, "pod.yaml"), "--state-dir", join(dir, "state"), "-q", "--leave-running"], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, PROBELET_SUPERVISOR: join(dir, "none") },
  });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise((r) => child.once("exit", r));
  assert.equal(code, 2);
  assert.match(stderr, /--leave-running needs the process supervisor helper \(.*none, built by npm run build with a C compiler\): without it process containers cannot outlive the agent/);
  assert.deepEqual(await readdir(join(dir)), ["pod.yaml"], "nothing was created");
});
