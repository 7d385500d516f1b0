// The attacks of issue 22, run as a second local user (nobody, through setpriv) against real
// agents, each in a network namespace of its own where ports are bound: a squatter on :10255
// and on an agent's recorded ports gets nothing from the owner's CLI; a state directory someone
// else made, or could write to, is refused untouched, and symbolic links planted in it are never
// followed; an older agent's 0755 directory is narrowed so nobody can look in or hold its lock;
// 2,000 silent connections leave the owner answered within a second. Needs root (setpriv, ip netns).
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import { stopAgentProcess } from "../../test/agent-process.js";
import { getOnNewConnection } from "../../test/e2e/host.js";

const cli = fileURLToPath(new URL("./main.js", import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const NOBODY = 65534;
const AS_NOBODY = ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups"];

/** skipReason says why these tests cannot run here, or false. */
function skipReason(): string | false {
  if (process.getuid?.() !== 0) return "needs root: setpriv to the user nobody and network namespaces of its own";
  if (spawnSync("setpriv", ["--version"]).status !== 0) return "setpriv (util-linux) is not installed";
  if (spawnSync("ip", ["-V"]).status !== 0) return "ip (iproute2) is not installed";
  return false;
}

// hostNetwork: these attacks need no pod network, and an agent killed with kill -9 (or run
// inside `ip netns exec`, which gives it a mount namespace of its own) would leave one behind.
const POD = `apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  hostNetwork: true
  terminationGracePeriodSeconds: 1
  containers:
  - name: app
    image: busybox
    command: ["sh", "-c", "echo hello; echo -n bye > \\"$PROBELET_TERMINATION_MESSAGE_PATH\\"; exec sleep 300"]
`;

/** netns makes a network namespace with loopback up for the test, removed when it ends; returns the argv prefix that runs in it. */
async function netns(t: TestContext): Promise<string[]> {
  const name = `probelet-sec-${process.pid}-${Math.floor(Math.random() * 1e6)}`;
  assert.equal(spawnSync("ip", ["netns", "add", name]).status, 0, "ip netns add");
  t.after(() => void spawnSync("ip", ["netns", "del", name]));
  assert.equal(spawnSync("ip", ["-n", name, "link", "set", "lo", "up"]).status, 0);
  return ["ip", "netns", "exec", name];
}

/** tempDir is a directory anyone may enter and make things in (sticky, like /tmp), removed at the end. */
async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "probelet-others-"));
  await chmod(dir, 0o1777);
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** start runs argv in the background until the test ends (stopped as Ctrl-C stops an agent, then killed, by its PID). */
function start(t: TestContext, argv: string[], env: NodeJS.ProcessEnv = process.env): { child: ChildProcess; out: () => string; err: () => string } {
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ["ignore", "pipe", "pipe"], env, cwd: "/" });
  let out = "";
  let err = "";
  child.stdout!.on("data", (c: Buffer) => void (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => void (err += c.toString()));
  t.after(() => stopAgentProcess(child));
  return { child, out: () => out, err: () => err };
}

/** run runs argv to its end. */
function run(argv: string[], env: NodeJS.ProcessEnv = process.env): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(argv[0]!, argv.slice(1), { encoding: "utf8", env, timeout: 30_000, cwd: "/" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** until polls check every 100 ms for up to `tries` times. */
async function until<T>(what: string, tries: number, check: () => T | undefined | Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const value = await check();
    if (value !== undefined) return value;
    await sleep(100);
  }
  return assert.fail(`timed out waiting for ${what}`);
}

/** squatter listens as nobody on ports of 127.0.0.1 and prints every connection and request it gets, as JSON lines. */
function squatter(t: TestContext, inNetns: string[], ports: number[]): { seen: () => { port: number; authorization?: string; path?: string }[] } {
  const script = `
    const http = require("node:http");
    for (const port of process.argv.slice(1).map(Number)) {
      const server = http.createServer((req, res) => {
        console.log(JSON.stringify({ port, path: req.url, authorization: req.headers.authorization }));
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ kind: "PodList", apiVersion: "v1", metadata: {}, items: [] }));
      });
      server.on("connection", () => console.log(JSON.stringify({ port })));
      server.listen(port, "127.0.0.1", () => console.log(JSON.stringify({ listening: port })));
    }`;
  const s = start(t, [...inNetns, ...AS_NOBODY, process.execPath, "-e", script, ...ports.map(String)]);
  const seen = () => s.out().split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as { port: number; listening?: number; authorization?: string; path?: string }).filter((e) => e.listening === undefined);
  return { seen };
}

