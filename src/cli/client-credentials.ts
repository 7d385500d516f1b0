// How every client command (get, describe, explain, logs, apply, delete, console, kubeconfig)
// finds the agent and what it sends there. The token never goes to a listener the CLI has not
// authenticated:
//   - by default the agent is the one of the state directory (--state-dir, else
//     $PROBELET_STATE_DIR, else ~/.local/state/probelet), reached on its Unix socket
//     `<state-dir>/agent.sock`. The directory is checked first (owned by this user, writable by
//     nobody else, up to the root: state-directory.ts), so whatever listens on that socket was
//     started by this user (or root); nothing else could have put it there. When it does not
//     answer, that is an error: there is no fallback to a TCP port someone else may hold.
//   - `--server URL` (else $PROBELET_SERVER) names another address. It gets a token the user
//     gave (--token-file, $PROBELET_TOKEN, $PROBELET_TOKEN_FILE); the state directory's own token
//     only goes to an https:// server whose certificate is the state directory's own (pinned).
// CA for https://: --certificate-authority FILE, else $PROBELET_CA_FILE, else the state
// directory's self-signed serving certificate when it exists. Never a token on the command line:
// `ps` shows every argument to every user.
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { openStateDirectory } from "../agent/state-directory.js";
import { readTokenFile, readTokenFileIfPresent, tokenPath } from "../server/agent-token.js";
import { servingCertPath } from "../server/serving-cert.js";
import { readSmallFile } from "../util/read-bounded-file.js";
import { agentSocketPath } from "./agent-url-file.js";

/** Credentials are how a request reaches the agent: a bearer token, the CA for HTTPS, or the agent's socket. */
export interface Credentials {
  token?: string;
  ca?: Buffer;
  /** The agent's Unix socket: requests go there instead of to the server URL's host. */
  socketPath?: string;
}

/** CredentialFlags are the client flags that choose credentials. */
export interface CredentialFlags {
  "token-file"?: string | undefined;
  "certificate-authority"?: string | undefined;
  "state-dir"?: string | undefined;
}

/** AgentTarget is where a client command's requests go: a label for messages and URLs, and how to reach it. */
export interface AgentTarget {
  /** The server URL, or "unix:PATH" for the state directory's socket. */
  server: string;
  /** Whether the address came from --server / $PROBELET_SERVER rather than the state directory. */
  explicit: boolean;
  /** Reads the credentials once, when the first request needs them (so bad arguments read no file). */
  credentials: () => Promise<Credentials>;
}

/** NoAgentError says that no agent answers for a state directory, and how to start or name one. */
export class NoAgentError extends Error {
  override readonly name = "NoAgentError";
}

/** Certificate bundles larger than this are refused. */
const MAX_CA_BYTES = 1024 * 1024;
/** SOCKET_SERVER prefixes the socket's path in messages ("unix:/…/agent.sock"). */
const SOCKET_SERVER = "unix:";

/** defaultStateDir is `probelet run`'s state directory rule: $PROBELET_STATE_DIR, else ~/.local/state/probelet. */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env["PROBELET_STATE_DIR"] || join(homedir(), ".local", "state", "probelet"));
}

/** stateDirOf is the state directory a client command uses: --state-dir, else defaultStateDir. */
export function stateDirOf(flags: CredentialFlags, env: NodeJS.ProcessEnv = process.env): string {
  return flags["state-dir"] !== undefined ? resolve(flags["state-dir"]) : defaultStateDir(env);
}

/**
 * agentTarget chooses where a client command's requests go: server (already validated) when one
 * was given, else the state directory's socket.
 */
export function agentTarget(flags: CredentialFlags, server: URL | undefined, env: NodeJS.ProcessEnv = process.env): AgentTarget {
  const stateDir = stateDirOf(flags, env);
  let loaded: Promise<Credentials> | undefined;
  if (server === undefined) {
    return { server: `${SOCKET_SERVER}${agentSocketPath(stateDir)}`, explicit: false, credentials: () => (loaded ??= socketCredentials(flags, env, stateDir)) };
  }
  return { server: server.toString().replace(/\/+$/, ""), explicit: true, credentials: () => (loaded ??= serverCredentials(flags, env, stateDir, server)) };
}

/** socketCredentials: the checked state directory's socket, and its token unless another was given. */
async function socketCredentials(flags: CredentialFlags, env: NodeJS.ProcessEnv, stateDir: string): Promise<Credentials> {
  const real = await openStateDirectory(stateDir);
  if (real === undefined) {
    throw new NoAgentError(`no probelet agent has run with the state directory ${stateDir} (it does not exist): start "probelet run" (with --state-dir ${stateDir}), or pass --server URL`);
  }
  const token = (await givenToken(flags, env)) ?? (await readTokenFileIfPresent(tokenPath(real)));
  return { socketPath: agentSocketPath(real), ...(token !== undefined ? { token } : {}) };
}

/** serverCredentials: a given token, the CA, and the state directory's token only for a server that proves it holds the state directory's certificate. */
async function serverCredentials(flags: CredentialFlags, env: NodeJS.ProcessEnv, stateDir: string, server: URL): Promise<Credentials> {
  const out: Credentials = {};
  const given = await givenToken(flags, env);
  if (given !== undefined) out.token = given;
  if (server.protocol !== "https:") return out;
  const caFile = flags["certificate-authority"] ?? (env["PROBELET_CA_FILE"] || undefined);
  if (caFile !== undefined) {
    out.ca = Buffer.from(await readSmallFile(caFile, MAX_CA_BYTES));
    return out;
  }
  const real = await openStateDirectory(stateDir);
  if (real === undefined) return out;
  const own = await readSmallFile(servingCertPath(real), MAX_CA_BYTES, { noFollow: true }).catch(() => undefined);
  if (own === undefined) return out;
  // TLS now only succeeds with a server holding the state directory's key: its agent.
  out.ca = Buffer.from(own);
  if (out.token === undefined) {
    const token = await readTokenFileIfPresent(tokenPath(real));
    if (token !== undefined) out.token = token;
  }
  return out;
}

/** givenToken is the token the user gave: --token-file, else $PROBELET_TOKEN, else $PROBELET_TOKEN_FILE. */
async function givenToken(flags: CredentialFlags, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (flags["token-file"] !== undefined) return readTokenFile(flags["token-file"]);
  const fromEnv = env["PROBELET_TOKEN"];
  if (fromEnv) return fromEnv.trim();
  const file = env["PROBELET_TOKEN_FILE"];
  if (file) return readTokenFile(file);
  return undefined;
}
