// Where a running agent can be found on this machine. Its own clients reach it on the Unix
// socket `agent.sock` in its state directory, which only the directory's owner can enter. For
// those that need a TCP address it records its URLs in `agent-url`: line 1 is the status API;
// line 2, when there is one, the same API over HTTPS beside a loopback HTTP listener (what
// kubectl needs: it sends tokens over HTTPS only, and it pins the state directory's certificate,
// so a port someone took over after the agent died gets nothing from it).
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../util/atomic-file.js";
import { readSmallFile } from "../util/read-bounded-file.js";

/** AGENT_URL_FILE is the file's name inside the state directory. */
export const AGENT_URL_FILE = "agent-url";
/** AGENT_SOCKET_FILE is the name of the agent's Unix socket inside the state directory. */
export const AGENT_SOCKET_FILE = "agent.sock";

/** A recorded URL longer than this is not an agent's URL: reading it fails. */
const MAX_URL_LENGTH = 2048;

/** agentUrlPath is where the agent of stateDir records its URL. */
export function agentUrlPath(stateDir: string): string {
  return join(stateDir, AGENT_URL_FILE);
}

/** agentSocketPath is where the agent of stateDir serves its owner's clients. */
export function agentSocketPath(stateDir: string): string {
  return join(stateDir, AGENT_SOCKET_FILE);
}

/**
 * writeAgentUrl records the agent's URL and its HTTPS URL if it has a second one: mode 0600 like
 * the token beside it, written to a new file renamed into place, so a symbolic link planted at
 * the name is replaced, never followed.
 */
export async function writeAgentUrl(stateDir: string, url: string, httpsUrl?: string): Promise<void> {
  await writeFileAtomic(agentUrlPath(stateDir), httpsUrl === undefined ? `${url}\n` : `${url}\n${httpsUrl}\n`);
}

/** removeAgentUrl forgets the recorded URL when the agent stops serving; a missing file is fine. */
export async function removeAgentUrl(stateDir: string): Promise<void> {
  await rm(agentUrlPath(stateDir), { force: true });
}

/**
 * readAgentUrl reads the recorded URL (with preferHttps, the HTTPS one when the agent has one);
 * undefined when no agent of stateDir recorded one.
 */
export async function readAgentUrl(stateDir: string, options: { preferHttps?: boolean } = {}): Promise<string | undefined> {
  const text = await readSmallFile(agentUrlPath(stateDir), 2 * MAX_URL_LENGTH + 2, { noFollow: true }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return undefined;
    if (err.code === undefined) throw new Error(`${agentUrlPath(stateDir)} does not hold an agent URL`);
    throw err;
  });
  if (text === undefined) return undefined;
  const urls = text.split("\n").map((line) => line.trim()).filter((line) => line !== "");
  if (urls.length === 0 || urls.length > 2 || urls.some((url) => url.length > MAX_URL_LENGTH || !/^https?:\/\/\S+$/.test(url))) {
    throw new Error(`${agentUrlPath(stateDir)} does not hold an agent URL`);
  }
  return (options.preferHttps === true ? urls[1] : undefined) ?? urls[0];
}
