import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { createLogger, silentLogger } from "../../util/logger.js";
import { systemClock } from "../../util/clock.js";
import { cidrContains, defaultPodCidr, parsePodCidr, podBridgeName, type PodCidr } from "./pod-cidr.js";
import { ensureRunRoot, PodNetwork, podNetnsDir } from "./pod-network.js";
import { ProcessRuntime } from "./process-runtime.js";
import { supervisorAvailable } from "./supervised-process.js";
import { isAlive, testContainerConfig, testSandboxConfig, waitFor } from "../../../test/process-testing.js";

const dir = await mkdtemp(join(tmpdir(), "probelet-pod-network-"));
const stateDir = join(dir, "state");
const bridge = podBridgeName(stateDir);
const podCidr = "10.88.251.0/24";
const network = { podCidr, bridge };
const runtimes: ProcessRuntime[] = [];
const pids: number[] = [];
const ipForward = readFileSync("/proc/sys/net/ipv4/ip_forward", "utf8");

async function skipReason(): Promise<string | false> {
  if (!haveSupervisor) return "the supervisor helper is not built (no C compiler)";
  const reason = await new PodNetwork(network, stateDir, () => Promise.reject(new Error("unused")), systemClock, silentLogger).unavailableReason();
  return reason ?? false;
}
const haveSupervisor = await supervisorAvailable();
const skip = await skipReason();

after(async () => {
  for (const runtime of runtimes) {
    for (const sandbox of await runtime.listPodSandboxes().catch(() => [])) await runtime.removePodSandbox(sandbox.id).catch(() => undefined);
    await runtime.close();
  }
  for (const pid of pids) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  if (!skip) {
    if (bridgeExists()) execFileSync("ip", ["link", "del", bridge], { stdio: "ignore" });
    writeFileSync("/proc/sys/net/ipv4/ip_forward", ipForward);
  }
  await rm(dir, { recursive: true, force: true });
});

function bridgeExists(): boolean {
  return existsSync(`/sys/class/net/${bridge}`);
}

function open(): ProcessRuntime {
  const runtime = new ProcessRuntime({ stateDir, podNetwork: network });
  runtimes.push(runtime);
  return runtime;
}

/** startWeb runs a pod whose container answers HTTP on port 8080 with the pod's name. */
async function startWeb(runtime: ProcessRuntime, name: string): Promise<{ sandboxId: string; id: string; ip: string }> {
  const sandbox = testSandboxConfig(join(dir, "logs", name), { name, podUid: `uid-${name}`, labels: { app: name } });
  const sandboxId = await runtime.runPodSandbox(sandbox);
  const server = `require("http").createServer((q, r) => r.end(${JSON.stringify(name)})).listen(8080)`;
  const config = testContainerConfig("web", "", { command: [process.execPath, "-e", server] });
  const id = await runtime.createContainer(sandboxId, config, sandbox);
  await runtime.startContainer(id);
  pids.push(runtime.pidOf(id)!);
  return { sandboxId, id, ip: (await runtime.podSandboxStatus(sandboxId)).podIP };
}

function httpGet(ip: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: ip, port, path: "/", timeout: 2000, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve(body));
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.end();
  });
}

test("parsePodCidr normalises an IPv4 CIDR and names what is wrong with a bad one", () => {
  const parsed = parsePodCidr("10.88.7.9/24") as PodCidr;
  assert.equal(parsed.text, "10.88.7.0/24");
  assert.ok(cidrContains(parsed, "10.88.7.200"));
  assert.ok(!cidrContains(parsed, "10.88.8.1"));
  assert.match(parsePodCidr("10.88.7.0") as string, /must be a valid IPv4 CIDR/);
  assert.match(parsePodCidr("fd00::/64") as string, /must be a valid IPv4 CIDR/);
  assert.match(parsePodCidr("10.0.0.0/30") as string, /between \/8 and \/28/);
});

test("the bridge and the default pod CIDR are derived from the state directory, apart from containerd.sh's 10.244.77.0/24", () => {
  assert.match(podBridgeName("/a"), /^plp[0-9a-f]{8}$/);
  assert.ok(podBridgeName("/a").length <= 15, "a Linux interface name has at most 15 bytes");
  assert.notEqual(podBridgeName("/a"), podBridgeName("/b"));
  const cidr = parsePodCidr(defaultPodCidr("/a")) as PodCidr;
  assert.match(cidr.text, /^10\.88\.(1?\d?\d)\.0\/24$/, "10.88.0.0 to 10.88.199.0: the rest stays for chosen CIDRs");
  assert.ok(!cidrContains(cidr, "10.244.77.1"));
});

