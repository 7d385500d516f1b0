// The private containerd the real-runtime CRI tests use (started by scripts/containerd.sh),
// the reason to skip them when it is not there, and pod fixtures that always clean up.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, type TestContext } from "node:test";
import { CriRuntime } from "../../src/runtime/cri/cri-runtime.js";
import { cgroupMountPoints } from "../../src/runtime/cri/pod-cgroups.js";
import { RuntimeError, type ContainerConfig, type PodSandboxConfig } from "../../src/runtime/runtime.js";

/** BUSYBOX_IMAGE is busybox-static with /bin/liveness, /bin/test-webserver and /etc/probelet-image. */
export const BUSYBOX_IMAGE = "localhost/probelet/busybox:1";
/** GRPC_IMAGE runs a gRPC health server on node (--port, --http-port). */
export const GRPC_IMAGE = "localhost/probelet/grpc-health:1";

/** CriTestEnv describes the running private containerd. */
export interface CriTestEnv {
  socket: string;
  /** The cgroup prefix scripts/containerd.sh removes on stop. */
  cgroupPrefix: string;
  /** Whether a pod network (CNI bridge) is configured. */
  cni: boolean;
  subnet: string;
  /** The images the script imported. */
  images: ReadonlySet<string>;
}

/** criTestEnv reads the environment; `skip` is the reason the real-runtime tests cannot run, or false. */
export function criTestEnv(): { env: CriTestEnv; skip: false } | { env: undefined; skip: string } {
  if (process.platform !== "linux") return { env: undefined, skip: "containerd tests need Linux" };
  if (process.getuid?.() !== 0) return { env: undefined, skip: "containerd tests need root (run them as root)" };
  if (!onPath("containerd")) return { env: undefined, skip: "containerd is not installed (scripts/containerd.sh install)" };
  const socket = process.env["PROBELET_CRI_SOCKET"];
  if (!socket) return { env: undefined, skip: 'PROBELET_CRI_SOCKET is unset (eval "$(scripts/containerd.sh start)")' };
  if (!existsSync(socket)) return { env: undefined, skip: `no containerd socket at ${socket} (scripts/containerd.sh start)` };
  return {
    skip: false,
    env: {
      socket,
      cgroupPrefix: process.env["PROBELET_CRI_CGROUP_PARENT"] || "/probelet-test",
      cni: process.env["PROBELET_CRI_CNI"] === "1",
      subnet: process.env["PROBELET_CRI_SUBNET"] ?? "",
      images: new Set((process.env["PROBELET_CRI_IMAGES"] ?? "").split(" ").filter(Boolean)),
    },
  };
}

function onPath(binary: string): boolean {
  try {
    execFileSync("sh", ["-c", `command -v ${binary}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** freePort finds a loopback TCP port that is free right now (for hostNetwork servers). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** TestPod is a sandbox made by CriTestPods, with the config containers need. */
export interface TestPod {
  id: string;
  config: PodSandboxConfig;
}

/**
 * CriTestPods makes sandboxes that are stopped and removed when the test ends, pass or fail
 * (t.after), and again by cleanup() for anything a crashed test left. Every sandbox carries
 * the label probelet.test/run=<this instance> so cleanup finds only its own.
 */
export class CriTestPods {
  private readonly run = Math.random().toString(36).slice(2, 10);
  private count = 0;
  private logRoot: string | undefined;

  constructor(readonly runtime: CriRuntime) {}

  /** newPod runs a hostNetwork sandbox (unless overridden) and schedules its removal. */
  async newPod(t: TestContext, overrides: Partial<PodSandboxConfig> = {}): Promise<TestPod> {
    this.logRoot ??= await mkdtemp(join(tmpdir(), "probelet-cri-logs-"));
    const n = ++this.count;
    const config: PodSandboxConfig = {
      podUid: `${this.run}-${n}`,
      name: `cri-test-${n}`,
      namespace: "default",
      attempt: 0,
      hostNetwork: true,
      logDirectory: join(this.logRoot, `pod-${n}`),
      labels: { "probelet.test/run": this.run },
      annotations: {},
      ...overrides,
    };
    const id = await this.runtime.runPodSandbox(config);
    t.after(() => this.remove(id));
    return { id, config };
  }

  /** start creates and starts a container in the pod. */
  async start(pod: TestPod, config: ContainerConfig): Promise<string> {
    const id = await this.runtime.createContainer(pod.id, config, pod.config);
    await this.runtime.startContainer(id);
    return id;
  }

  /** cleanup removes every sandbox of this instance still there, and the log directories. */
  async cleanup(): Promise<void> {
    try {
      const left = await this.runtime.listPodSandboxes({ labels: { "probelet.test/run": this.run } });
      for (const sandbox of left) await this.remove(sandbox.id);
    } finally {
      if (this.logRoot) await rm(this.logRoot, { recursive: true, force: true });
    }
  }

  /** leftoverCgroups lists pod cgroup directories of this instance's pods under `prefix`. */
  async leftoverCgroups(prefix: string): Promise<string[]> {
    const found: string[] = [];
    for (const mount of await cgroupMountPoints()) {
      const names = await readdir(join(mount, prefix)).catch(() => [] as string[]);
      for (const name of names) if (name.startsWith(`pod${this.run}-`)) found.push(join(mount, prefix, name));
    }
    return found;
  }

  private async remove(id: string): Promise<void> {
    await this.runtime.removePodSandbox(id).catch((err: unknown) => {
      if (!(err instanceof RuntimeError && err.code === "NotFound")) throw err;
    });
  }
}

/** shContainer is a busybox container running `sh -c script`. */
export function shContainer(name: string, script: string, overrides: Partial<ContainerConfig> = {}): ContainerConfig {
  return {
    name,
    attempt: 0,
    image: BUSYBOX_IMAGE,
    command: ["sh", "-c", script],
    args: [],
    envs: [],
    labels: {},
    annotations: {},
    logPath: `${name}/0.log`,
    ...overrides,
  };
}

/** SLEEPER is a PID-1 script that exits 0 on SIGTERM at once (a bare `sleep` would ignore it). */
export const SLEEPER = "trap 'exit 0' TERM; while :; do sleep 1 & wait $!; done";

/** CriSuite is what a real-containerd test file needs; `skip` is false when containerd is usable. */
export interface CriSuite {
  skip: string | false;
  env: CriTestEnv | undefined;
  runtime: CriRuntime;
  pods: CriTestPods;
}

/**
 * criSuite makes the file's runtime and pod fixtures and registers an after() hook that
 * removes whatever the tests left and fails if a pod cgroup of this file remains. When the
 * suite is skipped the runtime points at no socket and is never called.
 */
export function criSuite(): CriSuite {
  const found = criTestEnv();
  const cgroupPrefix = found.env?.cgroupPrefix ?? "/probelet-test";
  const runtime = new CriRuntime({ socket: found.env?.socket ?? "/nonexistent/probelet-cri.sock", cgroupPrefix });
  const pods = new CriTestPods(runtime);
  after(async () => {
    try {
      if (found.skip === false) {
        await pods.cleanup();
        const left = await pods.leftoverCgroups(cgroupPrefix);
        if (left.length > 0) throw new Error(`pod cgroups left behind: ${left.join(", ")}`);
      }
    } finally {
      await runtime.close();
    }
  });
  return { skip: found.skip, env: found.env, runtime, pods };
}
