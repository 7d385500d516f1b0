// CPU counters of the runtime side, read from /proc and the cgroup tree at the start and end
// of a window: containerd itself (and the children it reaped), every containerd-shim started
// for our socket (utime+stime plus cutime+cstime: the shim reaps `runc exec`, `runc init` and
// the exec'd command, see ../shared/runtime/cri-containerd.md §5), the pods' cgroup subtree
// (cpuacct: everything that ran inside the containers, overlapping the shims' children), and
// the whole machine from /proc/stat.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { readProcStatSync } from "../../src/util/proc-stat.js";

/** TICKS_PER_SECOND is USER_HZ, 100 on every Linux this project runs on (getconf CLK_TCK). */
export const TICKS_PER_SECOND = 100;

/** ProcCpu is one process's CPU in ms: its own, and that of the children it reaped. */
export interface ProcCpu {
  selfMs: number;
  childrenMs: number;
}

/** RuntimeCpuSample is one reading of every counter. */
export interface RuntimeCpuSample {
  containerd: ProcCpu | undefined;
  /** Shims by "<pid>/<starttime>" (a PID reused by another process is not the same shim). */
  shims: Map<string, ProcCpu>;
  /** CPU of the pod cgroup subtree in ms, NaN when no accounting file was found. */
  podsCgroupMs: number;
  /** Machine-wide busy CPU (all but idle and iowait), in ms. */
  machineBusyMs: number;
}

/** RuntimeCpuDelta is the difference between two samples, in ms. */
export interface RuntimeCpuDelta {
  containerdMs: number;
  containerdChildrenMs: number;
  /** Shims alive at both samples: their own CPU plus their reaped children's. */
  shimsMs: number;
  shimsSelfMs: number;
  shimCount: number;
  podsCgroupMs: number;
  machineBusyMs: number;
}

/** RuntimeTarget says which containerd to watch. */
export interface RuntimeTarget {
  containerdPid: number | undefined;
  socket: string;
  cgroupPrefix: string;
}

/** procCpu reads utime, stime, cutime and cstime (fields 14–17) of /proc/<pid>/stat. */
export function procCpu(pid: number | string): (ProcCpu & { startTime: string }) | undefined {
  const f = readProcStatSync(`/proc/${pid}/stat`);
  if (!f) return undefined;
  const ms = 1000 / TICKS_PER_SECOND;
  return { selfMs: (f.num(14) + f.num(15)) * ms, childrenMs: (f.num(16) + f.num(17)) * ms, startTime: f.text(22) };
}

function cmdline(pid: string): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  } catch {
    return [];
  }
}

/** findShims lists the PIDs of containerd-shim processes started with `-address <socket>`. */
export function findShims(socket: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    const argv = cmdline(pid);
    if (!(argv[0] ?? "").includes("containerd-shim")) continue;
    const i = argv.indexOf("-address");
    if (i >= 0 && argv[i + 1] === socket) found.push(pid);
  }
  return found;
}

/** findContainerdPid finds the containerd whose --config lives in `runDir` (scripts/containerd.sh). */
export function findContainerdPid(runDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(runDir, "containerd.pid"), "utf8").trim());
    if (cmdline(String(pid)).includes(join(runDir, "config.toml"))) return pid;
  } catch {
    // fall through to the scan
  }
  for (const pid of readdirSync("/proc")) {
    if (/^\d+$/.test(pid) && cmdline(pid).includes(join(runDir, "config.toml"))) return Number(pid);
  }
  return undefined;
}

/** podsCgroupUsageMs reads the CPU of the cgroup subtree `prefix` (cgroup v1 cpuacct, else v2 cpu.stat). */
export function podsCgroupUsageMs(prefix: string): number {
  let mountinfo = "";
  try {
    mountinfo = readFileSync("/proc/self/mountinfo", "utf8");
  } catch {
    return Number.NaN;
  }
  let v2: string | undefined;
  for (const line of mountinfo.split("\n")) {
    const fields = line.split(" ");
    const dash = fields.indexOf("-");
    if (dash < 0) continue;
    const fstype = fields[dash + 1];
    const mountPoint = fields[4] ?? "";
    const superOptions = (fields[dash + 3] ?? "").split(",");
    if (fstype === "cgroup" && superOptions.includes("cpuacct")) {
      try {
        return Number(readFileSync(join(mountPoint, prefix, "cpuacct.usage"), "utf8").trim()) / 1e6;
      } catch {
        return Number.NaN;
      }
    }
    if (fstype === "cgroup2") v2 = mountPoint;
  }
  if (v2 === undefined) return Number.NaN;
  try {
    const m = /^usage_usec (\d+)$/m.exec(readFileSync(join(v2, prefix, "cpu.stat"), "utf8"));
    return m ? Number(m[1]) / 1000 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** machineBusyMs sums every CPU's non-idle time from /proc/stat's first line. */
export function machineBusyMs(): number {
  const line = readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "";
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already inside user).
  const total = values.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = (values[3] ?? 0) + (values[4] ?? 0);
  return ((total - idle) * 1000) / TICKS_PER_SECOND;
}

/** sampleRuntimeCpu reads every counter once. */
export function sampleRuntimeCpu(target: RuntimeTarget): RuntimeCpuSample {
  const shims = new Map<string, ProcCpu>();
  for (const pid of findShims(target.socket)) {
    const cpu = procCpu(pid);
    if (cpu) shims.set(`${pid}/${cpu.startTime}`, { selfMs: cpu.selfMs, childrenMs: cpu.childrenMs });
  }
  const containerd = target.containerdPid === undefined ? undefined : procCpu(target.containerdPid);
  return {
    containerd: containerd ? { selfMs: containerd.selfMs, childrenMs: containerd.childrenMs } : undefined,
    shims,
    podsCgroupMs: podsCgroupUsageMs(target.cgroupPrefix),
    machineBusyMs: machineBusyMs(),
  };
}

/** diffRuntimeCpu subtracts two samples; shims count only when present in both. */
export function diffRuntimeCpu(before: RuntimeCpuSample, after: RuntimeCpuSample): RuntimeCpuDelta {
  let shimsMs = 0;
  let shimsSelfMs = 0;
  let shimCount = 0;
  for (const [key, end] of after.shims) {
    const start = before.shims.get(key);
    if (!start) continue;
    shimCount++;
    shimsSelfMs += end.selfMs - start.selfMs;
    shimsMs += end.selfMs - start.selfMs + end.childrenMs - start.childrenMs;
  }
  const cd = (f: (c: ProcCpu) => number): number => (before.containerd && after.containerd ? f(after.containerd) - f(before.containerd) : Number.NaN);
  return {
    containerdMs: cd((c) => c.selfMs),
    containerdChildrenMs: cd((c) => c.childrenMs),
    shimsMs,
    shimsSelfMs,
    shimCount,
    podsCgroupMs: after.podsCgroupMs - before.podsCgroupMs,
    machineBusyMs: after.machineBusyMs - before.machineBusyMs,
  };
}
