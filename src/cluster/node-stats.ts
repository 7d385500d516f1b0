// The machine's own figures for the node part of the stats summary, read from /proc and statfs
// where cadvisor reads its root container (cadvisor's machine and root cgroup stats, as the
// kubelet's summary provider turns them into NodeStats: pkg/kubelet/stats/provider.go,
// summary.go): CPU time from /proc/stat, memory from /proc/meminfo (working set = usage less
// inactive file pages, as cadvisor computes it), the state directory's filesystem, the process
// limits (pkg/kubelet/stats/pidlimit).
import { readFile, statfs } from "node:fs/promises";
import type { Clock } from "../util/clock.js";

/** NANOS_PER_JIFFY is the length of one /proc/stat tick (USER_HZ is 100 on Linux). */
const NANOS_PER_JIFFY = 10_000_000;

/** MachineSample is one reading of the machine. */
export interface MachineSample {
  /** When it was read (ms since the epoch). */
  time: number;
  /** CPU time spent not idle, all cores (ns); undefined when /proc/stat cannot be read. */
  usageCoreNanoSeconds?: bigint;
  /** Average use since the previous sample (billionths of a core); absent on the first. */
  usageNanoCores?: bigint;
  memory?: { totalBytes: number; usageBytes: number; workingSetBytes: number; swapTotalBytes: number; swapUsageBytes: number };
  fs?: { capacityBytes: number; availableBytes: number; usedBytes: number; inodes: number; inodesFree: number };
  rlimit?: { maxpid: number; curproc: number };
  /** When the machine booted (ms since the epoch). */
  bootTime?: number;
}

/** parseProcStatCpu returns the non-idle CPU time of /proc/stat's "cpu" line (user, nice, system, irq, softirq, steal) in ns. */
export function parseProcStatCpu(text: string): bigint | undefined {
  const line = text.split("\n").find((l) => l.startsWith("cpu "));
  if (line === undefined) return undefined;
  const f = line.trim().split(/\s+/).slice(1).map((v) => BigInt(/^\d+$/.test(v) ? v : "0"));
  const [user = 0n, nice = 0n, system = 0n, , , irq = 0n, softirq = 0n, steal = 0n] = f;
  return (user + nice + system + irq + softirq + steal) * BigInt(NANOS_PER_JIFFY);
}

/** parseBootTime returns /proc/stat's btime in ms since the epoch. */
export function parseBootTime(text: string): number | undefined {
  const m = /^btime (\d+)$/m.exec(text);
  return m === null ? undefined : Number(m[1]) * 1000;
}

/** parseMeminfo computes the root container's memory figures from /proc/meminfo (kB values). */
export function parseMeminfo(text: string): MachineSample["memory"] {
  const kb = (name: string): number | undefined => {
    const m = new RegExp(`^${name.replace(/[()]/g, "\\$&")}:\\s+(\\d+) kB$`, "m").exec(text);
    return m === null ? undefined : Number(m[1]) * 1024;
  };
  const total = kb("MemTotal");
  const free = kb("MemFree");
  if (total === undefined || free === undefined) return undefined;
  const usage = total - free;
  const swapTotal = kb("SwapTotal") ?? 0;
  return {
    totalBytes: total,
    usageBytes: usage,
    workingSetBytes: Math.max(0, usage - (kb("Inactive(file)") ?? 0)),
    swapTotalBytes: swapTotal,
    swapUsageBytes: Math.max(0, swapTotal - (kb("SwapFree") ?? swapTotal)),
  };
}

/** parseRunningProcesses reads the process count of /proc/loadavg ("0.00 0.01 0.05 2/345 6789" → 345). */
export function parseRunningProcesses(text: string): number | undefined {
  const m = /^\S+ \S+ \S+ \d+\/(\d+) /.exec(text);
  return m === null ? undefined : Number(m[1]);
}

async function readSmall(path: string): Promise<string | undefined> {
  try {
    return (await readFile(path, "utf8")).slice(0, 64 * 1024);
  } catch {
    return undefined;
  }
}

/** MachineStats reads the machine on demand and keeps the last sample for the CPU rate. */
export class MachineStats {
  private previous: { time: number; usage: bigint } | undefined;

  constructor(
    private readonly stateDir: string,
    private readonly clock: Clock,
    private readonly proc = "/proc",
  ) {}

  /** sample reads every figure it can; what cannot be read is left out, as the summary leaves out what cadvisor lacks. */
  async sample(): Promise<MachineSample> {
    const time = this.clock.now();
    const [stat, meminfo, loadavg, pidMax, fs] = await Promise.all([
      readSmall(`${this.proc}/stat`),
      readSmall(`${this.proc}/meminfo`),
      readSmall(`${this.proc}/loadavg`),
      readSmall(`${this.proc}/sys/kernel/pid_max`),
      statfs(this.stateDir).catch(() => undefined),
    ]);
    const sample: MachineSample = { time };
    const usage = stat === undefined ? undefined : parseProcStatCpu(stat);
    if (usage !== undefined) {
      sample.usageCoreNanoSeconds = usage;
      const prev = this.previous;
      if (prev !== undefined && time > prev.time && usage >= prev.usage) sample.usageNanoCores = ((usage - prev.usage) * 1000n) / BigInt(time - prev.time);
      this.previous = { time, usage };
    }
    const boot = stat === undefined ? undefined : parseBootTime(stat);
    if (boot !== undefined) sample.bootTime = boot;
    const memory = meminfo === undefined ? undefined : parseMeminfo(meminfo);
    if (memory !== undefined) sample.memory = memory;
    if (fs !== undefined) {
      const capacity = fs.blocks * fs.bsize;
      sample.fs = { capacityBytes: capacity, availableBytes: fs.bavail * fs.bsize, usedBytes: (fs.blocks - fs.bfree) * fs.bsize, inodes: fs.files, inodesFree: fs.ffree };
    }
    const maxpid = pidMax === undefined ? NaN : Number(pidMax.trim());
    const curproc = loadavg === undefined ? undefined : parseRunningProcesses(loadavg);
    if (Number.isInteger(maxpid) && curproc !== undefined) sample.rlimit = { maxpid, curproc };
    return sample;
  }
}
