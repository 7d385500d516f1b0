// How tests run `probelet run` as a user does: the built CLI as a child process, in a temporary
// directory; when the test ends (passed or not) every agent is stopped with SIGINT (SIGKILL if
// it has not exited within 15 s), and only then is the directory removed.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { fileURLToPath } from "node:url";

const CLI = fileURLToPath(new URL("../src/cli/main.js", import.meta.url));
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** AgentProcess is a running `probelet run`: its status API URL, its HTTPS URL if it serves one, and its output so far. */
export interface AgentProcess {
  child: ChildProcess;
  url: string;
  httpsUrl: string | undefined;
  stdout: () => string;
  stderr: () => string;
}

/** AgentSandbox is a temporary directory and a way to start agents whose cleanup comes before its removal. */
export interface AgentSandbox {
  dir: string;
  /**
   * start runs `probelet run -q ARGS` (in `cwd`, default the test's) and resolves once it prints
   * its status API URL (at most 15 s).
   */
  start(args: readonly string[], cwd?: string): Promise<AgentProcess>;
}

/**
 * agentSandbox makes a temporary directory; one hook at the end of the test stops every agent
 * started in it, then removes it (node:test runs after-hooks in the order they were added, so
 * separate hooks would remove the directory under a running agent).
 */
export async function agentSandbox(t: TestContext, prefix: string): Promise<AgentSandbox> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const children: ChildProcess[] = [];
  t.after(async () => {
    for (const child of children.reverse()) await stopAgentProcess(child);
    await rm(dir, { recursive: true, force: true });
  });
  return { dir, start: (args, cwd) => startAgentProcess(args, children, cwd) };
}

async function startAgentProcess(args: readonly string[], children: ChildProcess[], cwd: string | undefined): Promise<AgentProcess> {
  const child = spawn(process.execPath, [CLI, "run", "-q", ...args], { stdio: ["ignore", "pipe", "pipe"], ...(cwd !== undefined ? { cwd } : {}) });
  children.push(child);
  let out = "";
  let err = "";
  child.stdout!.on("data", (c: Buffer) => void (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => void (err += c.toString()));
  for (let i = 0; i < 150; i++) {
    const url = /status API (https?:\/\/\S+?)[ ,)]/.exec(out)?.[1];
    if (url !== undefined) return { child, url, httpsUrl: /HTTPS (https:\/\/\S+?)[ ,)]/.exec(out)?.[1], stdout: () => out, stderr: () => err };
    if (child.exitCode !== null) break;
    await sleep(100);
  }
  assert.fail(`the agent did not start: ${out}${err}`);
}

/** stopAgentProcess stops an agent as Ctrl-C does and waits for it (SIGKILL after 15 s). */
export async function stopAgentProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGINT");
  let timer: NodeJS.Timeout | undefined;
  // The timer is cleared once the agent exits, so it does not hold the test process for 15 s.
  await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 15_000)))]);
  clearTimeout(timer);
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
}
