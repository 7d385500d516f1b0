// The agent's API token: a random secret the agent writes into its state directory at first
// start (mode 0600, so only the agent's owner can read it) and requires on every request but
// /healthz. Local clients of the same user find it there by themselves; others are given it in a
// file or an environment variable, never on a command line, where `ps` would show it.
import { randomBytes } from "node:crypto";
import { chmod, open, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { readSmallFile } from "../util/read-bounded-file.js";

/** TOKEN_FILE is the token's file name in the state directory. */
export const TOKEN_FILE = "agent-token";

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
 * create, so two starts never write two tokens) when there is none. An existing token file that
 * others may read is narrowed to 0600 first: a token someone else could have read is not a secret.
 * The file holds the token alone, without a newline: kubectl trims what a kubeconfig's token file
 * holds, but @kubernetes/client-node sends it as it is (a newline makes the header illegal), so a
 * file an older agent wrote with one is rewritten bare.
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
  const info = await stat(path);
  if ((info.mode & 0o077) !== 0) await chmod(path, 0o600);
  const token = await readTokenFile(path);
  if ((await readSmallFile(path, MAX_TOKEN_FILE_BYTES)) !== token) await writeFile(path, token, { mode: 0o600 });
  return token;
}

/**
 * readTokenFile reads a token from a file (one line, surrounding whitespace dropped), bounded in
 * size; it rejects with an Error naming the file when it is empty, too large or unreadable.
 */
export async function readTokenFile(path: string): Promise<string> {
  const text = (await readSmallFile(path, MAX_TOKEN_FILE_BYTES)).trim();
  if (!/^\S+$/.test(text)) throw new Error(`the token file ${path} must hold one token: no spaces, not empty`);
  return text;
}

/** readTokenFileIfPresent is readTokenFile that resolves undefined when the file does not exist. */
export async function readTokenFileIfPresent(path: string): Promise<string | undefined> {
  return readTokenFile(path).catch((err: unknown) => {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  });
}
