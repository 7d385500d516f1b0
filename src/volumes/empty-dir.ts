// emptyDir volumes as the kubelet's emptydir plugin sets them up (pkg/volume/emptydir/
// empty_dir.go SetUpAt, setupDir, setupTmpfs, calculateEmptyDirMemorySize,
// generateTmpfsMountOptions): a 0777 directory (chmod'ed, whatever the umask), and for
// `medium: Memory` a tmpfs (its root 1777) mounted on it, sized to the smallest of the node's allocatable
// memory, the pod's memory limit and the volume's sizeLimit, with `noswap` where the kernel has
// it. Mounting needs root; an agent without it keeps a plain directory (docs/volumes.md).
import { chmod, lstat, mkdir } from "node:fs/promises";
import { parseQuantityExact } from "../api/quantity.js";
import type { Container, Pod, Volume } from "../api/types.js";
import { isTmpfsMount, mountTmpfs, tmpfsNoswapSupported } from "./tmpfs-mounts.js";

const EMPTY_DIR_PERM = 0o777;

function memoryLimit(c: Container): number | undefined {
  const raw = (c.resources?.["limits"] as Record<string, unknown> | undefined)?.["memory"];
  return typeof raw === "string" || typeof raw === "number" ? parseQuantityExact(String(raw)) : undefined;
}

/**
 * podMemoryLimit is the pod's memory limit as the pod cgroup gets it (cm.ResourceConfigForPod):
 * only when every container declares one; the larger of what the regular containers and sidecars
 * use together and what any one init container uses, plus the pod's overhead.
 */
export function podMemoryLimit(pod: Pod): number | undefined {
  const inits = pod.spec.initContainers ?? [];
  const all = [...inits, ...pod.spec.containers];
  const limits = all.map(memoryLimit);
  if (limits.some((l) => l === undefined || l <= 0)) return undefined;
  let sidecars = 0;
  let initPeak = 0;
  for (const c of inits) {
    const limit = memoryLimit(c)!;
    if (c.restartPolicy === "Always") sidecars += limit;
    else initPeak = Math.max(initPeak, sidecars + limit);
  }
  const regular = pod.spec.containers.reduce((sum, c) => sum + memoryLimit(c)!, 0) + sidecars;
  const overheadRaw = ((pod.spec as { overhead?: Record<string, unknown> }).overhead ?? {})["memory"];
  const overhead = typeof overheadRaw === "string" || typeof overheadRaw === "number" ? (parseQuantityExact(String(overheadRaw)) ?? 0) : 0;
  return Math.max(regular, initPeak) + overhead;
}

/** emptyDirMemorySize is the tmpfs size of a memory-backed emptyDir (calculateEmptyDirMemorySize), in bytes. */
export function emptyDirMemorySize(pod: Pod, volume: Volume, nodeMemory: number): number {
  let size = nodeMemory;
  const podLimit = podMemoryLimit(pod);
  if (podLimit !== undefined && podLimit > 0 && podLimit <= size) size = podLimit;
  const raw = volume.emptyDir?.sizeLimit;
  const sizeLimit = raw === undefined ? undefined : parseQuantityExact(String(raw));
  if (sizeLimit !== undefined && sizeLimit > 0 && sizeLimit <= size) size = sizeLimit;
  return Math.ceil(size);
}

/**
 * setUpEmptyDir makes (or finds) the volume's directory at `dir`: 0777 whatever the umask, and
 * for medium Memory (as root) a sized tmpfs mounted on it afterwards, whose root keeps tmpfs's
 * own 1777, as setupTmpfs leaves it (setupDir chmods the directory, then the tmpfs covers it; a
 * volume already mounted is left as it is).
 */
export async function setUpEmptyDir(dir: string, pod: Pod, volume: Volume, nodeMemory: number): Promise<void> {
  await mkdir(dir, { recursive: true, mode: EMPTY_DIR_PERM });
  const memory = volume.emptyDir?.medium === "Memory" && process.getuid?.() === 0;
  if (memory && (await isTmpfsMount(dir))) return;
  const info = await lstat(dir);
  if ((info.mode & 0o7777) !== EMPTY_DIR_PERM) await chmod(dir, EMPTY_DIR_PERM);
  if (memory) {
    const options = [`size=${emptyDirMemorySize(pod, volume, nodeMemory)}`];
    if (await tmpfsNoswapSupported()) options.push("noswap");
    await mountTmpfs(dir, options);
  }
}
