// A real `probelet run` (process runtime, built CLI) for tests that drive it with real kubectl:
// the agent serves HTTPS on loopback, `probelet kubeconfig` writes its kubeconfig to a 0600
// file, and each kubectl run gets that kubeconfig, a private --cache-dir per version, a private
// HOME and a bounded time. Everything lives in one owner-only temporary directory.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { KubectlVersion } from "./kubectl-env.js";

const CLI = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** KubectlRun is what a user sees of one kubectl run, and how long it took. */
export interface KubectlRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** KubectlOptions feed stdin, watch stdout as it comes (and may end kubectl), and bound the run. */
export interface KubectlOptions {
  input?: string;
  onStdout?: (soFar: string, stop: () => void) => void;
  timeoutMs?: number;
}

/** KubectlAgent is a running agent and the means to drive it with either kubectl. */
export interface KubectlAgent {
  /** dir is the owner-only temporary directory (state, manifests, kubeconfig, caches). */
  dir: string;
  kubeconfig: string;
  kubectl: (version: KubectlVersion, args: readonly string[], options?: KubectlOptions) => Promise<KubectlRun>;
  /** agentOutput is all the agent printed so far (stdout and stderr). */
  agentOutput: () => string;
  stop: () => Promise<void>;
}

/** startKubectlAgent runs `probelet run` (debug logs, so tests see everything it would log) with an empty manifest directory and writes its kubeconfig. */
export async function startKubectlAgent(paths: Record<KubectlVersion, string>): Promise<KubectlAgent> {
  const dir = await mkdtemp(join(tmpdir(), "probelet-kubectl-agent-"));
  await chmod(dir, 0o700);
  const stateDir = join(dir, "state");
  const manifests = join(dir, "manifests");
  await mkdir(manifests);
  const child = spawn(process.execPath, [CLI, "run", "-q", "--log-level", "debug", "--manifests", manifests, "--state-dir", stateDir, "--listen", "127.0.0.1:0"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (c: Buffer) => void (output += c.toString()));
  child.stderr!.on("data", (c: Buffer) => void (output += c.toString()));
  const stop = async (): Promise<void> => {
    await stopChild(child);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitForHttps(child, () => output);
    const kubeconfig = join(dir, "kubeconfig");
    const written = await runCli(["kubeconfig", "--state-dir", stateDir, "-o", kubeconfig]);
    assert.equal(written.code, 0, written.stderr);
    assert.equal((await stat(kubeconfig)).mode & 0o777, 0o600, "the kubeconfig is owner-only");
    const kubectl = (version: KubectlVersion, args: readonly string[], options: KubectlOptions = {}) =>
      runKubectl(paths[version], ["--kubeconfig", kubeconfig, "--cache-dir", join(dir, `cache-${version}`), ...args], dir, options);
    return { dir, kubeconfig, kubectl, agentOutput: () => output, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** waitForHttps resolves once the agent prints its HTTPS URL (it has then recorded it for `probelet kubeconfig`). */
async function waitForHttps(child: ChildProcess, output: () => string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (/HTTPS https:\/\/127\.0\.0\.1:\d+/.test(output())) return;
    if (child.exitCode !== null) break;
    await sleep(50);
  }
  assert.fail(`the agent did not start: ${output()}`);
}

/** stopChild ends the agent as Ctrl-C does (its pods stop gracefully), killing it after 15 s. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGINT");
  await Promise.race([exited, sleep(15_000)]);
  if (child.exitCode === null && child.signalCode === null) {
    child.kill("SIGKILL");
    await exited;
  }
}

/** runCli runs the built probelet CLI to completion (at most 20 s). */
function runCli(args: readonly string[]): Promise<KubectlRun> {
  return runProcess(process.execPath, [CLI, ...args], { ...process.env }, {});
}

function runKubectl(binary: string, args: readonly string[], home: string, options: KubectlOptions): Promise<KubectlRun> {
  return runProcess(binary, args, { PATH: process.env["PATH"] ?? "", HOME: home }, options);
}

/** runProcess runs one command with stdin fed and output collected; it is killed after timeoutMs (default 20 s). */
function runProcess(binary: string, args: readonly string[], env: NodeJS.ProcessEnv, options: KubectlOptions): Promise<KubectlRun> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ["pipe", "pipe", "pipe"], env });
    let stdout = "";
    let stderr = "";
    const stop = (): void => void child.kill("SIGKILL");
    const timer = setTimeout(stop, options.timeoutMs ?? 20_000);
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
      options.onStdout?.(stdout, stop);
    });
    child.stderr.on("data", (c: Buffer) => void (stderr += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: performance.now() - started });
    });
    child.stdin.end(options.input ?? "");
  });
}

/** writeManifest writes a manifest into the agent's temporary directory and returns its path. */
export async function writeManifest(agent: KubectlAgent, name: string, text: string): Promise<string> {
  const path = join(agent.dir, name);
  await writeFile(path, text, { mode: 0o600 });
  return path;
}

/**
 * eventually runs kubectl until its stdout passes `check` (at most `timeoutMs`, default 20 s)
 * and returns that run; it fails with the last run's output.
 */
export async function eventually(agent: KubectlAgent, version: KubectlVersion, args: readonly string[], check: (stdout: string) => boolean, timeoutMs = 20_000): Promise<KubectlRun> {
  const deadline = performance.now() + timeoutMs;
  let last: KubectlRun | undefined;
  while (performance.now() < deadline) {
    last = await agent.kubectl(version, args);
    if (last.code === 0 && check(last.stdout)) return last;
    await sleep(200);
  }
  assert.fail(`kubectl ${args.join(" ")} never passed the check: ${JSON.stringify(last)}`);
}

/** PodOptions shape podYaml's single container. */
export interface PodOptions {
  labels?: Record<string, string>;
  image?: string;
  graceSeconds?: number;
  /** readinessFile makes the pod Ready while this file exists (an exec probe every second). */
  readinessFile?: string;
}

/** podYaml is a one-container Pod manifest running `sh -c script` (image busybox:1 unless given). */
export function podYaml(name: string, script: string, options: PodOptions = {}): string {
  const labels = Object.entries(options.labels ?? {}).map(([k, v]) => `${k}: ${v}`).join(", ");
  const readiness =
    options.readinessFile === undefined ? "" : `\n    readinessProbe: {exec: {command: [test, -f, ${JSON.stringify(options.readinessFile)}]}, periodSeconds: 1}`;
  return `apiVersion: v1
kind: Pod
metadata: {name: ${name}, labels: {${labels}}}
spec:
  terminationGracePeriodSeconds: ${options.graceSeconds ?? 1}
  containers:
  - name: app
    image: ${options.image ?? "busybox:1"}
    command: [sh, -c, ${JSON.stringify(script)}]${readiness}
`;
}
