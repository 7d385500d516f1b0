// GroupRecords: the process runtime's note of every container process group it started through
// pipes (the fallback without the supervisor helper), kept in the agent's state directory. Such
// containers cannot outlive the agent's log pipes, but if the agent is killed (kill -9) some of
// them may linger; the next agent reaps exactly those groups (identified by PGID and start time,
// so a reused PID is never touched) before it starts anything. Supervised containers are never
// recorded here: they are adopted instead (runtime-records.ts).
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "../../util/logger.js";
import { readProcStat } from "../../util/proc-stat.js";

interface GroupRecord {
  /** The group leader's PID, which is also the group ID. */
  pgid: number;
  /** The leader's start time in clock ticks since boot (/proc/<pid>/stat field 22). */
  startTicks: number;
}

/** procStat reads a process's state (3), group (5) and start time (22) from /proc; undefined once it is gone. */
export async function procStat(pid: number): Promise<{ state: string; startTicks: number; pgid: number } | undefined> {
  const f = await readProcStat(`/proc/${pid}/stat`);
  return f && { state: f.text(3), pgid: f.num(5), startTicks: f.num(22) };
}

/** GroupRecords persists and reaps container process groups. */
export class GroupRecords {
  private readonly dir: string;

  constructor(
    stateDir: string,
    private readonly logger: Logger,
  ) {
    this.dir = join(stateDir, "process-groups");
  }

  /** record notes a started container's group. */
  async record(containerId: string, pid: number): Promise<void> {
    const stat = await procStat(pid);
    if (!stat) return;
    await mkdir(this.dir, { recursive: true });
    const record: GroupRecord = { pgid: pid, startTicks: stat.startTicks };
    await writeFile(join(this.dir, containerId), JSON.stringify(record));
  }

  /** forget drops a container's record once its group is gone. */
  async forget(containerId: string): Promise<void> {
    await rm(join(this.dir, containerId), { force: true });
  }

  /**
   * reapOrphans SIGKILLs every recorded group that still has members started no earlier than
   * its leader, then drops the records. Returns how many groups were killed.
   */
  async reapOrphans(): Promise<number> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    if (names.length === 0) return 0;
    const pids = (await readdir("/proc").catch(() => [] as string[])).filter((n) => /^\d+$/.test(n)).map(Number);
    let killed = 0;
    for (const name of names) {
      const record = await readFile(join(this.dir, name), "utf8")
        .then((t) => JSON.parse(t) as GroupRecord)
        .catch(() => undefined);
      if (record && (await this.groupAlive(record, pids))) {
        try {
          process.kill(-record.pgid, "SIGKILL");
          killed++;
          this.logger.warn("Killed a container process group left by a previous agent", { containerId: name, pgid: record.pgid });
        } catch {
          // Already gone.
        }
      }
      await this.forget(name);
    }
    return killed;
  }

  private async groupAlive(record: GroupRecord, pids: readonly number[]): Promise<boolean> {
    for (const pid of pids) {
      const stat = await procStat(pid);
      if (stat && stat.state !== "Z" && stat.pgid === record.pgid && stat.startTicks >= record.startTicks) return true;
    }
    return false;
  }
}
