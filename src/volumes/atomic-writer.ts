// The kubelet's atomic writer (pkg/volume/util/atomic_writer.go AtomicWriter.Write): a volume's
// files are written into a fresh timestamped directory `..<timestamp>`, the `..data` symlink is
// swapped to it with one rename, and every top-level user-visible name is a symlink through
// `..data`, so a reader sees either the whole old payload or the whole new one, never a mix.
// An unchanged payload is not rewritten; names that left the payload are removed.
import { lstat, mkdir, readdir, readFile, readlink, rename, rm, stat, symlink, writeFile, chmod } from "node:fs/promises";
import { dirname, join, sep } from "node:path";

/** FileProjection is one file of a payload: its bytes and mode. */
export interface FileProjection {
  data: Buffer;
  mode: number;
}

/** DATA_DIR_NAME is the symlink to the current timestamped directory. */
export const DATA_DIR_NAME = "..data";
const DATA_DIR_TMP_NAME = "..data_tmp";

/** MAX_PAYLOAD_FILES bounds the files of one volume (a ConfigMap or Secret is at most 1 MiB anyway). */
export const MAX_PAYLOAD_FILES = 4096;

// kubelet newTimestampDir: "..2006_01_02_15_04_05." plus a unique suffix.
function timestampDirName(now: Date, unique: number): string {
  const p = (n: number, w = 2): string => String(n).padStart(w, "0");
  const d = now;
  return `..${d.getUTCFullYear()}_${p(d.getUTCMonth() + 1)}_${p(d.getUTCDate())}_${p(d.getUTCHours())}_${p(d.getUTCMinutes())}_${p(d.getUTCSeconds())}.${unique}`;
}

let uniqueCounter = 0;

/**
 * checkPayloadPath refuses a path that could leave the volume: absolute, empty, with `..`
 * elements, or starting with `..` (which would collide with the writer's own names).
 */
export function checkPayloadPath(path: string): void {
  if (path === "" || path.startsWith("/") || path.startsWith("..") || path.split("/").includes("..")) {
    throw new Error(`invalid file path ${JSON.stringify(path)} in the volume payload`);
  }
}

// Is the current `..data` content the same as the payload (same files, bytes and modes)?
async function unchanged(targetDir: string, payload: ReadonlyMap<string, FileProjection>): Promise<boolean> {
  const current = join(targetDir, DATA_DIR_NAME);
  const existing = await readlink(current).catch(() => undefined);
  if (existing === undefined) return false;
  const base = join(targetDir, existing);
  const found = await listFiles(base, "");
  if (found.length !== payload.size) return false;
  for (const rel of found) {
    const want = payload.get(rel);
    if (!want) return false;
    const info = await stat(join(base, rel));
    if ((info.mode & 0o777) !== want.mode) return false;
    if (!(await readFile(join(base, rel))).equals(want.data)) return false;
  }
  return true;
}

async function listFiles(dir: string, prefix: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) out.push(...(await listFiles(join(dir, entry.name), rel)));
    else out.push(rel);
  }
  return out;
}

/**
 * writeAtomically makes `targetDir` (which must exist) show exactly `payload`. Returns whether
 * anything changed. Paths are checked first (checkPayloadPath); the number of files is bounded.
 */
export async function writeAtomically(targetDir: string, payload: ReadonlyMap<string, FileProjection>, now: Date = new Date()): Promise<boolean> {
  if (payload.size > MAX_PAYLOAD_FILES) throw new Error(`volume payload has ${payload.size} files, more than ${MAX_PAYLOAD_FILES}`);
  for (const path of payload.keys()) checkPayloadPath(path);
  if (await unchanged(targetDir, payload)) return false;
  const oldTsName = await readlink(join(targetDir, DATA_DIR_NAME)).catch(() => undefined);
  const tsName = timestampDirName(now, ++uniqueCounter);
  const tsDir = join(targetDir, tsName);
  await mkdir(tsDir, { mode: 0o755 });
  await chmod(tsDir, 0o755);
  for (const [rel, file] of payload) {
    const full = join(tsDir, ...rel.split("/"));
    await mkdir(dirname(full), { recursive: true, mode: 0o755 });
    await writeFile(full, file.data, { mode: file.mode });
    await chmod(full, file.mode);
  }
  const tmpLink = join(targetDir, DATA_DIR_TMP_NAME);
  await rm(tmpLink, { force: true });
  await symlink(tsName, tmpLink);
  await rename(tmpLink, join(targetDir, DATA_DIR_NAME));
  const visible = new Set([...payload.keys()].map((p) => p.split("/")[0]!));
  for (const name of visible) {
    const link = join(targetDir, name);
    const info = await lstat(link).catch(() => undefined);
    if (info?.isSymbolicLink()) continue;
    if (info) await rm(link, { recursive: true, force: true });
    await symlink(`${DATA_DIR_NAME}${sep}${name}`, link);
  }
  for (const entry of await readdir(targetDir)) {
    if (entry.startsWith("..") || visible.has(entry)) continue;
    await rm(join(targetDir, entry), { recursive: true, force: true });
  }
  if (oldTsName !== undefined && oldTsName !== tsName && oldTsName.startsWith("..")) await rm(join(targetDir, oldTsName), { recursive: true, force: true });
  return true;
}
