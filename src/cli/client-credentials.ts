// Where a client command finds the agent's token and, for HTTPS, the certificate to trust —
// without ever taking the token on the command line (`ps` shows every argument):
//   token: --token-file FILE, else $PROBELET_TOKEN, else $PROBELET_TOKEN_FILE, else (for an agent on
//          loopback only) the token the local agent wrote into its state directory;
//   CA:    --certificate-authority FILE, else $PROBELET_CA_FILE, else the state directory's
//          self-signed serving certificate when it exists.
// The state directory is --state-dir, else $PROBELET_STATE_DIR, else ~/.local/state/probelet: the
// same rule as `probelet run`, so the owner of a local agent needs no flag at all.
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { isLoopbackHost } from "../server/auth.js";
import { readTokenFile, readTokenFileIfPresent, tokenPath } from "../server/agent-token.js";
import { servingCertPath } from "../server/serving-cert.js";
import { readSmallFile } from "../util/read-bounded-file.js";

/** Credentials are what a request to the agent carries: a bearer token and the CA for HTTPS. */
export interface Credentials {
  token?: string;
  ca?: Buffer;
}

/** CredentialFlags are the client flags that choose credentials. */
export interface CredentialFlags {
  "token-file"?: string | undefined;
  "certificate-authority"?: string | undefined;
  "state-dir"?: string | undefined;
}

/** Certificate bundles larger than this are refused. */
const MAX_CA_BYTES = 1024 * 1024;

/** defaultStateDir is `probelet run`'s state directory rule: $PROBELET_STATE_DIR, else ~/.local/state/probelet. */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env["PROBELET_STATE_DIR"] || join(homedir(), ".local", "state", "probelet"));
}

/**
 * credentialLoader returns a function that reads the credentials for server once, when the first
 * request needs them (so commands that fail on their arguments read no file).
 */
export function credentialLoader(flags: CredentialFlags, server: URL, env: NodeJS.ProcessEnv = process.env): () => Promise<Credentials> {
  let loaded: Promise<Credentials> | undefined;
  return () => (loaded ??= loadCredentials(flags, server, env));
}

async function loadCredentials(flags: CredentialFlags, server: URL, env: NodeJS.ProcessEnv): Promise<Credentials> {
  const stateDir = flags["state-dir"] !== undefined ? resolve(flags["state-dir"]) : defaultStateDir(env);
  const local = isLoopbackHost(server.hostname.replace(/^\[|\]$/g, ""));
  const out: Credentials = {};
  const token = await findToken(flags, env, local ? stateDir : undefined);
  if (token !== undefined) out.token = token;
  if (server.protocol === "https:") {
    const caFile = flags["certificate-authority"] ?? (env["PROBELET_CA_FILE"] || undefined);
    if (caFile !== undefined) out.ca = Buffer.from(await readSmallFile(caFile, MAX_CA_BYTES));
    else {
      const own = await readSmallFile(servingCertPath(stateDir), MAX_CA_BYTES).catch(() => undefined);
      if (own !== undefined) out.ca = Buffer.from(own);
    }
  }
  return out;
}

async function findToken(flags: CredentialFlags, env: NodeJS.ProcessEnv, localStateDir: string | undefined): Promise<string | undefined> {
  if (flags["token-file"] !== undefined) return readTokenFile(flags["token-file"]);
  const fromEnv = env["PROBELET_TOKEN"];
  if (fromEnv) return fromEnv.trim();
  const file = env["PROBELET_TOKEN_FILE"];
  if (file) return readTokenFile(file);
  // The local agent's own token, never sent to another host. A token file this user may not read
  // (another user's agent) leaves the request without one: the agent answers 401.
  if (localStateDir === undefined) return undefined;
  return readTokenFileIfPresent(tokenPath(localStateDir)).catch(() => undefined);
}
