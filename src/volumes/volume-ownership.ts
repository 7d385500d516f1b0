// fsGroup ownership of a volume, as the kubelet gives it after setting a volume up
// (pkg/volume/volume_linux.go VolumeOwnership.ChangePermissions, changeFilePermission): every
// file and directory gets the fsGroup as its group (lchown, symlinks included); files gain group
// read and write (0660, or 0440 for a read-only volume), directories also the setgid bit and
// search (0110). Errors are ignored, as the kubelet only logs them.
import { chmod, lchown, lstat, readdir } from "node:fs/promises";
import { join } from "node:path";

const RW_MASK = 0o660;
const RO_MASK = 0o440;
const EXEC_MASK = 0o110;
const SETGID = 0o2000;
/** Bound on the entries one call visits (a volume a container filled with millions of files is left partly done). */
const MAX_ENTRIES = 200_000;

/** podFsGroup is the pod's securityContext.fsGroup, when it sets one. */
export function podFsGroup(securityContext: Record<string, unknown> | undefined): number | undefined {
  const g = securityContext?.["fsGroup"];
  return typeof g === "number" && Number.isInteger(g) && g >= 0 ? g : undefined;
}

/** changeVolumeOwnership walks `dir` (children before their directory, as walkDeep does) and applies the fsGroup. */
export async function changeVolumeOwnership(dir: string, fsGroup: number, readonly: boolean): Promise<void> {
  const budget = { left: MAX_ENTRIES };
  await walk(dir, fsGroup, readonly ? RO_MASK : RW_MASK, budget);
}

async function walk(path: string, gid: number, mask: number, budget: { left: number }): Promise<void> {
  if (budget.left-- <= 0) return;
  const info = await lstat(path).catch(() => undefined);
  if (info === undefined) return;
  if (info.isDirectory()) {
    const names = await readdir(path).catch(() => [] as string[]);
    for (const name of names) await walk(join(path, name), gid, mask, budget);
  }
  await lchown(path, -1, gid).catch(() => undefined);
  if (info.isSymbolicLink()) return;
  const add = info.isDirectory() ? mask | SETGID | EXEC_MASK : mask;
  const mode = (info.mode & 0o7777) | add;
  if (mode !== (info.mode & 0o7777)) await chmod(path, mode).catch(() => undefined);
}
