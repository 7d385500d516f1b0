// How CLI tests run probelet as a user does: the built CLI as a child process, or a command
// in-process with captured output, against a status API served from a fake agent.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import type { TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import type { AgentApi } from "../src/agent/agent-api.js";
import type { CommandContext } from "../src/cli/probe-command.js";
import { startStatusServer, type StatusServer } from "../src/server/server.js";
import type { Clock } from "../src/util/clock.js";

/** CLI is the built entry point, dist/src/cli/main.js. */
const CLI = fileURLToPath(new URL("../src/cli/main.js", import.meta.url));

/** CliRun is what a user sees of one CLI run. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** CliOptions feed stdin, watch stdout as it comes (and may signal the process), and bound the run. */
export interface CliOptions {
  input?: string;
  onStdout?: (soFar: string, kill: (signal: NodeJS.Signals) => void) => void;
  timeoutMs?: number;
}

/** runCli runs the built CLI and asserts that stderr never carries a stack trace. */
export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliRun> {
  const timeoutMs = options.timeoutMs ?? 20_000;
  return new Promise((resolve, reject) => {
    const env = { ...process.env };
    delete env["PROBELET_TRACE"];
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ["pipe", "pipe", "pipe"], env });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`CLI did not finish within ${timeoutMs / 1000} s: ${stdout}${stderr}`));
    }, timeoutMs);
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      options.onStdout?.(stdout, (signal) => child.kill(signal));
    });
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      assert.doesNotMatch(stderr, /\n\s+at /, "no stack trace on stderr");
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? "");
  });
}

/** captureContext is a CommandContext whose output the test reads; abort() is the user's Ctrl-C. */
export function captureContext(clock?: Clock): { ctx: CommandContext; out: () => string; err: () => string; abort: () => void } {
  let out = "";
  let err = "";
  const controller = new AbortController();
  const ctx: CommandContext = {
    stdout: (text) => void (out += text),
    stderr: (text) => void (err += text),
    readStdin: () => Promise.resolve(""),
    signal: controller.signal,
    ...(clock ? { clock } : {}),
  };
  return { ctx, out: () => out, err: () => err, abort: () => controller.abort() };
}

/** serveAgentApi serves an AgentApi (usually a fake) on a loopback port until the test ends. */
export async function serveAgentApi(t: TestContext, api: AgentApi): Promise<StatusServer> {
  const server = await startStatusServer(api, { listen: "127.0.0.1:0" });
  t.after(() => server.close());
  return server;
}
