// A state directory is its owner's: it holds the API token, the agent's socket, pod specs,
// Secrets and logs, so a directory another user made, or could write to, or could swap for one
// of their own, is refused before anything in it is read, as sshd's StrictModes refuses a
// ~/.ssh it cannot trust. The rule, checked on the directory's real path (symbolic links
// resolved first, so what is checked is what is used):
//   - the state directory is a directory owned by the user who runs probelet, not writable by
//     group or others (the agent also narrows a 0755 one of its own to 0700);
//   - every directory above it is owned by that user or root, and not writable by group or
//     others unless it has the sticky bit (as /tmp has: there only a file's owner may rename it).
// Group write is harmless, and allowed, when the group is the user's private group (no other
// user is in it: the user-private-group scheme with umask 002, as Debian's sshd allows it).
// The agent makes a missing directory (and missing parents) 0700 after checking the part that
// exists; clients only check.
import { chmod, lstat, mkdir, realpath } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { readSmallFile } from "../util/read-bounded-file.js";

/** StateDirectoryError says why a state directory is refused, naming the path and the fix. */
export class StateDirectoryError extends Error {
  override readonly name = "StateDirectoryError";
}

/** Mode bits: group and others may write; group and others may do anything; the sticky bit. */
const GROUP_WRITE = 0o020;
const OTHER_WRITE = 0o002;
const GROUP_OTHER_ANY = 0o077;
const STICKY = 0o1000;
/** The most of /etc/passwd and /etc/group read to tell whether a group is private. */
const MAX_ACCOUNT_FILE_BYTES = 8 * 1024 * 1024;
/** The most path components checked above a state directory (PATH_MAX allows no more). */
const MAX_DEPTH = 2048;

/** currentUid is the effective user ID files are created as. */
export function currentUid(): number {
  return process.geteuid?.() ?? 0;
}

/**
 * prepareStateDirectory makes the agent's state directory safe to use and returns its real
 * path: the existing part of the path is checked first, missing directories are made 0700, then
 * the whole path is checked, and a directory of the user's with group or other bits and no write
 * bit for them (an older agent's 0755) is narrowed to 0700. Rejects with StateDirectoryError when
 * the directory or a parent is not safe; nothing in it is touched then.
 */
export async function prepareStateDirectory(dir: string, uid: number = currentUid()): Promise<string> {
  const wanted = resolve(dir);
  const existing = await deepestExisting(wanted);
  if (existing !== wanted) {
    await checkParents(dir, await realpath(existing), uid);
    await mkdir(wanted, { recursive: true, mode: 0o700 });
  }
  const real = await checkStateDirectory(dir, uid);
  const info = await lstat(real);
  if ((info.mode & GROUP_OTHER_ANY) !== 0) await chmod(real, 0o700);
  return real;
}

/**
 * privateSubdirectory makes a directory of a checked state directory owner-only: made 0700 when
 * missing, narrowed to 0700 when an older agent made it wider; a symbolic link or anything but a
 * directory at its name is refused.
 */
export async function privateSubdirectory(path: string): Promise<void> {
  await mkdir(path, { mode: 0o700 }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== "EEXIST") throw err;
  });
  const info = await lstat(path);
  if (!info.isDirectory()) throw new StateDirectoryError(`${path} is not a directory (${info.isSymbolicLink() ? "a symbolic link" : "a file"}): remove it`);
  if ((info.mode & GROUP_OTHER_ANY) !== 0) await chmod(path, 0o700);
}

/**
 * openStateDirectory checks a state directory a client reads (the token, the socket) and returns
 * its real path, or undefined when it does not exist (no agent ever ran there). Rejects with
 * StateDirectoryError when it is not safe to trust.
 */
export async function openStateDirectory(dir: string, uid: number = currentUid()): Promise<string | undefined> {
  const exists = await lstat(resolve(dir)).then(() => true, (err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return false;
    throw err;
  });
  return exists ? checkStateDirectory(dir, uid) : undefined;
}

