// @internal For tests. Fixtures and process inspection helpers for the process runtime's tests
// (the kubelet keeps such helpers in testing/ packages). Reads /proc, so Linux only.
import { readdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
// Test-only polling needs a timer that keeps the test process alive while it waits for a child
// to exit; the Clock's timers are unref'd on purpose, so this helper uses a referenced one.
import { setTimeout as delay } from "node:timers/promises";
import type { ContainerConfig, ContainerInfo, ContainerState, PodSandboxConfig, Runtime } from "../src/runtime/runtime.js";
import { readProcStatSync } from "../src/util/proc-stat.js";
import { parseCriLogLine, type CriLogEntry } from "../src/runtime/log-format.js";

/** @internal For tests. testSandboxConfig builds a sandbox config with overrides. */
export function testSandboxConfig(logDirectory: string, overrides: Partial<PodSandboxConfig> = {}): PodSandboxConfig {
  return {
    podUid: "pOd_UiD",
    name: "test-pod",
    namespace: "default",
    attempt: 0,
    hostNetwork: false,
    logDirectory,
    labels: {},
    annotations: {},
    ...overrides,
  };
}

/** @internal For tests. testContainerConfig builds a container config running `sh -c script`. */
export function testContainerConfig(name: string, script: string, overrides: Partial<ContainerConfig> = {}): ContainerConfig {
  return {
    name,
    attempt: 0,
    image: "busybox",
    command: ["sh", "-c", script],
    args: [],
    envs: [],
    labels: {},
    annotations: {},
    logPath: `${name}/0.log`,
    ...overrides,
  };
}

/** @internal For tests. ProcStat is the part of /proc/<pid>/stat the tests need. */
export interface ProcStat {
  pid: number;
  state: string;
  ppid: number;
  pgrp: number;
}

/** @internal For tests. procStat reads /proc/<pid>/stat; undefined once the process is gone. */
export function procStat(pid: number): ProcStat | undefined {
  const f = readProcStatSync(`/proc/${pid}/stat`);
  return f && { pid, state: f.text(3) || "?", ppid: f.num(4), pgrp: f.num(5) };
}

/** @internal For tests. isAlive tells whether a process exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  const stat = procStat(pid);
  return stat !== undefined && stat.state !== "Z" && stat.state !== "X";
}

/** @internal For tests. liveProcesses lists the live processes matching `filter`. */
export function liveProcesses(filter: (stat: ProcStat) => boolean): ProcStat[] {
  const found: ProcStat[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = procStat(Number(name));
    if (stat && stat.state !== "Z" && stat.state !== "X" && filter(stat)) found.push(stat);
  }
  return found;
}

/** @internal For tests. liveChildren lists the live children of `ppid` (default: this process). */
export function liveChildren(ppid: number = process.pid): number[] {
  return liveProcesses((s) => s.ppid === ppid).map((s) => s.pid);
}

/** @internal For tests. groupMembers lists the live members of process group `pgid`. */
export function groupMembers(pgid: number): number[] {
  return liveProcesses((s) => s.pgrp === pgid).map((s) => s.pid);
}

/**
 * @internal For tests. waitFor polls `check` every `intervalMs` until it returns a value other
 * than undefined/false, and rejects with `what` after `timeoutMs`.
 */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = performance.now() + (options.timeoutMs ?? 10_000);
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(options.intervalMs ?? 20);
  }
}

/** @internal For tests. waitForContainerState polls containerStatus until the container is in `state`. */
export function waitForContainerState(runtime: Runtime, id: string, state: ContainerState, timeoutMs = 10_000): Promise<ContainerInfo> {
  return waitFor(
    `container ${id.slice(0, 12)} to be ${state}`,
    async () => {
      const info = await runtime.containerStatus(id);
      return info.state === state ? info : undefined;
    },
    { timeoutMs },
  );
}

/** criLogEntries parses a CRI log file whole (test files are small), skipping empty and unparsable lines. */
export async function criLogEntries(path: string): Promise<CriLogEntry[]> {
  const entries: CriLogEntry[] = [];
  for (const line of (await readFile(path)).toString("utf8").split("\n")) {
    if (line === "") continue;
    try {
      entries.push(parseCriLogLine(line));
    } catch {
      // A torn or foreign line: kubectl logs skips it too.
    }
  }
  return entries;
}

/** containerLogText is a CRI log file as `kubectl logs` shows it: partial chunks joined, full entries ending in a newline. */
export async function containerLogText(path: string): Promise<string> {
  return (await criLogEntries(path)).map((e) => e.content.toString("utf8") + (e.tag === "P" ? "" : "\n")).join("");
}

