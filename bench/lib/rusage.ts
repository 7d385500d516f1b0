// Process resource figures read the way the anchor reads them with getrusage: own CPU from
// process.cpuUsage(), reaped children's CPU from /proc/self/stat (cutime + cstime, the same
// counters as RUSAGE_CHILDREN), and peak RSS from /proc/self/status VmHWM (ru_maxrss).
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { parseProcStat, readProcStatSync } from "../../src/util/proc-stat.js";

/**
 * clockTicksPerSecond returns the kernel's USER_HZ (`getconf CLK_TCK`, 100 on Linux). It spawns
 * a short child, so call it before taking a children-CPU baseline.
 */
export function clockTicksPerSecond(): number {
  try {
    const ticks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
    return Number.isFinite(ticks) && ticks > 0 ? ticks : 100;
  } catch {
    return 100;
  }
}

/**
 * childrenCpuSeconds returns the user+system CPU of all reaped descendants of this process
 * (fields 16 and 17 of /proc/self/stat). A child's CPU shows up here only once it has exited
 * and been waited for, together with the CPU of the descendants it reaped itself.
 */
export function childrenCpuSeconds(ticksPerSecond: number): number {
  const f = parseProcStat(readFileSync("/proc/self/stat", "latin1"));
  return (f.num(16) + f.num(17)) / ticksPerSecond; // cutime + cstime
}

/** peakRssMb returns the process's peak resident set size (VmHWM) in MiB; NaN if unavailable. */
export function peakRssMb(): number {
  const m = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync("/proc/self/status", "utf8"));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

/** CpuSeconds is own CPU split into user and system time, in seconds. */
export interface CpuSeconds {
  user: number;
  system: number;
}

/** cpuSince returns the CPU this process used since `start` (a process.cpuUsage() value). */
export function cpuSince(start: NodeJS.CpuUsage): CpuSeconds {
  const d = process.cpuUsage(start);
  return { user: d.user / 1e6, system: d.system / 1e6 };
}

/**
 * threadCpuSeconds splits this process's CPU (user + system, since each thread started) between
 * the main thread (the event loop) and all other threads (V8's GC and compiler workers, libuv's
 * pool), from /proc/self/task/<tid>/stat. Node's helper threads all carry the name "node", so
 * they are told apart by thread ID only.
 */
export function threadCpuSeconds(ticksPerSecond: number): { main: number; other: number } {
  const split = { main: 0, other: 0 };
  for (const tid of readdirSync("/proc/self/task")) {
    const f = readProcStatSync(`/proc/self/task/${tid}/stat`);
    if (!f) continue; // the thread exited meanwhile
    const seconds = (f.num(14) + f.num(15)) / ticksPerSecond; // utime + stime
    if (Number(tid) === process.pid) split.main += seconds;
    else split.other += seconds;
  }
  return { main: Math.round(split.main * 1000) / 1000, other: Math.round(split.other * 1000) / 1000 };
}
