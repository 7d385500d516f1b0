// Pod cgroup removal. containerd removes each container's leaf cgroup but never the sandbox's
// cgroup_parent, so whoever chose that parent must rmdir it (kubelet: the pod cgroup manager
// deletes /kubepods/.../pod<uid> once the pod is gone; cri-containerd.md gotcha 3).
import { readdir, readFile, rmdir } from "node:fs/promises";
import { join } from "node:path";
import type { Clock } from "../../util/clock.js";
import type { Logger } from "../../util/logger.js";

/** parseCgroupMounts returns the mount points of every cgroup and cgroup2 hierarchy in a mountinfo text. */
export function parseCgroupMounts(mountinfo: string): string[] {
  const mounts = new Set<string>();
  for (const line of mountinfo.split("\n")) {
    const fields = line.split(" ");
    const dash = fields.indexOf("-");
    const fstype = dash < 0 ? undefined : fields[dash + 1];
    const mountPoint = fields[4];
    if ((fstype === "cgroup" || fstype === "cgroup2") && mountPoint !== undefined) {
      // mountinfo escapes space, tab, newline and backslash as \ooo octal.
      mounts.add(mountPoint.replace(/\\([0-7]{3})/g, (_m, oct: string) => String.fromCharCode(parseInt(oct, 8))));
    }
  }
  return [...mounts].sort();
}

/** cgroupMountPoints reads this process's mount table and lists its cgroup hierarchies. */
export async function cgroupMountPoints(mountinfoPath = "/proc/self/mountinfo"): Promise<string[]> {
  const text = await readFile(mountinfoPath, "utf8").catch(() => "");
  return parseCgroupMounts(text);
}

/** RemoveCgroupOptions bound removePodCgroup's retries. */
export interface RemoveCgroupOptions {
  clock: Clock;
  logger: Logger;
  /** Mount points to clean (default: every cgroup hierarchy of this process). */
  mounts?: readonly string[];
  /** Tries per directory while it is busy (processes still exiting); default 20, 50 ms apart. */
  attempts?: number;
}

/**
 * removePodCgroup removes `cgroupParent` (an absolute cgroup path such as /probelet/pod<uid>)
 * and any empty child cgroups under it, in every hierarchy. Missing directories are fine. It
 * resolves with the directories it could not remove (still busy after the retries), after
 * logging them; it never rejects.
 */
export async function removePodCgroup(cgroupParent: string, options: RemoveCgroupOptions): Promise<string[]> {
  const mounts = options.mounts ?? (await cgroupMountPoints());
  const attempts = options.attempts ?? 20;
  const left: string[] = [];
  for (const mount of mounts) {
    const dir = join(mount, cgroupParent);
    for (let attempt = 1; ; attempt++) {
      const error = await removeTree(dir);
      if (error === undefined) break;
      if (attempt >= attempts) {
        options.logger.warn("could not remove pod cgroup", { dir, err: error });
        left.push(dir);
        break;
      }
      await options.clock.sleep(50);
    }
  }
  return left;
}

/** removeTree rmdirs dir's subdirectories depth first, then dir; returns the first failure other than ENOENT. */
async function removeTree(dir: string): Promise<Error | undefined> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT" ? undefined : (err as Error);
  }
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const error = await removeTree(join(dir, entry.name));
    if (error) return error;
  }
  try {
    await rmdir(dir);
    return undefined;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT" ? undefined : (err as Error);
  }
}