test("pod networks are unavailable without the CNI plugins, and the reason names what is missing", async () => {
  const reason = await new PodNetwork({ ...network, pluginDir: dir }, stateDir, () => Promise.reject(new Error("unused")), systemClock, silentLogger).unavailableReason();
  if (process.getuid?.() === 0) assert.match(reason ?? "", /the CNI plugin .*loopback is missing \(Debian package containernetworking-plugins\)/);
  else assert.match(reason ?? "", /need root/);
});

test("pod networks are unavailable when another interface already has an address in the pod CIDR", { skip }, async () => {
  const reason = await new PodNetwork({ ...network, podCidr: "127.0.0.0/8" }, stateDir, () => Promise.reject(new Error("unused")), systemClock, silentLogger).unavailableReason();
  assert.equal(reason, "the pod CIDR 127.0.0.0/8 overlaps address 127.0.0.1 of interface lo; choose another with --pod-cidr");
});

test("without a usable pod network the runtime says why once, and its pods share the host's network (pod IP 127.0.0.1)", { skip: haveSupervisor ? false : "the supervisor helper is not built (no C compiler)" }, async () => {
  const lines: string[] = [];
  const logger = createLogger({ level: "warn", write: (line) => lines.push(line) });
  const fallbackDir = join(dir, "fallback");
  const runtime = new ProcessRuntime({ stateDir: fallbackDir, logger, podNetwork: { ...network, pluginDir: join(dir, "no-plugins") } });
  runtimes.push(runtime);
  const sandbox = testSandboxConfig(join(fallbackDir, "logs"));
  const first = await runtime.runPodSandbox(sandbox);
  const second = await runtime.runPodSandbox({ ...sandbox, podUid: "other" });
  assert.equal((await runtime.podSandboxStatus(first)).podIP, "127.0.0.1");
  assert.equal((await runtime.podSandboxStatus(second)).podIP, "127.0.0.1");
  const said = lines.map((l) => JSON.parse(l) as { msg: string; reason?: string }).filter((l) => l.msg === "Process pods share the host's network");
  assert.equal(said.length, 1);
  assert.match(said[0]?.reason ?? "", process.getuid?.() === 0 ? /the CNI plugin .*loopback is missing/ : /need root/);
});

test("two pods listening on the same port each get their own IP in the pod CIDR and answer there; exec runs in the pod's namespace", { skip, timeout: 60_000 }, async () => {
  const runtime = open();
  const a = await startWeb(runtime, "pod-a");
  const b = await startWeb(runtime, "pod-b");
  const cidr = parsePodCidr(podCidr) as PodCidr;
  assert.ok(cidrContains(cidr, a.ip) && cidrContains(cidr, b.ip), `${a.ip} and ${b.ip} are in ${podCidr}`);
  assert.notEqual(a.ip, b.ip);
  await waitFor("pod-a to answer at its IP", async () => (await httpGet(a.ip, 8080).catch(() => "")) === "pod-a");
  await waitFor("pod-b to answer at its IP", async () => (await httpGet(b.ip, 8080).catch(() => "")) === "pod-b");

  const exec = await runtime.runInContainer(a.id, ["ip", "-4", "-o", "addr", "show", "eth0"], { timeoutMs: 5000 });
  assert.match(exec.stdout.toString(), new RegExp(`inet ${a.ip.replaceAll(".", "\\.")}/24`));
  const loopback = await runtime.runInContainer(b.id, ["sh", "-c", "exec ip -o link | grep -c ': eth0@'"], { timeoutMs: 5000 });
  assert.equal(loopback.stdout.toString().trim(), "1", "the pod sees its own eth0, not the host's interfaces");

  const session = await runtime.execStream(b.id, ["ip", "-4", "-o", "addr", "show", "eth0"], { stdin: false, tty: false });
  let out = "";
  session.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  assert.equal(await session.exit, 0);
  assert.match(out, new RegExp(`inet ${b.ip.replaceAll(".", "\\.")}/24`));

  const tty = await runtime.execStream(b.id, ["ip", "-4", "-o", "addr", "show", "eth0"], { stdin: false, tty: true });
  let screen = "";
  tty.stdout.on("data", (chunk: Buffer) => (screen += chunk.toString()));
  assert.equal(await tty.exit, 0);
  assert.match(screen, new RegExp(`inet ${b.ip.replaceAll(".", "\\.")}/24`), "a tty exec runs in the pod's namespace too");
});

