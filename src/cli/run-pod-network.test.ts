// probelet run on the process runtime as root with the CNI plugins: every pod gets its own network
// namespace on the agent's bridge, so two pods listen on the same port, httpGet readiness probes
// reach each at its own pod IP, kill -9 and a restart keep the IPs, the containers and readiness
// (a watch of the restarted agent sees no Ready other than True: issue 23.4), and a graceful stop
// releases every namespace and IP.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Pod } from "../api/types.js";
import { getJson } from "../../test/cri/agent-cli.js";
import { releasePodNetworks } from "../../test/pod-network-cleanup.js";
import { waitFor } from "../../test/process-testing.js";
import { freePort } from "../../test/cri/containerd-env.js";
import { supervisorAvailable } from "../runtime/process/supervised-process.js";
import { PodNetwork, podNetnsDir } from "../runtime/process/pod-network.js";
import { podBridgeName } from "../runtime/process/pod-cidr.js";
import { systemClock } from "../util/clock.js";
import { silentLogger } from "../util/logger.js";

const cli = fileURLToPath(new URL("./main.js", import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const POD_CIDR = "10.88.252.0/24";

async function skipReason(): Promise<string | false> {
  if (!(await supervisorAvailable())) return "the supervisor helper is not built (no C compiler)";
  const reason = await new PodNetwork({ podCidr: POD_CIDR, bridge: "plpprobe" }, tmpdir(), () => Promise.reject(new Error("unused")), systemClock, silentLogger).unavailableReason();
  return reason ?? false;
}
const skip = await skipReason();

/**
 * watchPods connects a watch of the default namespace's pods to an agent as soon as it answers
 * (from resourceVersion 0: the pods as they are, then every change) and returns every pod it
 * delivered within `ms`.
 */
async function watchPods(api: string, stateDir: string, ms: number): Promise<Pod[]> {
  const token = readFileSync(join(stateDir, "agent-token"), "utf8").trim();
  const pods: Pod[] = [];
  const stop = AbortSignal.timeout(ms);
  while (!stop.aborted) {
    const res = await fetch(`${api}/api/v1/namespaces/default/pods?watch=1&resourceVersion=0`, { headers: { Authorization: `Bearer ${token}` }, signal: stop }).catch(() => undefined);
    if (!res?.ok || !res.body) {
      await sleep(20);
      continue;
    }
    let buffer = "";
    try {
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
        buffer += Buffer.from(chunk).toString("utf8");
        for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
          pods.push((JSON.parse(buffer.slice(0, nl)) as { object: Pod }).object);
          buffer = buffer.slice(nl + 1);
        }
      }
    } catch {
      // The time is up.
    }
    break;
  }
  return pods;
}

const podReady = (pod: Pod | undefined): boolean => pod?.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;

function webPod(name: string): string {
  const server = `require("http").createServer((q, r) => r.end("${name}")).listen(8080)`;
  return [
    `apiVersion: v1\nkind: Pod\nmetadata: { name: ${name} }\nspec:\n  terminationGracePeriodSeconds: 1\n  containers:\n    - name: web\n      image: busybox`,
    `      command: ${JSON.stringify([process.execPath, "-e", server])}`,
    "      readinessProbe: { httpGet: { port: 8080 }, periodSeconds: 1 }",
  ].join("\n");
}

test(
  "probelet run: two pods on the same port each get their own pod IP in --pod-cidr and become Ready through httpGet probes; kill -9 and a restart keep IPs and readiness; a graceful stop frees every namespace and IP",
  { skip, timeout: 90_000 },
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), "probelet-podnet-"));
    const stateDir = join(dir, "state");
    const bridge = podBridgeName(stateDir);
    const manifest = join(dir, "pods.yaml");
    await writeFile(manifest, `${webPod("alpha")}\n---\n${webPod("beta")}\n`);
    const api = `http://127.0.0.1:${await freePort()}`;
    const ipForward = readFileSync("/proc/sys/net/ipv4/ip_forward", "utf8");
    const children: ChildProcess[] = [];
    const start = (): ChildProcess => {
      const child = spawn(process.execPath, [cli, "run", "-f", manifest, "--listen", `127.0.0.1:${new URL(api).port}`, "--state-dir", stateDir, "--pod-cidr", POD_CIDR, "-q"], { stdio: "ignore" });
      children.push(child);
      return child;
    };
    const exited = (child: ChildProcess): Promise<unknown> => (child.exitCode === null && child.signalCode === null ? new Promise((r) => child.once("exit", r)) : Promise.resolve());
    t.after(async () => {
      for (const child of children) {
        child.kill("SIGTERM");
        await exited(child);
      }
      // Whatever a failed run left: namespace mounts, the bridge, the forwarding the bridge plugin turned on.
      releasePodNetworks(stateDir);
      writeFileSync("/proc/sys/net/ipv4/ip_forward", ipForward);
      await rm(dir, { recursive: true, force: true, maxRetries: 10 });
    });
    const pod = (name: string): Promise<Pod | undefined> => getJson<Pod>(`${api}/api/v1/namespaces/default/pods/${name}`, stateDir);

    const first = start();
    // Ready, and older than the 10 s within which an agent restart does not keep probe state.
    const ready = (name: string): Promise<Pod> =>
      waitFor(`${name} Ready, 11 s old`, async () => {
        const got = await pod(name).catch(() => undefined);
        const age = Date.now() - Date.parse(got?.status?.containerStatuses?.[0]?.state?.running?.startedAt ?? "");
        return podReady(got) && age > 11_000 ? got : undefined;
      }, { timeoutMs: 30_000, intervalMs: 100 });
    const [alpha, beta] = [await ready("alpha"), await ready("beta")];
    const ips = [alpha.status?.podIP ?? "", beta.status?.podIP ?? ""];
    for (const ip of ips) assert.match(ip, /^10\.88\.252\.\d+$/, "the pod IP is in --pod-cidr, not the host's");
    assert.notEqual(ips[0], ips[1]);
    assert.deepEqual(alpha.status?.podIPs, [{ ip: ips[0] }]);

    const ids = [alpha, beta].map((p) => p.status?.containerStatuses?.[0]?.containerID ?? "");
    first.kill("SIGKILL");
    await exited(first);
    start();
    // A watch of the restarted agent sees every status it publishes (a poll could miss a flap).
    const seen = new Set<string>();
    for (const got of await watchPods(api, stateDir, 5000)) {
      const c = got.status?.containerStatuses?.[0];
      seen.add(`${got.metadata.name ?? ""} ${got.status?.podIP ?? ""} ready=${podReady(got)} ${c?.containerID ?? ""} restarts=${c?.restartCount ?? 0}`);
    }
    assert.deepEqual([...seen].sort(), [`alpha ${ips[0]} ready=true ${ids[0]} restarts=0`, `beta ${ips[1]} ready=true ${ids[1]} restarts=0`], "the restarted agent kept both IPs and containers and never reported them not Ready");

    const second = children[1]!;
    second.kill("SIGTERM");
    await exited(second);
    assert.ok(!existsSync(podNetnsDir(stateDir)), "no namespace is left");
    assert.ok(!existsSync(`/sys/class/net/${bridge}`), "the bridge is gone with the last pod");
    const reserved = await readdir(join(stateDir, "cni-ipam", `probelet-${bridge}`)).catch(() => [] as string[]);
    assert.deepEqual(reserved.filter((f) => ips.includes(f)), [], "both IPs are released");
  },
);
