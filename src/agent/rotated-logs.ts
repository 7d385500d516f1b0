// The names of a container's rotated log files, as the kubelet's ContainerLogManager gives them
// (pkg/kubelet/logs/container_log_manager.go): `<log>.<YYYYMMDD-hhmmss>` when rotated, then
// `<log>.<YYYYMMDD-hhmmss>.gz` once compressed (through a `.tmp` file); a rotated file whose
// compressed copy exists, or a `.tmp`, is left over from a rotation that failed, not in use.
import { readdir, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** COMPRESS_SUFFIX ends a compressed rotated log (kubelet compressSuffix). */
export const COMPRESS_SUFFIX = ".gz";
/** TMP_SUFFIX ends a file being compressed (kubelet tmpSuffix). */
export const TMP_SUFFIX = ".tmp";

/** MAX_LOG_DIR_ENTRIES bounds how many entries of a container's log directory are looked at. */
export const MAX_LOG_DIR_ENTRIES = 10_000;

/** rotatedSuffix is the kubelet's timestampFormat "20060102-150405" of a time, in local time as Go's Now().Format. */
export function rotatedSuffix(ms: number): string {
  const d = new Date(ms);
  const two = (n: number): string => String(n).padStart(2, "0");
  return `${d.getFullYear()}${two(d.getMonth() + 1)}${two(d.getDate())}-${two(d.getHours())}${two(d.getMinutes())}${two(d.getSeconds())}`;
}

/** isInUse is the kubelet's isInUse: .tmp files never are, .gz files always, a plain one unless its .gz exists. */
function isInUse(name: string, names: ReadonlySet<string>): boolean {
  if (name.endsWith(TMP_SUFFIX)) return false;
  if (name.endsWith(COMPRESS_SUFFIX)) return true;
  return !names.has(`${name}${COMPRESS_SUFFIX}`);
}

/** RotatedLogs are a log's rotated files (full paths, oldest first), split as the kubelet's filterUnusedLogs. */
export interface RotatedLogs {
  inUse: string[];
  unused: string[];
}

/** rotatedLogs lists the files `<log>.*` beside a log (the kubelet's glob), in use and left over. */
export async function rotatedLogs(log: string): Promise<RotatedLogs> {
  const dir = dirname(log);
  const prefix = `${basename(log)}.`;
  const entries = (await readdir(dir).catch(() => [] as string[])).slice(0, MAX_LOG_DIR_ENTRIES);
  const names = new Set(entries.filter((n) => n.startsWith(prefix)));
  const sorted = [...names].sort();
  return { inUse: sorted.filter((n) => isInUse(n, names)).map((n) => join(dir, n)), unused: sorted.filter((n) => !isInUse(n, names)).map((n) => join(dir, n)) };
}

/** allLogs is the kubelet's GetAllLogs: the rotated files in use, oldest first, then the log itself. */
export async function allLogs(log: string): Promise<string[]> {
  return [...(await rotatedLogs(log)).inUse, log];
}

/** removeAllLogs deletes a log and every rotated file of it (kubelet ContainerLogManager.Clean). */
export async function removeAllLogs(log: string): Promise<void> {
  const { inUse, unused } = await rotatedLogs(log);
  await Promise.all([log, ...inUse, ...unused].map((path) => rm(path, { force: true })));
}
