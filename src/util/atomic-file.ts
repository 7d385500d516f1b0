// Writing a state file so that a reader (or an agent started after a crash) sees the old content
// or the new, never a part: the text goes to a fresh temporary file beside it, which is renamed
// over the file. Both are owner-only (file 0600, a directory made for it 0700): state files hold
// pod specs, statuses and Secrets.
import { randomBytes } from "node:crypto";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

/** writeFileAtomic replaces `path` with `text`, owner-only, in one rename. */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    await writeFile(tmp, text, { mode: 0o600, flag: "wx" });
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}
