// The restart count of a container the runtime knows no instance of, read from its log directory
// (kubelet kuberuntime_container.go calcRestartCountByLogDir): every instance wrote
// <restartCount>.log there (rotated files carry a suffix), so the next one is the highest + 1.
import { readdir } from "node:fs/promises";

const LOG_NAME = /^(\d{1,9})\.log(\..*)?$/;

/** MAX_LOG_DIR_ENTRIES bounds how many directory entries are looked at. */
export const MAX_LOG_DIR_ENTRIES = 10_000;

/** restartCountFromLogDir returns 1 + the highest instance number logged in `dir`, or 0 when there is none. */
export async function restartCountFromLogDir(dir: string): Promise<number> {
  const names = await readdir(dir).catch(() => [] as string[]);
  let next = 0;
  for (const name of names.slice(0, MAX_LOG_DIR_ENTRIES)) {
    const m = LOG_NAME.exec(name);
    if (m) next = Math.max(next, Number(m[1]) + 1);
  }
  return next;
}
