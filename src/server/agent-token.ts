// The agent's API token: a random secret the agent writes into its state directory at first
// start (mode 0600, so only the agent's owner can read it) and requires on every request but
// /healthz. Local clients of the same user find it there by themselves; others are given it in a
// file or an environment variable, never on a command line, where `ps` would show it. A token
// file others can read, or that another user owns (and so chose), is refused: its token is no
// secret.
import { randomBytes } from "node:crypto";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../util/atomic-file.js";
import { openForReading, readHandleBounded, type ReadOptions } from "../util/read-bounded-file.js";

/** TOKEN_FILE is the token's file name in the state directory. */
export const TOKEN_FILE = "agent-token";

/**
 * MIN_TOKEN_CHARS is the shortest token the agent serves with (--token-file): any local user
 * can try tokens as fast as the agent answers, so a token must be long enough never to be
 * guessed; 32 characters of base64 are 192 bits when random. The agent's own has 43.
 */
export const MIN_TOKEN_CHARS = 32;

/** Bytes of randomness in a generated token (256 bits, base64url: 43 characters). */
const TOKEN_BYTES = 32;
/** The largest token file read; a token is one short line. */
const MAX_TOKEN_FILE_BYTES = 4096;

/** tokenPath is where the agent of stateDir keeps its token. */
export function tokenPath(stateDir: string): string {
  return join(stateDir, TOKEN_FILE);
}

/**
 * loadOrCreateAgentToken returns the token of the state directory, creating it (0600, exclusive
 * create, so two starts never write two tokens and a planted symbolic link is never followed)
 * when there is none. An existing token file is opened without following a symbolic link, and
 * one that others may read is narrowed to 0600 first. The file holds the token alone, without a
 * newline: kubectl trims what a kubeconfig's token file holds, but @kubernetes/client-node sends
 * it as it is (a newline makes the header illegal), so a file an older agent wrote with one is
 * rewritten bare.
 */
export async function loadOrCreateAgentToken(stateDir: string): Promise<string> {
  const path = tokenPath(stateDir);
  try {
    const handle = await open(path, "wx", 0o600);
    try {
      const token = randomBytes(TOKEN_BYTES).toString("base64url");
      await handle.writeFile(token);
      return token;
    } finally {
      await handle.close();
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  const { token, raw } = await readToken(path, { noFollow: true, narrow: true });
  if (raw !== token) await writeFileAtomic(path, token);
  return token;
}

/**
 * readTokenFile reads a token from a file (one line, surrounding whitespace dropped), bounded in
 * size; it rejects with an Error naming the file when it is empty, too large, unreadable,
 * readable by group or others, or owned by another user than the reader (or root).
 */
export async function readTokenFile(path: string): Promise<string> {
  return (await readToken(path, {})).token;
}

/**
 * readServingToken is readTokenFile for the token an agent serves with (`run --token-file`): it
 * must also be at least MIN_TOKEN_CHARS long.
 */
export async function readServingToken(path: string): Promise<string> {
  const token = await readTokenFile(path);
  if (token.length < MIN_TOKEN_CHARS) {
    throw new Error(`the token in ${path} has ${token.length} characters: the agent needs at least ${MIN_TOKEN_CHARS}, so that no one can guess it (e.g. head -c 32 /dev/urandom | base64 | tr -d '=+/\\n' > FILE)`);
  }
  return token;
}

/** readTokenFileIfPresent is readTokenFile that resolves undefined when the file does not exist. */
export async function readTokenFileIfPresent(path: string): Promise<string | undefined> {
  return readTokenFile(path).catch((err: unknown) => {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  });
}

/**
 * readToken opens the token file once and checks what it opened: a regular file, owned by the
 * reader or root, not readable by group or others (narrowed to 0600 instead with `narrow`).
 */
async function readToken(path: string, options: ReadOptions & { narrow?: boolean }): Promise<{ token: string; raw: string }> {
  const handle = await openForReading(path, options);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new Error(`the token file ${path} is not a regular file`);
    const uid = process.geteuid?.() ?? 0;
    if (info.uid !== uid && info.uid !== 0) throw new Error(`the token file ${path} is owned by uid ${info.uid}, who chose the token and can read it: use a token file of your own`);
    if ((info.mode & 0o077) !== 0) {
      if (options.narrow !== true) throw new Error(`the token file ${path} may be read by group or others (mode 0${(info.mode & 0o777).toString(8)}), so its token is no secret: chmod 600 ${path} (and make a new token if others could have read it)`);
      await handle.chmod(0o600);
    }
    const file = await readHandleBounded(handle, MAX_TOKEN_FILE_BYTES);
    if (!file.ok) throw new Error(`${path} is larger than ${MAX_TOKEN_FILE_BYTES} bytes`);
    const token = file.text.trim();
    if (!/^\S+$/.test(token)) throw new Error(`the token file ${path} must hold one token: no spaces, not empty`);
    return { token, raw: file.text };
  } finally {
    await handle.close();
  }
}