test("a hostNetwork pod shares the host's network even when pods get their own: pod IP 127.0.0.1, no namespace", { skip, timeout: 30_000 }, async () => {
  const runtime = open();
  const sandbox = testSandboxConfig(join(dir, "logs", "host"), { name: "host", podUid: "uid-host", hostNetwork: true });
  const id = await runtime.runPodSandbox(sandbox);
  assert.equal((await runtime.podSandboxStatus(id)).podIP, "127.0.0.1");
  assert.ok(!existsSync(join(podNetnsDir(stateDir), id)));
  await runtime.removePodSandbox(id);
});

test("a runtime over the same state directory (the agent was killed) adopts each pod with its namespace and IP, and removing the pod frees both", { skip, timeout: 60_000 }, async () => {
  const vethsOnBridge = (): number => execFileSync("ip", ["-o", "link", "show", "master", bridge], { encoding: "utf8" }).split("\n").filter((l) => l !== "").length;
  const first = open();
  const pod = await startWeb(first, "pod-c");
  const vethsWithPod = vethsOnBridge();
  await waitFor("pod-c to answer", async () => (await httpGet(pod.ip, 8080).catch(() => "")) === "pod-c");

  const second = open();
  const [adopted] = await second.listPodSandboxes({ labels: { app: "pod-c" } });
  assert.equal(adopted?.podIP, pod.ip, "the adopted sandbox keeps its IP");
  assert.equal((await second.containerStatus(pod.id)).state, "running");
  const exec = await second.runInContainer(pod.id, ["ip", "-4", "-o", "addr", "show", "eth0"], { timeoutMs: 5000 });
  assert.match(exec.stdout.toString(), new RegExp(`inet ${pod.ip.replaceAll(".", "\\.")}/`), "exec after adoption still enters the pod's namespace");

  const netns = join(podNetnsDir(stateDir), pod.sandboxId);
  assert.ok(existsSync(netns));
  const ipam = (): Promise<string[]> => readdir(join(stateDir, "cni-ipam", `probelet-${bridge}`)).catch(() => []);
  assert.ok((await ipam()).includes(pod.ip), "host-local holds the pod's IP");
  await second.removePodSandbox(pod.sandboxId);
  assert.ok(!isAlive(pids.at(-1)!), "the pod's container is gone");
  assert.ok(!existsSync(netns), "the namespace file is gone");
  assert.ok(!(await ipam()).includes(pod.ip), "the IP is released");
  assert.equal(vethsOnBridge(), vethsWithPod - 1, "the pod's veth is gone from the bridge");
  await second.removePodSandbox(pod.sandboxId);
});

test("closing the runtime once its last pod network is gone deletes the bridge and the namespace directory", { skip, timeout: 60_000 }, async () => {
  const runtime = open();
  await startWeb(runtime, "pod-d");
  assert.ok(bridgeExists());
  for (const sandbox of await runtime.listPodSandboxes()) await runtime.removePodSandbox(sandbox.id);
  await runtime.close();
  assert.ok(!bridgeExists(), "the bridge is gone");
  assert.ok(!existsSync(podNetnsDir(stateDir)), "the namespace directory is gone");
});

test("ensureRunRoot makes the runtime directory 0700 and refuses one that is a symlink, someone else's or writable by others", async (t) => {
  if (process.getuid?.() !== 0) return t.skip("needs root: the directory must be root's");
  const base = await mkdtemp(join(dir, "run-root-"));
  const fresh = join(base, "fresh");
  await ensureRunRoot(fresh);
  assert.equal(statSync(fresh).mode & 0o7777, 0o700);
  await ensureRunRoot(fresh); // an existing good one is fine
  const others = join(base, "others");
  mkdirSync(others, { mode: 0o700 });
  chmodSync(others, 0o777);
  await assert.rejects(ensureRunRoot(others), /it is writable by group \(mode 0777\)/);
  const stranger = join(base, "stranger");
  mkdirSync(stranger, { mode: 0o700 });
  chownSync(stranger, 65534, 65534);
  await assert.rejects(ensureRunRoot(stranger), /it is owned by uid 65534, not root/);
  const link = join(base, "link");
  symlinkSync(fresh, link);
  await assert.rejects(ensureRunRoot(link), /it is not a directory/);
});