test("a squatter on :10255, and on the ports a killed agent recorded, gets nothing from the owner's CLI", { timeout: 120_000, skip: skipReason() }, async (t) => {
  const inNetns = await netns(t);
  const dir = await tempDir(t);
  const state = join(dir, "state");
  await writeFile(join(dir, "pod.yaml"), POD);
  const trap = squatter(t, inNetns, [10255]);
  const agent = start(t, [...inNetns, process.execPath, cli, "run", "-q", "-f", join(dir, "pod.yaml"), "--listen", "127.0.0.1:0", "--state-dir", state]);
  await until("the agent", 150, () => (agent.out().includes("agent running") ? true : undefined));
  const owner: NodeJS.ProcessEnv = { ...process.env, PROBELET_STATE_DIR: state };
  delete owner["PROBELET_SERVER"];
  const listed = await until("the pod running", 150, () => {
    const r = run([...inNetns, process.execPath, cli, "get", "pods"], owner);
    return /^web\s+1\/1\s+Running/m.test(r.stdout) ? r : undefined;
  });
  assert.equal(listed.code, 0, listed.stderr);
  for (const args of [["describe", "pod", "web"], ["logs", "web"], ["explain", "pod", "web"], ["console", "--no-open"]]) {
    const r = run([...inNetns, process.execPath, cli, ...args], owner);
    assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
  }
  assert.deepEqual(trap.seen(), [], "nothing reached :10255");

  // kill -9 leaves agent-url (and the socket file) behind; another user takes the recorded ports.
  const [http, https] = (await readFile(join(state, "agent-url"), "utf8")).trim().split("\n").map((u) => Number(new URL(u).port));
  agent.child.kill("SIGKILL");
  await until("the agent's exit", 100, () => (agent.child.exitCode !== null || agent.child.signalCode !== null ? true : undefined));
  const taken = squatter(t, inNetns, [http!, https!]);
  await sleep(500);
  for (const args of [["get", "pods"], ["logs", "web"], ["console", "--no-open"], ["kubeconfig"], ["apply", "-f", join(dir, "pod.yaml")]]) {
    const r = run([...inNetns, process.execPath, cli, ...args], owner);
    assert.equal(r.code, 1, `${args.join(" ")} must fail: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, new RegExp(`cannot reach the probelet agent at unix:${state}/agent\\.sock`), args.join(" "));
  }
  assert.deepEqual([...trap.seen(), ...taken.seen()], [], "no connection, no token reached a squatter");
  // A new agent adopts the container the killed one left, and stops it when the test ends.
  const again = start(t, [...inNetns, process.execPath, cli, "run", "-q", "-f", join(dir, "pod.yaml"), "--listen", "127.0.0.1:0", "--state-dir", state]);
  await until("the second agent", 150, () => (again.out().includes("agent running") ? true : undefined));
});

test("a state directory another user made (with a chosen token and planted links) is refused, and nothing in it or behind it is touched", { timeout: 60_000, skip: skipReason() }, async (t) => {
  const dir = await tempDir(t);
  const state = join(dir, "state");
  const victim = join(dir, "victim");
  await writeFile(victim, "precious\n", { mode: 0o644 });
  const plant = `mkdir -m 0777 ${state} && printf known > ${state}/agent-token && ln -s ${victim} ${state}/agent.pid && ln -s ${victim} ${state}/agent-url && ln -s ${victim} ${state}/agent.lock`;
  assert.equal(run([...AS_NOBODY, "sh", "-c", plant]).code, 0);
  await writeFile(join(dir, "pod.yaml"), POD);
  const before = (await readdir(state)).sort();
  const r = run([process.execPath, cli, "run", "-q", "-f", join(dir, "pod.yaml"), "--listen", "127.0.0.1:0", "--state-dir", state]);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.equal(r.stderr, `error: refusing the state directory ${state}: it is owned by uid ${NOBODY}, not by uid 0 who runs probelet, so its token and files are not yours to trust; remove it, or give --state-dir a directory of your own\n`);
  assert.deepEqual((await readdir(state)).sort(), before, "nothing was made in it");
  assert.equal(await readFile(join(state, "agent-token"), "utf8"), "known");
  assert.equal(await readFile(victim, "utf8"), "precious\n");
  assert.equal((await lstat(victim)).mode & 0o7777, 0o644);
  const client = run([process.execPath, cli, "get", "pods", "--state-dir", state]);
  assert.equal(client.code, 1);
  assert.match(client.stderr, /^error: refusing the state directory .*: it is owned by uid 65534/);

  // One of root's own, but left writable by everyone: refused as well.
  const open = join(dir, "open");
  await mkdir(open);
  await chmod(open, 0o777);
  const refused = run([process.execPath, cli, "run", "-q", "-f", join(dir, "pod.yaml"), "--listen", "127.0.0.1:0", "--state-dir", open]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /^error: refusing the state directory .*: it is writable by group or others \(mode 0777\), so anyone could have planted files in it; check what it holds, then chmod 700 /);
  assert.deepEqual(await readdir(open), []);
});

test("an older agent's 0755 state directory is narrowed: nobody can read its logs, forge a termination message or hold its lock", { timeout: 60_000, skip: skipReason() }, async (t) => {
  const dir = await tempDir(t);
  const state = join(dir, "state");
  await mkdir(state);
  await chmod(state, 0o755);
  await writeFile(join(state, "agent.lock"), "");
  await chmod(join(state, "agent.lock"), 0o644);
  await writeFile(join(dir, "pod.yaml"), POD);
  const agent = start(t, [process.execPath, cli, "run", "-q", "-f", join(dir, "pod.yaml"), "--listen", "127.0.0.1:0", "--state-dir", state]);
  await until("the agent", 150, () => (agent.out().includes("agent running") ? true : undefined));
  const logDir = await until("the container's log", 100, async () => {
    const pods = await readdir(join(state, "pods")).catch(() => []);
    return pods.length > 0 ? join(state, "pods", pods[0]!, "app") : undefined;
  });
  await until("the termination-message file", 100, async () => ((await readdir(logDir).catch(() => [] as string[])).some((f) => f.endsWith(".termination-log")) ? true : undefined));
  assert.equal((await lstat(state)).mode & 0o7777, 0o700);
  assert.equal((await lstat(join(state, "pods"))).mode & 0o7777, 0o700);
  for (const file of ["agent.lock", "agent.pid", "agent-url", "agent-token", "agent.sock"]) assert.equal((await lstat(join(state, file))).mode & 0o077, 0, `${file} is the owner's alone`);
  const probe = `
    const fs = require("node:fs");
    const out = {};
    for (const [name, path, flags] of process.argv.slice(1).map((a) => a.split("|"))) {
      try { fs.closeSync(fs.openSync(path, flags)); out[name] = "opened"; } catch (e) { out[name] = e.code; }
    }
    console.log(JSON.stringify(out));`;
  const log = join(logDir, "0.log");
  const message = join(logDir, "0.termination-log");
  const asNobody = run([...AS_NOBODY, process.execPath, "-e", probe, `lock|${join(state, "agent.lock")}|r`, `log|${log}|r`, `termination|${message}|w`, `token|${join(state, "agent-token")}|r`, `socket dir|${state}|r`]);
  assert.equal(asNobody.code, 0, asNobody.stderr);
  assert.deepEqual(JSON.parse(asNobody.stdout), { lock: "EACCES", log: "EACCES", termination: "EACCES", token: "EACCES", "socket dir": "EACCES" });
});

test("2,000 silent connections from another user leave the owner's CLI and its token requests answered within a second, on an agent with 256 file descriptors", { timeout: 120_000, skip: skipReason() }, async (t) => {
  const dir = await tempDir(t);
  const state = join(dir, "state");
  await writeFile(join(dir, "pod.yaml"), POD);
  const agent = start(t, ["sh", "-c", `ulimit -n 256 && exec "$0" "$@"`, process.execPath, cli, "run", "-q", "-f", join(dir, "pod.yaml"), "--listen", "127.0.0.1:0", "--state-dir", state]);
  await until("the agent", 150, () => (agent.out().includes("agent running") ? true : undefined));
  const [http, https] = (await readFile(join(state, "agent-url"), "utf8")).trim().split("\n").map((u) => Number(new URL(u).port));
  const flood = `
    const net = require("node:net");
    let open = 0, settled = 0;
    const targets = process.argv.slice(1).map(Number);
    for (let i = 0; i < 2000; i++) {
      const s = net.connect(targets[i % targets.length], "127.0.0.1");
      s.once("connect", () => { open++; if (++settled === 2000) console.log(JSON.stringify({ open })); });
      s.once("error", () => { if (++settled === 2000) console.log(JSON.stringify({ open })); });
    }
    setInterval(() => undefined, 1000);`;
  const attacker = start(t, ["sh", "-c", `ulimit -n 4096 && exec "$0" "$@"`, ...AS_NOBODY, process.execPath, "-e", flood, String(http), String(https)]);
  const opened = await until("the flood", 300, () => (attacker.out().includes("open") ? (JSON.parse(attacker.out()) as { open: number }).open : undefined));
  assert.ok(opened >= 1000, `the flood opened ${opened} connections`);
  const owner = { ...process.env, PROBELET_STATE_DIR: state };
  const token = (await readFile(join(state, "agent-token"), "utf8")).trim();
  for (let i = 0; i < 5; i++) {
    let started = performance.now();
    const r = run([process.execPath, cli, "get", "pods"], owner);
    assert.equal(r.code, 0, r.stderr);
    const cli_ms = performance.now() - started;
    started = performance.now();
    assert.equal(await getOnNewConnection(http!, "/api/v1/pods", token), 200);
    const tcp_ms = performance.now() - started;
    // The CLI's own start (Node, imports) is most of its time; the request is answered well within a second.
    assert.ok(tcp_ms < 1000, `a token request over TCP took ${Math.round(tcp_ms)} ms`);
    assert.ok(cli_ms < 5000, `probelet get pods took ${Math.round(cli_ms)} ms`);
  }
  assert.doesNotMatch(agent.err(), /EMFILE/);
});
