// How tests run `probelet run` as a user does: the built CLI as a child process, stopped with
// SIGINT when the test ends (SIGKILL if it has not exited within 15 s).
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
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

/** startAgentProcess runs `probelet run -q ARGS` and resolves once it prints its status API URL (at most 15 s). */
export async function startAgentProcess(t: TestContext, args: readonly string[]): Promise<AgentProcess> {
  const child = spawn(process.execPath, [CLI, "run", "-q", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  t.after(() => stopAgentProcess(child));
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
