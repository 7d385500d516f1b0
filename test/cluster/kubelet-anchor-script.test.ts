// scripts/kubelet-anchor.sh against the real kubelet v1.37: it joins the control plane as a node of
// its own, runs a pod, survives a kill -9 of the kubelet, and its stop leaves the host as it was
// (kernel settings, cgroups, processes, mounts, the CNI bridge and network namespaces).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { readControlPlaneEnv } from "./control-plane-env.js";
import { runControlPlaneScript } from "./control-plane-script.js";
import { anchorUnavailable, kubeletPid, runAnchorScript, startAnchor, stopAnchor, type KubeletAnchorOptions } from "./kubelet-anchor.js";
import { admin, adminJson, waitFor } from "./node-agent.js";
import type { ControlPlaneEnv } from "./control-plane-env.js";

const unavailable = anchorUnavailable();
const SHARED = "/run/probelet-kubelet-anchor";

/** cgroupMounts lists the mount points of every cgroup hierarchy. */
function cgroupMounts(): string[] {
  return readFileSync("/proc/self/mountinfo", "utf8").split("\n").flatMap((line) => {
    const fields = line.split(" ");
    const dash = fields.indexOf("-");
    return dash > 0 && (fields[dash + 1] === "cgroup" || fields[dash + 1] === "cgroup2") ? [fields[4]!] : [];
  });
}

/** processesNaming lists PIDs whose command line contains `text`. */
function processesNaming(text: string): number[] {
  return readdirSync("/proc").filter((p) => /^\d+$/.test(p)).filter((p) => {
    try {
      return readFileSync(`/proc/${p}/cmdline`, "utf8").includes(text);
    } catch {
      return false;
    }
  }).map(Number);
}

/** otherAnchorsRunning: another anchor of the machine holds the recorded kernel settings. */
function otherAnchorsRunning(): boolean {
  try {
    return readdirSync(join(SHARED, "holders")).some((f) => existsSync(join(readFileSync(join(SHARED, "holders", f), "utf8").trim(), ".probelet-anchor")));
  } catch {
    return false;
  }
}

/** anonymousStatus is the HTTP status the kubelet API gives a client without credentials. */
function anonymousStatus(host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path: "/pods", rejectUnauthorized: false, timeout: 5000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end();
  });
}

/** sandboxNetns lists the network namespace files of the sandboxes in a containerd. */
function sandboxNetns(socket: string): string[] {
  const ctr = (args: string[]): string => execFileSync("ctr", ["-a", socket, "-n", "k8s.io", ...args], { encoding: "utf8", timeout: 10_000 });
  return ctr(["containers", "ls", "-q"]).split("\n").filter(Boolean).flatMap((id) => ctr(["containers", "info", id]).match(/\/var\/run\/netns\/cni-[0-9a-f-]+/g) ?? []);
}

/** withControlPlane runs `body` with the shared control plane, or a private one it starts and stops. */
async function withControlPlane(body: (cpDir: string, env: ControlPlaneEnv) => Promise<void>): Promise<void> {
  const shared = readControlPlaneEnv();
  if (shared.env !== undefined) return body(shared.env.dir, shared.env);
  const dir = await mkdtemp(join(tmpdir(), "probelet-cp-anchor-test-"));
  await rm(dir, { recursive: true });
  const started = runControlPlaneScript("start", dir, { PROBELET_CP_NODES: "unused" });
  try {
    assert.equal(started.status, 0, started.stderr);
    const env = readControlPlaneEnv({ ...process.env, ...started.exported });
    assert.ok(env.env, String(env.skip));
    await body(dir, env.env);
  } finally {
    runControlPlaneScript("stop", dir);
  }
}

