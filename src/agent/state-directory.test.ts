import assert from "node:assert/strict";
import { chmod, chown, lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { loadOrCreateAgentToken } from "../server/agent-token.js";
import { currentUid, openStateDirectory, prepareStateDirectory, privateSubdirectory, StateDirectoryError } from "./state-directory.js";
import { StateDirectoryLock } from "./state-lock.js";

async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "probelet-statedir-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const mode = async (path: string): Promise<number> => (await lstat(path)).mode & 0o7777;

test("a missing state directory is made 0700, with its missing parents, and its real path returned", async (t) => {
  const base = await tempDir(t);
  const dir = join(base, "a", "b", "state");
  assert.equal(await prepareStateDirectory(dir), dir);
  assert.equal(await mode(dir), 0o700);
  assert.equal(await mode(join(base, "a")), 0o700);
  await symlink(dir, join(base, "link"));
  assert.equal(await prepareStateDirectory(join(base, "link")), dir, "a symbolic link is resolved and the real directory checked");
});

test("a state directory of the user's at 0755 (an older agent's) is narrowed to 0700; its pods/ too", async (t) => {
  const dir = join(await tempDir(t), "state");
  await mkdir(dir);
  await chmod(dir, 0o755);
  await mkdir(join(dir, "pods"));
  await chmod(join(dir, "pods"), 0o755);
  await prepareStateDirectory(dir);
  await privateSubdirectory(join(dir, "pods"));
  assert.equal(await mode(dir), 0o700);
  assert.equal(await mode(join(dir, "pods")), 0o700);
  await symlink("/etc", join(dir, "logs"));
  await assert.rejects(privateSubdirectory(join(dir, "logs")), new StateDirectoryError(`${join(dir, "logs")} is not a directory (a symbolic link): remove it`));
  assert.equal(await mode("/etc"), (await stat("/etc")).mode & 0o7777, "the link's target is untouched");
});

test("a state directory writable by group or others is refused, naming it and what is wrong, and nothing in it is touched", async (t) => {
  const dir = join(await tempDir(t), "state");
  await mkdir(dir);
  await chmod(dir, 0o777);
  await writeFile(join(dir, "agent-token"), "known", { mode: 0o644 });
  const message = `refusing the state directory ${dir}: it is writable by group or others (mode 0777), so anyone could have planted files in it; check what it holds, then chmod 700 ${dir}; or give --state-dir a new directory`;
  await assert.rejects(prepareStateDirectory(dir), new StateDirectoryError(message));
  await assert.rejects(openStateDirectory(dir), new StateDirectoryError(message));
  assert.equal(await mode(dir), 0o777);
  assert.deepEqual(await readdir(dir), ["agent-token"]);
  assert.equal(await mode(join(dir, "agent-token")), 0o644);
});

test("a state directory owned by another user is refused (as sshd's StrictModes would)", async (t) => {
  const dir = join(await tempDir(t), "state");
  await mkdir(dir, { mode: 0o700 });
  const other = currentUid() + 1;
  await assert.rejects(prepareStateDirectory(dir, other), new StateDirectoryError(`refusing the state directory ${dir}: it is owned by uid ${currentUid()}, not by uid ${other} who runs probelet, so its token and files are not yours to trust; remove it, or give --state-dir a directory of your own`));
});

test("a parent writable by others without the sticky bit is refused; a sticky one (/tmp) is not", async (t) => {
  const base = await tempDir(t);
  const open = join(base, "open");
  await mkdir(open);
  await chmod(open, 0o777);
  const dir = join(open, "state");
  await assert.rejects(prepareStateDirectory(dir), new StateDirectoryError(`refusing the state directory ${dir}: ${open} above it is writable by group or others (mode 0777, no sticky bit), so another user could replace what it holds; chmod go-w ${open}, or give --state-dir a directory elsewhere`));
  assert.deepEqual(await readdir(open), [], "nothing was made under the open parent");
  await chmod(open, 0o1777);
  assert.equal(await prepareStateDirectory(dir), dir);
  await assert.rejects(openStateDirectory(dir, currentUid() + 1), /is owned by uid/);
});

test("planted symbolic links at agent-token, agent.lock and agent.pid are never followed; the targets are untouched", async (t) => {
  const base = await tempDir(t);
  const dir = join(base, "state");
  await prepareStateDirectory(dir);
  const victim = join(base, "victim");
  await writeFile(victim, "precious\n", { mode: 0o644 });
  await symlink(victim, join(dir, "agent-token"));
  await assert.rejects(loadOrCreateAgentToken(dir), new Error(`${join(dir, "agent-token")} is a symbolic link: refusing to follow it`));
  await symlink(victim, join(dir, "agent.lock"));
  await assert.rejects(StateDirectoryLock.acquire(dir), new Error(`cannot lock the state directory ${dir}: ${join(dir, "agent.lock")} is a symbolic link: refusing to follow it`));
  await rm(join(dir, "agent.lock"));
  await symlink(victim, join(dir, "agent.pid"));
  const lock = await StateDirectoryLock.acquire(dir);
  t.after(() => lock.release());
  assert.equal(await readFile(join(dir, "agent.pid"), "utf8"), `${process.pid}\n`);
  assert.equal((await lstat(join(dir, "agent.pid"))).isFile(), true, "the link was replaced by the PID file");
  assert.equal(await mode(join(dir, "agent.pid")), 0o600);
  assert.equal(await mode(join(dir, "agent.lock")), 0o600);
  assert.equal(await readFile(victim, "utf8"), "precious\n");
  assert.equal(await mode(victim), 0o644);
});

test("an older agent's 0644 lock file is narrowed to 0600 when the lock is taken", async (t) => {
  const dir = join(await tempDir(t), "state");
  await prepareStateDirectory(dir);
  await writeFile(join(dir, "agent.lock"), "", { mode: 0o644 });
  await chmod(join(dir, "agent.lock"), 0o644);
  const lock = await StateDirectoryLock.acquire(dir);
  t.after(() => lock.release());
  assert.equal(await mode(join(dir, "agent.lock")), 0o600);
});

/** accountWithGroup finds a user in /etc/passwd whose primary group is (private) or is not (shared) theirs alone. */
async function accountWithGroup(wantPrivate: boolean): Promise<{ uid: number; gid: number } | undefined> {
  const passwd = (await readFile("/etc/passwd", "utf8")).split("\n").filter((l) => l !== "").map((l) => l.split(":"));
  const group = (await readFile("/etc/group", "utf8")).split("\n").filter((l) => l !== "").map((l) => l.split(":"));
  for (const [, , uid, gid] of passwd) {
    if (Number(uid) === 0) continue;
    const entry = group.find((g) => g[2] === gid);
    if (entry === undefined) continue;
    const shared = passwd.filter((p) => p[3] === gid).length > 1 || (entry[3] ?? "") !== "";
    if (shared !== wantPrivate) return { uid: Number(uid), gid: Number(gid) };
  }
  return undefined;
}

test("group write is allowed when the group is the user's private group (umask 002 schemes), refused when another user is in it", { skip: process.getuid?.() === 0 ? false : "making directories of other users needs root" }, async (t) => {
  const base = await tempDir(t);
  const privateAccount = await accountWithGroup(true);
  const sharedAccount = await accountWithGroup(false);
  if (privateAccount === undefined || sharedAccount === undefined) return t.skip("/etc/passwd has no user with a private group, or none with a shared one");
  const make = async (name: string, account: { uid: number; gid: number }): Promise<string> => {
    const dir = join(base, name);
    await mkdir(dir);
    await chown(dir, account.uid, account.gid);
    await chmod(dir, 0o770);
    return dir;
  };
  const own = await make("private", privateAccount);
  assert.equal(await openStateDirectory(own, privateAccount.uid), own);
  const shared = await make("shared", sharedAccount);
  await assert.rejects(openStateDirectory(shared, sharedAccount.uid), /is writable by group or others \(mode 0770\)/);
});
