// Runs the shared health server (health-server-main.ts) in a child process and talks to it
// over its stdin/stdout: the port, request counters, its own CPU (from /proc/<pid>/stat) and a
// bounded shutdown.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { readProcStatSync } from "../../src/util/proc-stat.js";

/** ChildHealthServer is a health server running in a child process. */
export interface ChildHealthServer {
  readonly port: number;
  readonly pid: number;
  /** stats asks the child for its connection and request counters. */
  stats(): Promise<{ connections: number; requests: number }>;
  /** cpuSeconds is the child's user + system CPU so far (utime + stime). */
  cpuSeconds(): number;
  /** close ends the child (stdin EOF, SIGKILL after 5 s) and waits for it. */
  close(): Promise<void>;
}

/** START_BOUND_MS bounds the wait for the child's "PORT" line. */
const START_BOUND_MS = 10_000;

/** spawnHealthServer starts the child and resolves once it listens on 127.0.0.1. */
export async function spawnHealthServer(ticksPerSecond: number): Promise<ChildHealthServer> {
  const main = fileURLToPath(new URL("./health-server-main.js", import.meta.url));
  const child = spawn(process.execPath, [main], { stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const waiting: ((line: string) => void)[] = [];
  createInterface({ input: child.stdout }).on("line", (line) => waiting.shift()?.(line));
  const nextLine = (what: string) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`health server: no ${what} line within ${START_BOUND_MS} ms`)), START_BOUND_MS);
      waiting.push((line) => {
        clearTimeout(timer);
        resolve(line);
      });
    });
  const first = await nextLine("PORT").catch((err: unknown) => {
    child.kill("SIGKILL");
    throw err;
  });
  const port = Number(/^PORT (\d+)$/.exec(first)?.[1] ?? Number.NaN);
  if (!Number.isInteger(port) || child.pid === undefined) throw new Error(`health server: bad start line ${JSON.stringify(first)}`);
  const pid = child.pid;
  return {
    port,
    pid,
    async stats() {
      const reply = nextLine("STATS");
      child.stdin.write("stats\n");
      const m = /^STATS (\d+) (\d+)$/.exec(await reply);
      return { connections: Number(m?.[1] ?? Number.NaN), requests: Number(m?.[2] ?? Number.NaN) };
    },
    cpuSeconds() {
      const f = readProcStatSync(`/proc/${pid}/stat`);
      return f ? (f.num(14) + f.num(15)) / ticksPerSecond : Number.NaN; // utime + stime
    },
    async close() {
      child.stdin.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
