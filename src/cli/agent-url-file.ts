// The file in which a running agent records the URL of its status API, so that clients on the
// same machine (`probelet kubeconfig`, `probelet console`) find an agent that listens on a port
// chosen at start. Line 1 is the status API; line 2, when there is one, the same API over HTTPS
// beside a loopback HTTP listener (what kubectl needs: it sends tokens over HTTPS only).
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** AGENT_URL_FILE is the file's name inside the state directory. */
export const AGENT_URL_FILE = "agent-url";

/** A recorded URL longer than this is not an agent's URL: reading it fails. */
const MAX_URL_LENGTH = 2048;

/** agentUrlPath is where the agent of stateDir records its URL. */
export function agentUrlPath(stateDir: string): string {
  return join(stateDir, AGENT_URL_FILE);
}

/** writeAgentUrl records the agent's URL and its HTTPS URL if it has a second one (mode 0600 like the token beside it). */
export async function writeAgentUrl(stateDir: string, url: string, httpsUrl?: string): Promise<void> {
  await writeFile(agentUrlPath(stateDir), httpsUrl === undefined ? `${url}\n` : `${url}\n${httpsUrl}\n`, { mode: 0o600 });
}

/** removeAgentUrl forgets the recorded URL when the agent stops serving; a missing file is fine. */
export async function removeAgentUrl(stateDir: string): Promise<void> {
  await rm(agentUrlPath(stateDir), { force: true });
}

/**
 * readAgentUrl reads the recorded URL (with preferHttps, the HTTPS one when the agent has one);
 * undefined when no agent of stateDir is running.
 */
export async function readAgentUrl(stateDir: string, options: { preferHttps?: boolean } = {}): Promise<string | undefined> {
  const text = await readFile(agentUrlPath(stateDir), "utf8").catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return undefined;
    throw err;
  });
  if (text === undefined) return undefined;
  const urls = text.split("\n").map((line) => line.trim()).filter((line) => line !== "");
  if (urls.length === 0 || urls.length > 2 || urls.some((url) => url.length > MAX_URL_LENGTH || !/^https?:\/\/\S+$/.test(url))) {
    throw new Error(`${agentUrlPath(stateDir)} does not hold an agent URL`);
  }
  return (options.preferHttps === true ? urls[1] : undefined) ?? urls[0];
}
