// subPath mounts made safe as the kubelet makes them (pkg/volume/util/subpath/subpath_linux.go):
// a container may plant symlinks in a volume it shares, so a subPath is never used by name. The
// missing directories are created one at a time below an opened parent, never through a symlink
// (SafeMakeDir / doSafeMakeDir); the subPath, once its symlinks are resolved and found inside the
// volume, is opened component by component without following symlinks (doSafeOpen: a component
// swapped for a symlink meanwhile fails the open), and that open descriptor, not the path, is
// bind-mounted at <pod dir>/volume-subpaths/<volume>/<container>/<mount index> (doBindSubPath:
// `mount --no-canonicalize -o bind /proc/<pid>/fd/<fd>`). The runtime mounts that bind point, which
// nothing in a container can redirect. Openat-style steps go through /proc/self/fd/<parent>/<name>,
// which resolves <name> in the open directory exactly as openat(2) does.
import { execFile } from "node:child_process";
import { closeSync, constants, fchmodSync, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";

/** SUBPATH_DIR is the kubelet's directory of subPath bind mounts inside a pod's directory. */
export const SUBPATH_DIR = "volume-subpaths";

/** MOUNT_TIMEOUT_MS bounds one run of mount(8) or umount(8). */
const MOUNT_TIMEOUT_MS = 10_000;

// Linux's O_PATH (fs.constants lacks it): a descriptor that names a file without opening it.
const O_PATH = 0o10000000;
const OPEN_FD_FLAGS = O_PATH | constants.O_NOFOLLOW;
const NOFOLLOW_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW;

/** SubPathError is a subPath that cannot be made or opened safely; the message says why (for the log, not the user). */
export class SubPathError extends Error {
  override readonly name = "SubPathError";
}

/** within tells whether `path` is `base` or below it (mount.PathWithinBase). */
export function within(path: string, base: string): boolean {
  const rel = relative(base, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !rel.startsWith(sep));
}

/** at names `name` inside the open directory `fd`, as openat(fd, name) resolves it. */
function at(fd: number, name: string): string {
  return `/proc/self/fd/${fd}/${name}`;
}

function segments(base: string, path: string): string[] {
  const rel = relative(base, path);
  return rel === "" ? [] : rel.split(sep);
}

/**
 * safeOpen opens `path`, which must be `base` or below it and already have its symlinks resolved,
 * one component at a time without following symlinks (doSafeOpen); returns an O_PATH descriptor.
 */
export function safeOpen(path: string, base: string): number {
  if (!within(path, base)) throw new SubPathError(`path ${path} is outside of allowed base ${base}`);
  let fd = openSync(base, NOFOLLOW_FLAGS);
  let current = base;
  try {
    for (const seg of segments(base, path)) {
      current = join(current, seg);
      const child = openSync(at(fd, seg), OPEN_FD_FLAGS);
      closeSync(fd);
      fd = child;
      if (fstatSync(fd).isSymbolicLink()) throw new SubPathError(`unexpected symlink found ${current}`);
    }
    const opened = fd;
    fd = -1;
    return opened;
  } finally {
    if (fd >= 0) closeSync(fd);
  }
}

/**
 * safeMakeDir creates `subPath` below the volume `base` with mode `perm`, as SafeMakeDir does:
 * the part that exists is resolved and must stay inside the volume, then each missing directory
 * is made below its opened parent and opened without following symlinks, so a symlink planted
 * meanwhile can neither redirect the creation nor be entered.
 */
export function safeMakeDir(subPath: string, base: string, perm: number): void {
  const realBase = realpathSync(base);
  const pathname = join(realBase, subPath);
  if (!within(pathname, realBase)) throw new SubPathError(`path ${pathname} is outside of allowed base ${realBase}`);
  const existing = statSync(pathname, { throwIfNoEntry: false });
  if (existing) {
    if (!existing.isDirectory()) throw new SubPathError(`mkdir ${pathname}: not a directory`);
    return;
  }
  // findExistingPrefix: the longest part that exists (symlinks resolved), then what is missing.
  const parts = segments(realBase, pathname);
  let prefix = realBase;
  let missing = parts;
  for (let i = 0; i < parts.length; i++) {
    const next = join(prefix, parts[i]!);
    if (lstatSync(next, { throwIfNoEntry: false }) === undefined) {
      missing = parts.slice(i);
      break;
    }
    prefix = next;
  }
  const resolvedPrefix = realpathSync(prefix);
  if (!within(resolvedPrefix, realBase)) throw new SubPathError(`path ${resolvedPrefix} is outside of allowed base ${realBase}`);
  let parent = safeOpen(resolvedPrefix, realBase);
  try {
    let current = resolvedPrefix;
    for (const dir of missing) {
      current = join(current, dir);
      mkdirSync(at(parent, dir), perm);
      const child = openSync(at(parent, dir), NOFOLLOW_FLAGS | constants.O_DIRECTORY);
      closeSync(parent);
      parent = child;
      // mkdir was subject to the umask: the directory the container gets has exactly `perm`.
      fchmodSync(parent, perm);
    }
  } finally {
    closeSync(parent);
  }
}

/** SubPathMount names one subPath bind of a container (kubelet subpath.Subpath). */
export interface SubPathMount {
  /** The volume's host directory. */
  volumePath: string;
  /** The subPath as written in the volumeMount (validated: relative, no ".."). */
  subPath: string;
  podDir: string;
  volumeName: string;
  containerName: string;
  /** The volumeMount's index in the container's list. */
  mountIndex: number;
}

/** subPathTarget is where a subPath is bind-mounted: <pod dir>/volume-subpaths/<volume>/<container>/<index>. */
export function subPathTarget(m: Pick<SubPathMount, "podDir" | "volumeName" | "containerName" | "mountIndex">): string {
  return join(m.podDir, SUBPATH_DIR, m.volumeName, m.containerName, String(m.mountIndex));
}

/** MountRunner runs mount(8) or umount(8) with these arguments; rejects with their error. */
export type MountRunner = (command: "mount" | "umount", args: readonly string[]) => Promise<void>;

/** runMountTool is the MountRunner of this host. */
export const runMountTool: MountRunner = (command, args) =>
  new Promise((resolve, reject) => {
    execFile(command, [...args], { timeout: MOUNT_TIMEOUT_MS }, (err, _stdout, stderr) => {
      if (err) reject(new SubPathError(`${command} ${args.join(" ")} failed: ${String(stderr).trim() || err.message}`));
      else resolve();
    });
  });

/**
 * bindSubPath makes the subPath's bind mount and returns its path, the host path to give the
 * runtime (doBindSubPath). A bind point already there that shows the same file is kept.
 */
export async function bindSubPath(m: SubPathMount, runMount: MountRunner = runMountTool): Promise<string> {
  const volumePath = realpathSync(m.volumePath);
  const path = realpathSync(join(volumePath, m.subPath));
  const fd = safeOpen(path, volumePath);
  try {
    const target = subPathTarget(m);
    const source = fstatSync(fd);
    const there = lstatSync(target, { throwIfNoEntry: false });
    if (there && isMountPoint(target)) {
      if (there.dev === source.dev && there.ino === source.ino) return target;
      await runMount("umount", ["-l", target]);
    }
    mkdirSync(dirname(target), { recursive: true, mode: 0o750 });
    if (source.isDirectory()) mkdirSync(target, { mode: 0o750, recursive: true });
    else if (!lstatSync(target, { throwIfNoEntry: false })) writeFileSync(target, "", { mode: 0o640 });
    await runMount("mount", ["--no-canonicalize", "-o", "bind", `/proc/${process.pid}/fd/${fd}`, target]);
    return target;
  } finally {
    closeSync(fd);
  }
}

/** MAX_MOUNTINFO_BYTES bounds how much of /proc/self/mountinfo is read. */
const MAX_MOUNTINFO_BYTES = 16 << 20;

/** mountPoints lists this mount namespace's mount points (mountinfo field 5, octal escapes decoded). */
export function mountPoints(): string[] {
  let text: string;
  try {
    text = readFileSync("/proc/self/mountinfo", "utf8").slice(0, MAX_MOUNTINFO_BYTES);
  } catch {
    return [];
  }
  return text
    .split("\n")
    .map((line) => line.split(" ")[4])
    .filter((p): p is string => p !== undefined && p !== "")
    .map((p) => p.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8))));
}

function isMountPoint(path: string): boolean {
  return mountPoints().includes(path);
}

/** mountsBelow lists the mount points at or below `dir`, deepest first. */
export function mountsBelow(dir: string): string[] {
  return mountPoints()
    .filter((p) => within(p, dir))
    .sort((a, b) => b.length - a.length);
}

/**
 * cleanSubPaths unmounts every subPath bind of a pod and removes the volume-subpaths directory
 * (doCleanSubPaths). Rejects when a bind cannot be unmounted: then nothing is removed, so a
 * recursive removal never reaches into a volume through a bind.
 */
export async function cleanSubPaths(podDir: string, runMount: MountRunner = runMountTool): Promise<void> {
  const root = join(podDir, SUBPATH_DIR);
  for (const point of mountsBelow(root)) await runMount("umount", [point]);
  const left = mountsBelow(root);
  if (left.length > 0) throw new SubPathError(`subPath mounts still in place: ${left.join(", ")}`);
  await rm(root, { recursive: true, force: true });
}
