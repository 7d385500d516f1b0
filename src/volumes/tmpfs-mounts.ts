// Mounts of a pod's volume directories on the host, as the kubelet's mount utilities make and
// remove them (k8s.io/mount-utils: Mount shells out to mount(8), Unmount to umount(8); the mount
// table read from /proc/self/mountinfo): the tmpfs of an emptyDir with medium Memory, and the
// removal of every mount under a pod's directory before it is deleted.
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { release } from "node:os";

/** Bound on one mount(8) or umount(8) run. */
const TOOL_TIMEOUT_MS = 10_000;
const TOOL_ENV = { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" };

/** MountPoint is one line of the mount table: where, and the file system type. */
export interface MountPoint {
  path: string;
  fstype: string;
}

/** parseMountInfo reads a /proc/<pid>/mountinfo text (paths decoded from their \ooo escapes). */
export function parseMountInfo(text: string): MountPoint[] {
  const out: MountPoint[] = [];
  for (const line of text.split("\n")) {
    const fields = line.split(" ");
    const dash = fields.indexOf("-");
    const path = fields[4];
    const fstype = dash < 0 ? undefined : fields[dash + 1];
    if (path === undefined || fstype === undefined) continue;
    out.push({ path: path.replace(/\\([0-7]{3})/g, (_m, oct: string) => String.fromCharCode(parseInt(oct, 8))), fstype });
  }
  return out;
}

async function mountTable(): Promise<MountPoint[]> {
  return parseMountInfo(await readFile("/proc/self/mountinfo", "utf8").catch(() => ""));
}

/** mountsUnder lists the mount points at `dir` or below it, deepest first (the order to unmount them in). */
export function mountsUnder(table: readonly MountPoint[], dir: string): string[] {
  const paths = new Set(table.map((m) => m.path).filter((p) => p === dir || p.startsWith(`${dir}/`)));
  return [...paths].sort((a, b) => b.length - a.length || b.localeCompare(a));
}

/** isTmpfsMount says whether `dir` is itself the mount point of a tmpfs (the last mount there wins). */
export async function isTmpfsMount(dir: string): Promise<boolean> {
  const here = (await mountTable()).filter((m) => m.path === dir);
  return here.length > 0 && here[here.length - 1]!.fstype === "tmpfs";
}

function run(file: string, args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { env: TOOL_ENV, timeout: TOOL_TIMEOUT_MS, maxBuffer: 64 * 1024 }, (err, _stdout, stderr) => {
      if (err === null) return resolve();
      const text = String(stderr).trim() || err.message;
      // mount-utils' error text: "mount failed: <err>\nMounting command: …\nMounting arguments: …\nOutput: …".
      reject(new Error(`mount failed: ${err.code !== undefined ? `exit status ${String(err.code)}` : err.message}\nMounting command: ${file}\nMounting arguments: ${args.join(" ")}\nOutput: ${text.slice(0, 512)}`));
    });
  });
}

/** mountTmpfs mounts a tmpfs on `dir` with the given options (mount -t tmpfs -o … tmpfs DIR). */
export async function mountTmpfs(dir: string, options: readonly string[]): Promise<void> {
  await run("mount", ["-t", "tmpfs", ...(options.length > 0 ? ["-o", options.join(",")] : []), "tmpfs", dir]);
}

/** unmountUnder unmounts every mount at or below `dir`, deepest first; a failure is reported, the rest go on. */
export async function unmountUnder(dir: string): Promise<void> {
  const failures: string[] = [];
  for (const path of mountsUnder(await mountTable(), dir)) {
    await run("umount", [path]).catch((err: unknown) => failures.push(err instanceof Error ? err.message : String(err)));
  }
  if (failures.length > 0) throw new Error(`unmount failed under ${dir}: ${failures.join("; ")}`);
}

/**
 * tmpfsNoswapSupported says whether tmpfs takes the `noswap` option here (kubelet
 * util/swap IsTmpfsNoswapOptionSupported: Linux 6.4 or later, and not inside a user namespace).
 */
export async function tmpfsNoswapSupported(kernel = release()): Promise<boolean> {
  const m = /^(\d+)\.(\d+)/.exec(kernel);
  if (!m || Number(m[1]) * 1000 + Number(m[2]) < 6004) return false;
  const uidMap = await readFile("/proc/self/uid_map", "utf8").catch(() => "");
  // The initial user namespace maps the whole range: "0 0 4294967295".
  return /^\s*0\s+0\s+4294967295\s*$/.test(uidMap);
}