/** checkStateDirectory applies the rule to an existing directory and returns its real path. */
async function checkStateDirectory(dir: string, uid: number): Promise<string> {
  const real = await realpath(resolve(dir));
  const info = await lstat(real);
  const refuse = (why: string, fix: string): StateDirectoryError => new StateDirectoryError(`refusing the state directory ${dir}: ${why}; ${fix}`);
  const where = real === resolve(dir) ? "it" : `${real} (where it leads)`;
  if (!info.isDirectory()) throw refuse(`${where} is not a directory`, "give --state-dir a directory");
  if (info.uid !== uid) {
    throw refuse(`${where} is owned by uid ${info.uid}, not by uid ${uid} who runs probelet, so its token and files are not yours to trust`, "remove it, or give --state-dir a directory of your own");
  }
  if (!(await writableByOwnerOnly(info, uid))) {
    throw refuse(`${where} is writable by group or others (mode ${octal(info.mode)}), so anyone could have planted files in it`, `check what it holds, then chmod 700 ${real}; or give --state-dir a new directory`);
  }
  await checkParents(dir, dirname(real), uid);
  return real;
}

/**
 * checkParents checks the directories from `from` (a real path: the state directory's parent, or
 * the deepest existing part of a path still to be made) up to the root: each owned by the user
 * or root, and not writable by group (but the user's private group) or others unless sticky.
 */
async function checkParents(dir: string, from: string, uid: number): Promise<void> {
  let current = from;
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    const info = await lstat(current);
    if (info.uid !== uid && info.uid !== 0) {
      throw new StateDirectoryError(`refusing the state directory ${dir}: ${current} above it is owned by uid ${info.uid}, who could replace what it holds; give --state-dir a directory in one that only you or root own`);
    }
    if ((info.mode & STICKY) === 0 && !(await writableByOwnerOnly(info, uid))) {
      throw new StateDirectoryError(`refusing the state directory ${dir}: ${current} above it is writable by group or others (mode ${octal(info.mode)}, no sticky bit), so another user could replace what it holds; chmod go-w ${current}, or give --state-dir a directory elsewhere`);
    }
    const parent = dirname(current);
    if (parent === current) return;
    current = parent;
  }
  throw new StateDirectoryError(`refusing the state directory ${dir}: its path has more than ${MAX_DEPTH} components`);
}

/** writableByOwnerOnly: no write bit for others, and none for the group unless it is the user's private group. */
async function writableByOwnerOnly(info: { mode: number; gid: number }, uid: number): Promise<boolean> {
  if ((info.mode & OTHER_WRITE) !== 0) return false;
  return (info.mode & GROUP_WRITE) === 0 || (await isPrivateGroup(info.gid, uid));
}

/**
 * isPrivateGroup reports whether no user but uid belongs to group gid, by /etc/passwd (primary
 * groups) and /etc/group (members). A group or user these files do not know (another name
 * service) is not taken as private.
 */
async function isPrivateGroup(gid: number, uid: number): Promise<boolean> {
  if (gid === 0) return false;
  const [passwd, group] = await Promise.all([readAccounts("/etc/passwd"), readAccounts("/etc/group")]);
  const user = passwd.find((fields) => Number(fields[2]) === uid);
  const entry = group.find((fields) => Number(fields[2]) === gid);
  if (user === undefined || entry === undefined) return false;
  const othersInIt = passwd.some((fields) => Number(fields[2]) !== uid && Number(fields[3]) === gid);
  const members = (entry[3] ?? "").split(",").filter((name) => name !== "" && name !== user[0]);
  return !othersInIt && members.length === 0;
}

/** readAccounts reads a colon-separated account file into its lines' fields ([] when it cannot be read). */
async function readAccounts(path: string): Promise<string[][]> {
  const text = await readSmallFile(path, MAX_ACCOUNT_FILE_BYTES).catch(() => "");
  return text.split("\n").filter((line) => line !== "" && !line.startsWith("#")).map((line) => line.split(":"));
}

/** deepestExisting is path itself when it exists, else its nearest existing ancestor. */
async function deepestExisting(path: string): Promise<string> {
  let current = path;
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    const found = await lstat(current).then(() => true, (err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT") return false;
      throw err;
    });
    if (found) return current;
    const parent = dirname(current);
    if (parent === current) return current;
    current = parent;
  }
  return current;
}

function octal(mode: number): string {
  return `0${(mode & 0o7777).toString(8).padStart(3, "0")}`;
}
