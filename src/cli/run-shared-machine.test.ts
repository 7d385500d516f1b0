// `probelet run` on a machine shared with other agents and other users, as the built CLI runs:
// one agent per state directory, every request but /healthz needs the owner's token (a local
// user who cannot read it gets 401), and off loopback the API is HTTPS with a pinned certificate.
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import type { Pod } from "../api/types.js";

const cli = fileURLToPath(new URL("./main.js", import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const NOBODY = 65534;

/** canRunAsNobody says why the non-owner case cannot run here, or undefined. */
function nobodySkip(): string | undefined {
  if (process.getuid?.() !== 0) return "switching to the user nobody needs root";
  if (spawnSync("setpriv", ["--version"]).status !== 0) return "setpriv (util-linux) is not installed";
  return undefined;
}

const POD = (name: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: app
    image: busybox
    command: ["sleep", "300"]
`;

interface RunningAgent {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
}

/** startAgent runs `probelet run ARGS` and resolves once it prints its status API URL. */
async function startAgent(t: TestContext, args: string[]): Promise<RunningAgent> {
  const child = spawn(process.execPath, [cli, "run", "-q", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  t.after(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGINT");
    await Promise.race([exited, sleep(15_000)]);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  let out = "";
  let err = "";
  child.stdout!.on("data", (c: Buffer) => void (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => void (err += c.toString()));
  for (let i = 0; i < 150; i++) {
    const url = /status API (https?:\/\/\S+?)[ ,]/.exec(out)?.[1];
    if (url !== undefined) return { child, url, stdout: () => out, stderr: () => err };
    if (child.exitCode !== null) break;
    await sleep(100);
  }
  assert.fail(`the agent did not start: ${out}${err}`);
}

/** runToExit runs `probelet ARGS` and resolves with its exit code and output. */
function runToExit(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { stdio: ["ignore", "pipe", "pipe"], env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => void (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => void (stderr += c.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "probelet-shared-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** runningPod waits until the agent at url reports the pod's container running, and returns the pod. */
async function runningPod(url: string, stateDir: string, name: string): Promise<Pod> {
  const token = (await readFile(join(stateDir, "agent-token"), "utf8")).trim();
  for (let i = 0; i < 150; i++) {
    const res = await fetch(`${url}/api/v1/namespaces/default/pods/${name}`, { headers: { Authorization: `Bearer ${token}` } }).catch(() => undefined);
    const pod = res?.ok ? ((await res.json()) as Pod) : undefined;
    if (pod?.status?.containerStatuses?.[0]?.state?.running) return pod;
    await sleep(100);
  }
  return assert.fail(`pod ${name} did not start`);
}

test("a second agent on a busy state directory exits naming the directory and the first agent's PID, and changes nothing", { timeout: 60_000 }, async (t) => {
  const dir = await tempDir(t);
  const state = join(dir, "state");
  await writeFile(join(dir, "a.yaml"), POD("first"));
  await writeFile(join(dir, "b.yaml"), POD("second"));
  await writeFile(join(dir, "bad.yaml"), POD("bad").replace("command:", "commandd:"));
  const first = await startAgent(t, ["-f", join(dir, "a.yaml"), "--listen", "127.0.0.1:0", "--state-dir", state]);
  const before = await runningPod(first.url, state, "first");

  const busy = await runToExit(["run", "-q", "-f", join(dir, "b.yaml"), "--listen", "127.0.0.1:0", "--state-dir", state]);
  assert.equal(busy.code, 1, busy.stderr);
  assert.equal(busy.stderr, `error: the state directory ${state} is in use by another probelet agent (PID ${first.child.pid}): stop it, or give this agent its own --state-dir\n`);
  const port = new URL(first.url).port;
  const badManifest = await runToExit(["run", "-q", "-f", join(dir, "bad.yaml"), "--listen", `127.0.0.1:${port}`, "--state-dir", state]);
  assert.equal(badManifest.code, 2, badManifest.stderr);
  assert.match(badManifest.stderr, /unknown field "spec\.containers\[0\]\.commandd"/);

  const after = await runningPod(first.url, state, "first");
  const [b, a] = [before.status?.containerStatuses?.[0], after.status?.containerStatuses?.[0]];
  assert.equal(a?.containerID, b?.containerID, "the first agent's container was not replaced");
  assert.equal(a?.restartCount, 0);
  assert.equal(first.child.exitCode, null, "the first agent still runs");
});

test("the owner's CLI needs no token flag; a local non-owner gets 401 for everything but /healthz", { timeout: 60_000, skip: nobodySkip() ?? false }, async (t) => {
  const dir = await tempDir(t);
  await chmod(dir, 0o755);
  const state = join(dir, "state");
  await writeFile(join(dir, "pod.yaml"), POD("secret-env"));
  const agent = await startAgent(t, ["-f", join(dir, "pod.yaml"), "--listen", "127.0.0.1:0", "--state-dir", state]);
  await runningPod(agent.url, state, "secret-env");

  const owner = await runToExit(["get", "pods"], { ...process.env, PROBELET_STATE_DIR: state });
  assert.equal(owner.code, 0, owner.stderr);
  assert.match(owner.stdout, /^secret-env\s+1\/1\s+Running/m);

  // As nobody: the token file is unreadable, and every request without it is refused.
  const script = `
    const fs = require("node:fs");
    const out = { tokenReadable: true };
    try { fs.readFileSync(process.argv[2]); } catch (e) { out.tokenReadable = e.code; }
    const body = JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name: "takeover" }, spec: { containers: [{ name: "c", image: "busybox", command: ["id"] }] } });
    const asks = [["GET", "/healthz"], ["GET", "/api/v1/pods"], ["GET", "/api/v1/namespaces/default/pods/secret-env"], ["GET", "/api/v1/namespaces/default/pods/secret-env/log"],
      ["POST", "/api/v1/namespaces/default/pods", body], ["DELETE", "/api/v1/namespaces/default/pods/secret-env"], ["GET", "/metrics"], ["GET", "/api/v1/events"]];
    (async () => {
      for (const [method, path, b] of asks) {
        const res = await fetch(process.argv[1] + path, { method, body: b, headers: b ? { "Content-Type": "application/json" } : {} });
        out[method + " " + path] = res.status;
      }
      console.log(JSON.stringify(out));
    })();`;
  const asNobody = spawnSync("setpriv", [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", process.execPath, "-e", script, agent.url, join(state, "agent-token")], { encoding: "utf8", timeout: 30_000, cwd: "/" });
  assert.equal(asNobody.status, 0, asNobody.stderr);
  assert.deepEqual(JSON.parse(asNobody.stdout), {
    tokenReadable: "EACCES",
    "GET /healthz": 200,
    "GET /api/v1/pods": 401,
    "GET /api/v1/namespaces/default/pods/secret-env": 401,
    "GET /api/v1/namespaces/default/pods/secret-env/log": 401,
    "POST /api/v1/namespaces/default/pods": 401,
    "DELETE /api/v1/namespaces/default/pods/secret-env": 401,
    "GET /metrics": 401,
    "GET /api/v1/events": 401,
  });
  const stillThere = await runningPod(agent.url, state, "secret-env");
  assert.equal(stillThere.status?.containerStatuses?.[0]?.restartCount, 0);
});

test("off loopback the agent serves HTTPS with a self-signed certificate whose fingerprint it prints; the owner's CLI pins it", { timeout: 60_000, skip: spawnSync("openssl", ["version"]).status === 0 ? false : "openssl is not installed (.ci/run installs it)" }, async (t) => {
  const dir = await tempDir(t);
  const state = join(dir, "state");
  await writeFile(join(dir, "pod.yaml"), POD("tls"));
  const agent = await startAgent(t, ["-f", join(dir, "pod.yaml"), "--listen", "0.0.0.0:0", "--state-dir", state]);
  assert.match(agent.stdout(), /status API https:\/\/0\.0\.0\.0:\d+ \(TLS certificate SHA-256 ([0-9A-F]{2}:){31}[0-9A-F]{2}\)/);
  // Only loopback is dialled: the wildcard listener answers there too.
  const url = `https://127.0.0.1:${new URL(agent.url).port}`;
  const owner = await runToExit(["get", "pods", "--server", url, "--state-dir", state]);
  assert.equal(owner.code, 0, owner.stderr);
  assert.match(owner.stdout, /^tls\s/m);
  const plain = await fetch(`http://127.0.0.1:${new URL(agent.url).port}/healthz`).then((r) => r.status, (e: Error) => e.message);
  assert.notEqual(plain, 200, "plain HTTP is not served off loopback");
  const stranger = await runToExit(["get", "pods", "--server", url, "--state-dir", join(dir, "elsewhere")], { ...process.env, PROBELET_TOKEN: "guess" });
  assert.equal(stranger.code, 1);
  assert.match(stranger.stderr, /self-signed certificate/);
});

test("run refuses --token on the command line and names --token-file instead", async () => {
  const run = await runToExit(["run", "-f", "x.yaml", "--token", "s3cret"]);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /^error: --token would show the token to every user of this machine \(ps\): use --token-file FILE$/m);
});
