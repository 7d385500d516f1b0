// @internal For tests. A probelet agent joined to the test control plane as one node: a real
// `probelet run --kubeconfig` process with its own state directory and daemon port, stopped by
// its PID, and polling helpers for what the API server shows.
import { spawn, type ChildProcess } from "node:child_process";
import { openSync, closeSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
// Test-only polling needs a referenced timer (the Clock's timers are unref'd on purpose).
import { setTimeout as delay } from "node:timers/promises";
import { kubectl, type ControlPlaneEnv } from "./control-plane-env.js";

const MAIN = join(import.meta.dirname, "..", "..", "src", "cli", "main.js");

/** @internal For tests. freePort returns a loopback TCP port that is free right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0));
    });
  });
}

/** @internal For tests. NodeAgent is one running (or stopped) agent process of a node. */
export class NodeAgent {
  private child: ChildProcess | undefined;
  private constructor(
    readonly env: ControlPlaneEnv,
    readonly nodeName: string,
    readonly stateDir: string,
    readonly kubeletPort: number,
    private readonly extraArgs: readonly string[],
    private readonly childEnv: Readonly<Record<string, string>>,
    private readonly nodeArgs: readonly string[],
  ) {}

  /**
   * create makes the state directory; start() runs the agent with `extraArgs`, `childEnv` added to
   * this process's environment, and `nodeArgs` for node itself (e.g. --cpu-prof, which NODE_OPTIONS
   * may not carry).
   */
  static async create(env: ControlPlaneEnv, nodeName: string, extraArgs: readonly string[] = [], childEnv: Readonly<Record<string, string>> = {}, nodeArgs: readonly string[] = []): Promise<NodeAgent> {
    const dir = await mkdtemp(join(tmpdir(), `probelet-node-${nodeName}-`));
    return new NodeAgent(env, nodeName, dir, await freePort(), extraArgs, childEnv, nodeArgs);
  }

  /** start runs `probelet run --kubeconfig` for the node, logging into the state directory. */
  start(): void {
    const kubeconfig = this.env.nodeKubeconfigs.get(this.nodeName);
    if (kubeconfig === undefined) throw new Error(`the control plane has no kubeconfig for node ${this.nodeName}`);
    const out = openSync(join(this.stateDir, "agent.log"), "a");
    this.child = spawn(process.execPath, [
      ...this.nodeArgs, MAIN, "run", "--kubeconfig", kubeconfig, "--node-name", this.nodeName, "--state-dir", join(this.stateDir, "state"),
      "--listen", "127.0.0.1:0", "--kubelet-port", String(this.kubeletPort), "--client-ca-file", this.env.kubeletClientCa,
      "--log-level", "info", "--quiet", ...this.extraArgs,
    ], { stdio: ["ignore", out, out], env: { ...process.env, ...this.childEnv } });
    closeSync(out);
  }

  /** pid of the running agent (undefined once it exited or a signal ended it). */
  get pid(): number | undefined {
    return this.child?.exitCode === null && this.child.signalCode === null ? this.child.pid : undefined;
  }

  /** kill sends a signal and waits (at most 60 s) for the agent to exit. */
  async kill(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill(signal);
    const timer = new AbortController();
    await Promise.race([exited, delay(60_000, undefined, { signal: timer.signal }).catch(() => undefined)]);
    timer.abort();
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await exited;
    }
  }

  /** log is what the agent wrote so far (for failure messages). */
  log(): string {
    try {
      return readFileSync(join(this.stateDir, "agent.log"), "utf8").slice(-4000);
    } catch {
      return "";
    }
  }

  /** destroy stops the agent (gracefully, then by force) and removes its state directory. */
  async destroy(): Promise<void> {
    await this.kill("SIGTERM");
    await rm(this.stateDir, { recursive: true, force: true });
  }
}

/** @internal For tests. admin runs kubectl 1.37 as the cluster admin and fails on a non-zero exit. */
export async function admin(env: ControlPlaneEnv, args: readonly string[]): Promise<string> {
  const got = await kubectl(env.adminKubeconfig, args);
  if (got.code !== 0) throw new Error(`kubectl ${args.join(" ")}: ${got.stderr.trim()}`);
  return got.stdout;
}

/** @internal For tests. adminJson runs kubectl … -o json as the admin and parses the answer. */
export async function adminJson<T>(env: ControlPlaneEnv, args: readonly string[]): Promise<T> {
  return JSON.parse(await admin(env, [...args, "-o", "json"])) as T;
}

/**
 * @internal For tests. waitFor polls `probe` every 300 ms until it returns a value other than
 * undefined, failing with `what` (and the last value seen) after timeoutMs.
 */
export async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (let i = 0; i < 10_000 && Date.now() < deadline; i++) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err instanceof Error ? err.message : err;
    }
    await delay(300);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last !== undefined ? ` (last error: ${String(last)})` : ""}`);
}