test("the kubelet anchor joins as its own node, runs a pod, comes back after kill -9, and stop leaves the host as it found it", { skip: unavailable, timeout: 600_000 }, async () => {
  await withControlPlane(async (cpDir, cp) => {
    const dir = await mkdtemp(join(tmpdir(), "probelet-anchor-test-"));
    await rm(dir, { recursive: true });
    const options: KubeletAnchorOptions = { cpDir, dir, node: "anchor-script-test", subnet: "10.244.93.0/24" };
    const bridge = `plcri${createHash("sha256").update(join(dir, "cri")).digest("hex").slice(0, 8)}`;
    // kernel.panic gets a value of our own, so its restoration shows (the kubelet sets 10).
    const panicBefore = readFileSync("/proc/sys/kernel/panic", "utf8").trim();
    const others = otherAnchorsRunning();
    if (!others) writeFileSync("/proc/sys/kernel/panic", "7");
    const sysctls = ["vm/overcommit_memory", "vm/panic_on_oom", "kernel/panic", "kernel/panic_on_oops", "kernel/keys/root_maxkeys", "kernel/keys/root_maxbytes"];
    const before = Object.fromEntries(sysctls.map((s) => [s, readFileSync(`/proc/sys/${s}`, "utf8").trim()]));
    const podDir = await mkdtemp(join(tmpdir(), "probelet-anchor-pod-"));
    let netns: string[] = [];
    try {
      const env = await startAnchor(options);
      assert.equal(readFileSync("/proc/sys/kernel/panic", "utf8").trim(), "10", "the kubelet sets kernel.panic at start");
      const node = await adminJson<{ spec: { taints?: { key: string; effect: string }[] }; status: { nodeInfo: { kubeletVersion: string; containerRuntimeVersion: string }; conditions: { type: string; status: string }[]; addresses: { type: string; address: string }[] } }>(cp, ["get", "node", options.node]);
      assert.equal(node.status.nodeInfo.kubeletVersion, "v1.37.2");
      assert.deepEqual(node.spec.taints, [{ key: "probelet.dev/kubelet-anchor", effect: "NoSchedule" }], "only pinned pods land on the anchor");
      assert.match(node.status.nodeInfo.containerRuntimeVersion, /^containerd:\/\//);
      assert.equal(node.status.conditions.find((c) => c.type === "Ready")?.status, "True");
      const nodeIp = node.status.addresses.find((a) => a.type === "InternalIP")!.address;
      assert.equal(await anonymousStatus(nodeIp, env.port), 401, "the kubelet API refuses a client without credentials");
      assert.deepEqual(readFileSync(join(cgroupMounts().find((m) => m.endsWith("/cpuacct")) ?? "/sys/fs/cgroup", env.agentCgroup, "cgroup.procs"), "utf8").trim().split("\n"), [String(kubeletPid(env))], "the kubelet runs alone in its agent cgroup");

      await writeFile(join(podDir, "pod.json"), JSON.stringify({
        apiVersion: "v1", kind: "Pod", metadata: { name: "anchor-web", namespace: "default" },
        spec: {
          nodeName: options.node, terminationGracePeriodSeconds: 1,
          containers: [{ name: "web", image: "localhost/probelet/busybox:1", command: ["sh", "-c", "echo serving; exec test-webserver 8080"], readinessProbe: { httpGet: { path: "/", port: 8080 }, periodSeconds: 1 } }],
        },
      }));
      await admin(cp, ["create", "-f", join(podDir, "pod.json")]);
      type Pod = { status: { podIP?: string; conditions?: { type: string; status: string }[]; containerStatuses?: { restartCount: number; containerID?: string }[] } };
      const ready = await waitFor("the pod Ready on the kubelet", 90_000, async () => {
        const pod = await adminJson<Pod>(cp, ["get", "pod", "anchor-web"]);
        return pod.status.conditions?.find((c) => c.type === "Ready")?.status === "True" ? pod : undefined;
      });
      assert.ok(ready.status.podIP?.startsWith("10.244.93."), `pod IP ${ready.status.podIP} in the anchor's subnet`);
      assert.match(await admin(cp, ["logs", "anchor-web"]), /^serving$/m, "kubectl logs reaches the kubelet through the API server");
      netns = sandboxNetns(env.criSocket);
      assert.equal(netns.length, 1, "one pod sandbox with a network namespace");

      // An agent restart: kill -9, then start again on the same containerd; the pod keeps running.
      const first = kubeletPid(env);
      process.kill(first, "SIGKILL");
      await waitFor("the killed kubelet gone", 10_000, async () => (existsSync(`/proc/${first}`) ? undefined : true));
      const again = await startAnchor(options);
      assert.notEqual(kubeletPid(again), first);
      const after = await waitFor("the pod Ready after the restart", 60_000, async () => {
        const pod = await adminJson<Pod>(cp, ["get", "pod", "anchor-web"]);
        return pod.status.conditions?.find((c) => c.type === "Ready")?.status === "True" ? pod : undefined;
      });
      assert.equal(after.status.containerStatuses?.[0]?.restartCount, 0);
      assert.equal(after.status.containerStatuses?.[0]?.containerID, ready.status.containerStatuses?.[0]?.containerID, "the same container, adopted");
    } finally {
      await stopAnchor(options);
      await rm(podDir, { recursive: true, force: true });
      await admin(cp, ["delete", "pod", "anchor-web", "--force", "--grace-period=0", "--ignore-not-found"]).catch(() => "");
      await admin(cp, ["delete", "node", options.node, "--ignore-not-found"]).catch(() => "");
    }
    const restored = Object.fromEntries(sysctls.map((s) => [s, readFileSync(`/proc/sys/${s}`, "utf8").trim()]));
    if (!others) writeFileSync("/proc/sys/kernel/panic", panicBefore);
    assert.equal(existsSync(dir), false, "the run directory is removed");
    assert.deepEqual(processesNaming(dir), [], "no process of the anchor is left");
    for (const mnt of cgroupMounts()) {
      assert.equal(existsSync(join(mnt, `probelet-anchor-${createHash("sha256").update(dir).digest("hex").slice(0, 8)}`)), false, `no cgroup root left in ${mnt}`);
      assert.equal(existsSync(join(mnt, `probelet-anchor-${createHash("sha256").update(dir).digest("hex").slice(0, 8)}-agent`)), false, `no agent cgroup left in ${mnt}`);
    }
    assert.equal(readFileSync("/proc/self/mountinfo", "utf8").includes(dir), false, "no mount under the run directory");
    assert.equal(existsSync(`/sys/class/net/${bridge}`), false, "the CNI bridge is removed");
    for (const ns of netns) assert.equal(existsSync(ns), false, `${ns} is removed`);
    if (!others) assert.deepEqual(restored, before, "the kernel settings are restored");
  });
});

test("the kubelet anchor refuses a run directory it did not make and a node name the API server would refuse", { skip: unavailable }, async () => {
  const dir = await mkdtemp(join(tmpdir(), "probelet-anchor-foreign-"));
  try {
    await writeFile(join(dir, "keep"), "someone's file");
    const cpDir = readControlPlaneEnv().env?.dir ?? "/nonexistent";
    const foreign = await runAnchorScript("stop", { cpDir, dir, node: "x", subnet: "10.244.94.0/24" });
    assert.equal(foreign.code, 1);
    assert.match(foreign.stderr, /is not a kubelet anchor run directory: not touching it/);
    assert.ok(existsSync(join(dir, "keep")));
    const badName = await runAnchorScript("start", { cpDir, dir: join(dir, "run"), node: "Bad_Name", subnet: "10.244.94.0/24" });
    assert.equal(badName.code, 1);
    assert.match(badName.stderr, /PROBELET_ANCHOR_NODE: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/);
    assert.equal(existsSync(join(dir, "run")), false, "nothing is made for a refused start");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
