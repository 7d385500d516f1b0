// A node agent's own CPU and memory from cgroup accounting: the agent process (and anything it
// forks) runs in a cgroup of its own, apart from its pods' cgroups and from containerd, so the
// figures are the agent's alone, its process tree included and the containers excluded.
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { podsCgroupUsageMs } from "../cri/proc-cpu.js";

/** Accounting mounts: where the cpuacct and memory hierarchies are (v1), or the v2 mount. */
interface Mounts {
  cpu: string;
  memory: string;
  v2: boolean;
}

/** accountingMounts finds the cgroup v1 cpuacct and memory mounts, else the cgroup2 mount. */
function accountingMounts(): Mounts {
  let cpu: string | undefined;
  let memory: string | undefined;
  let v2: string | undefined;
  for (const line of readFileSync("/proc/self/mountinfo", "utf8").split("\n")) {
    const fields = line.split(" ");
    const dash = fields.indexOf("-");
    if (dash < 0) continue;
    const options = (fields[dash + 3] ?? "").split(",");
    if (fields[dash + 1] === "cgroup" && options.includes("cpuacct")) cpu = fields[4];
    if (fields[dash + 1] === "cgroup" && options.includes("memory")) memory = fields[4];
    if (fields[dash + 1] === "cgroup2") v2 = fields[4];
  }
  if (cpu !== undefined && memory !== undefined) return { cpu, memory, v2: false };
  if (v2 !== undefined) return { cpu: v2, memory: v2, v2: true };
  throw new Error("no cgroup accounting here: neither cgroup v1 cpuacct and memory nor cgroup2 is mounted");
}

/** statField reads one "name value" line of a memory.stat file (0 when absent). */
function statField(text: string, name: string): number {
  const m = new RegExp(`^${name} (\\d+)$`, "m").exec(text);
  return m ? Number(m[1]) : 0;
}

/** AgentCgroup is the cgroup (path below each accounting mount) an agent runs in. */
export class AgentCgroup {
  private readonly mounts = accountingMounts();

  /** `path` is the cgroup's path below the mounts, e.g. /probelet-anchor-1a2b3c4d-agent. */
  constructor(readonly path: string) {}

  /** create makes the cgroup in the accounting hierarchies (the kubelet anchor makes its own). */
  static create(path: string): AgentCgroup {
    const cg = new AgentCgroup(path);
    for (const mount of new Set([cg.mounts.cpu, cg.mounts.memory])) mkdirSync(join(mount, path), { recursive: true });
    return cg;
  }

  /** join moves a process (all its threads) into the cgroup; its later children follow it. */
  join(pid: number): void {
    for (const mount of new Set([this.mounts.cpu, this.mounts.memory])) writeFileSync(join(mount, this.path, "cgroup.procs"), `${pid}\n`);
  }

  /** cpuSeconds is the CPU time the cgroup's processes used since it was made (user + system). */
  cpuSeconds(): number {
    return podsCgroupUsageMs(this.path) / 1000;
  }

  /**
   * memory is what the agent's processes hold: `anonBytes` from the cgroup's accounting (v1
   * memory.stat total_rss, v2 anon: memory no other process shares), and `rssBytes`, the sum of
   * the processes' VmRSS as ps shows it (with the binary's and libraries' resident file pages, which
   * the cgroup charges to whichever cgroup read them first, so cgroup accounting cannot give them).
   */
  memory(): { anonBytes: number; rssBytes: number } {
    const text = readFileSync(join(this.mounts.memory, this.path, "memory.stat"), "utf8");
    const anonBytes = this.mounts.v2 ? statField(text, "anon") : statField(text, "total_rss");
    let rssBytes = 0;
    for (const pid of this.pids()) {
      try {
        const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
        if (m) rssBytes += Number(m[1]) * 1024;
      } catch {
        // The process exited between the two reads.
      }
    }
    return { anonBytes, rssBytes };
  }

  /** pids lists the processes in the cgroup. */
  pids(): number[] {
    return readFileSync(join(this.mounts.cpu, this.path, "cgroup.procs"), "utf8").split("\n").filter(Boolean).map(Number);
  }

  /** remove deletes the cgroup once it is empty (a no-op when it is gone). */
  remove(): void {
    for (const mount of new Set([this.mounts.cpu, this.mounts.memory])) {
      const dir = join(mount, this.path);
      if (existsSync(dir)) rmdirSync(dir);
    }
  }
}
